// `npm run bench:ranges`: the largest range lists (GET /ranges?country=US,
// ?kind=hosting, and ?country=RU, ?asn=AS14061 beside them) from the built
// service (dist/bundle/main.js) on the embedded data: for each, the time to
// the first byte and to the last, the list's size (blocks, bytes) and the
// listening process's RSS sampled every 5 ms while the list is made (growth
// over the RSS just before). The first request of each list is reported
// apart (it builds the memos of its records); then the median of
// BENCH_ROUNDS (default 5) more. The service has read its tables whole
// before the first list (the bench waits for its RSS to settle).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import {
  envCount,
  freePort,
  median,
  ROOT,
  SERVICE_ENV,
  SERVER_CPU,
  startServer,
  stop,
} from './harness.js';
import { SERVICE_FLAGS } from '../src/cli/service-flags.js';

const LISTS = ['country=US', 'kind=hosting', 'country=RU', 'asn=AS14061'];

/** The process's CPU time (user + system) in ms, from /proc. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

const CLOCK_TICKS =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

interface Fetched {
  /** the answer's head (curl's time_starttransfer) */
  headMs: number;
  /** the first bytes of the list itself */
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  blocks: number;
  rssGrowthKb: number;
  cpuMs: number;
}

function fetchList(port: number, pid: number, query: string): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const before = rssKb(pid);
    const cpuBefore = cpuMs(pid);
    let most = before;
    const sampler = setInterval(() => (most = Math.max(most, rssKb(pid))), 5);
    const t0 = performance.now();
    let first = -1;
    let head = -1;
    let bytes = 0;
    let blocks = 0;
    const req = get({ host: '127.0.0.1', port, path: `/ranges?${query}`, agent: false }, (res) => {
      head = performance.now() - t0;
      res.on('data', (chunk: Buffer) => {
        if (first < 0) first = performance.now() - t0;
        bytes += chunk.length;
        for (const byte of chunk) if (byte === 0x0a) blocks++;
      });
      res.on('end', () => {
        clearInterval(sampler);
        most = Math.max(most, rssKb(pid));
        resolve({
          headMs: head,
          firstByteMs: first,
          totalMs: performance.now() - t0,
          bytes,
          blocks,
          rssGrowthKb: most - before,
          cpuMs: cpuMs(pid) - cpuBefore,
        });
      });
    });
    req.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
  });
}

/**
 * Waits until the service has read its tables whole (its log line `tables
 * in memory` goes to stdout, which the harness drops): its RSS has stopped
 * growing for a second.
 */
async function tablesInMemory(pid: number): Promise<void> {
  let last = rssKb(pid);
  for (let still = 0, i = 0; still < 20 && i < 1200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = rssKb(pid);
    still = now - last < 256 ? still + 1 : 0;
    last = now;
  }
}

const rounds = envCount('BENCH_ROUNDS', 5);
const dir = mkdtempSync(join(tmpdir(), 'ipintel-bench-ranges-'));
const port = await freePort();
const errFile = join(dir, 'service.log');
const server = await startServer({
  name: 'ipintel',
  // npm start's flags: the young generation's size is most of what a list's garbage can take
  command: [process.execPath, ...SERVICE_FLAGS, join(ROOT, 'dist', 'bundle', 'main.js')],
  cwd: ROOT,
  env: { ...SERVICE_ENV, DATA_DIR: dir },
  port,
  cpu: SERVER_CPU,
  errFile,
  readyPath: '/readyz',
  timeoutMs: 60_000,
});
try {
  await tablesInMemory(server.pid);
  const f = (n: number) => n.toFixed(1);
  process.stdout.write(
    '| list | blocks | bytes | first request: head, first block, total, service CPU (ms) | median of later: head, first block, total, service CPU (ms) | RSS growth: first request, most of later (MB) |\n|---|---|---|---|---|---|\n',
  );
  for (const query of LISTS) {
    const cold = await fetchList(port, server.pid, query);
    const warm: Fetched[] = [];
    for (let i = 0; i < rounds; i++) warm.push(await fetchList(port, server.pid, query));
    const mb = (kb: number) => (kb / 1024).toFixed(1);
    const growth = `${mb(cold.rssGrowthKb)}, ${mb(Math.max(...warm.map((w) => w.rssGrowthKb)))}`;
    process.stdout.write(
      `| \`?${query}\` | ${cold.blocks.toLocaleString('en-US')} | ${cold.bytes.toLocaleString('en-US')} | ${f(cold.headMs)}, ${f(cold.firstByteMs)}, ${f(cold.totalMs)}, ${f(cold.cpuMs)} | ${f(median(warm.map((w) => w.headMs)))}, ${f(median(warm.map((w) => w.firstByteMs)))}, ${f(median(warm.map((w) => w.totalMs)))}, ${f(median(warm.map((w) => w.cpuMs)))} | ${growth} |\n`,
    );
  }
} finally {
  stop(server.child);
  rmSync(dir, { recursive: true, force: true });
}
