// `npm run bench:bulk`: the bulk figures of BENCHMARKS.md.
//  1. POST /batch of 1,000 random public IPv4 addresses, BULK_BATCHES times in
//     a row over one keep-alive connection to `node dist/bundle/main.js`: the
//     median server time (the access log's `ms`, from the request's arrival
//     to the end of the answer) and the median whole request seen by the client.
//  2. `ipintel enrich` of a synthetic access log of BULK_LINES lines (random
//     public IPv4 at the start of each line, bench/access-log.ts) to JSONL:
//     wall time and peak RSS (GNU time's %M) of `dist/src/cli/main.js` run as
//     its bin (the flags of its first line), the median of BULK_ENRICH_RUNS;
//     and the same work through the HTTP API — the lines' addresses sent as
//     POST /batch chunks of 1,000, the results spliced with their lines into
//     the same JSONL — timed from the first request to the last line written.
// Output goes to /dev/null in both. Exit 0; 1 when it could not measure.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findAddress } from '../src/cli/find-address.js';
import { accessLog, publicAddresses } from './access-log.js';
import { freePort } from './harness.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LINES = Number(process.env['BULK_LINES'] ?? 1_000_000);
const BATCHES = Number(process.env['BULK_BATCHES'] ?? 300);
const ENRICH_RUNS = Number(process.env['BULK_ENRICH_RUNS'] ?? 3);

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

function post(agent: Agent, port: number, body: string): Promise<string> {
  return new Promise((resolvePost, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/batch',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          res.statusCode === 200
            ? resolvePost(text)
            : reject(new Error(`${res.statusCode}: ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function startService(): Promise<{
  port: number;
  serverMs: () => number[];
  stop: () => void;
}> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/bundle/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMIT_MAX: '1000000000',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ms: number[] = [];
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const entry = /"url":"\/batch".*"ms":([\d.]+)/.exec(line);
      if (entry) ms.push(Number(entry[1]));
    }
  });
  await new Promise<void>((ready, fail) => {
    child.stdout.on('data', (chunk: string) => {
      if (chunk.includes('ipintel listening')) ready();
    });
    child.once('exit', (code) => fail(new Error(`the service exited (${code})`)));
  });
  return { port, serverMs: () => ms, stop: () => child.kill('SIGTERM') };
}

async function batchLatency(port: number, serverMs: () => number[]): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const addresses = publicAddresses(1000 * (BATCHES + 20), 7);
  const client: number[] = [];
  for (let i = 0; i < BATCHES + 20; i++) {
    const body = JSON.stringify(addresses.slice(i * 1000, (i + 1) * 1000));
    const t0 = performance.now();
    await post(agent, port, body);
    if (i >= 20) client.push(performance.now() - t0); // the first 20 warm up
  }
  agent.destroy();
  await new Promise((r) => setTimeout(r, 1500)); // the access log is written in batches
  const server = serverMs().slice(20);
  console.log(
    `POST /batch, 1,000 random public IPv4, ${BATCHES} requests: server median ${median(server).toFixed(2)} ms (p90 ${[...server].sort((a, b) => a - b)[Math.floor(server.length * 0.9)]?.toFixed(2)} ms), whole request median ${median(client).toFixed(2)} ms`,
  );
}

/** `ipintel enrich` run as its bin (its first line's flags), ENRICH_RUNS times: the median and the spread. */
function enrichCli(file: string): void {
  const runs: { seconds: number; kb: number }[] = [];
  for (let i = 0; i < ENRICH_RUNS; i++) {
    const run = spawnSync(
      '/usr/bin/time',
      ['-f', '%e %M', 'dist/src/cli/main.js', 'enrich', file],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'pipe'],
        encoding: 'utf8',
      },
    );
    const [seconds, kb] = (run.stderr.trim().split('\n').pop() ?? '').split(' ').map(Number);
    if (run.status !== 0 || seconds === undefined || kb === undefined)
      throw new Error(`enrich failed: ${run.stderr}`);
    runs.push({ seconds, kb });
  }
  const seconds = median(runs.map((r) => r.seconds));
  const kb = Math.max(...runs.map((r) => r.kb));
  console.log(
    `ipintel enrich ${LINES} lines → JSONL, median of ${ENRICH_RUNS} runs: ${seconds.toFixed(2)} s wall, ${Math.round(LINES / seconds)} lines/s (runs: ${runs.map((r) => r.seconds.toFixed(2)).join(', ')} s), peak RSS ${Math.round(kb / 1024)} MB (the largest of the runs)`,
  );
}

async function enrichHttp(file: string, port: number): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const out = createWriteStream('/dev/null');
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const t0 = performance.now();
  for (let start = 0; start < lines.length; start += 1000) {
    const chunk = lines.slice(start, start + 1000);
    const ips = chunk.map((line) => findAddress(line)?.text ?? '');
    const answer = JSON.parse(await post(agent, port, JSON.stringify(ips))) as {
      data: { results: { data?: Record<string, unknown> }[] };
    };
    let text = '';
    answer.data.results.forEach((result, i) => {
      text += `${JSON.stringify({ ...result.data, line: chunk[i] })}\n`;
    });
    if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  out.end();
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  console.log(
    `the same through POST /batch (chunks of 1,000, one connection): ${seconds.toFixed(2)} s wall, ${Math.round(LINES / seconds)} lines/s (the service's RSS not counted)`,
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-bulk-'));
  const file = join(dir, 'access.log');
  writeFileSync(file, accessLog(LINES));
  const service = await startService();
  try {
    console.log(
      `load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
    await batchLatency(service.port, service.serverMs);
    enrichCli(file);
    await enrichHttp(file, service.port);
    console.log(
      `load average: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
    );
  } finally {
    service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
