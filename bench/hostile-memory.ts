// Memory after abuse, measured: the service as `npm start` runs it (its
// bundle, `--max-semi-space-size=4`, GLIBC_TUNABLES as this process has it,
// so `GLIBC_TUNABLES= node --import tsx bench/hostile-memory.ts` measures
// without the tunable), a hostile mix, then a spray of distinct client
// addresses (X-Forwarded-For, TRUST_PROXY=true: the rate limiter keeps one
// bucket per address), and its resident memory (and the anonymous huge
// pages in it) at the start, after each load, and a minute after.
//
//   node --import tsx bench/hostile-memory.ts [--requests 15000] [--spray 300000] [--wait 60]
//
// The mix: odd paths and methods, forged X-Forwarded-For, /batch and /mcp
// bodies from a few bytes to 20 MiB (over 1 MiB: refused with 413 while the
// body is read and thrown away), 10,000-deep JSON. Loopback only; bounded by
// the counts given.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { xorshift32 } from '../scripts/xorshift.js';
import { freePort } from './harness.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '15000' },
    spray: { type: 'string', default: '300000' },
    wait: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '16' },
  },
});
const REQUESTS = Number(values.requests);
const SPRAY = Number(values.spray);
const WAIT_S = Number(values.wait);
const CONCURRENCY = Number(values.concurrency);
const MB = 1024 * 1024;

function memory(pid: number): { rss: number; hugeAnon: number } {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
  return { rss: kb('Rss'), hugeAnon: kb('AnonHugePages') };
}

function shown(m: { rss: number; hugeAnon: number }): string {
  return `RSS ${(m.rss / MB).toFixed(0)} MB (anonymous huge pages ${(m.hugeAnon / MB).toFixed(0)} MB)`;
}

/** One request on its own connection; resolves with the status (0: the connection failed). */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | string | null,
): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(30_000, () => req.destroy());
    if (body === null) req.end();
    else req.end(body);
  });
}

async function pool(
  count: number,
  job: (i: number) => Promise<number>,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const status = await job(next++);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  return statuses;
}

async function main(): Promise<void> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/bundle/main.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      TRUST_PROXY: 'true',
      RATE_LIMIT_MAX: '1000000000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const pid = child.pid!;
  try {
    while (!log.includes('tables in memory')) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 3000));
    const start = memory(pid);
    console.log(`GLIBC_TUNABLES=${process.env['GLIBC_TUNABLES'] ?? ''}`);
    console.log(`start: ${shown(start)}`);
    const next32 = xorshift32(36);
    const random = {
      below: (n: number): number => next32() % n,
      pick: <T>(items: readonly T[]): T => items[next32() % items.length]!,
    };
    const address = (): string =>
      `${1 + random.below(222)}.${random.below(256)}.${random.below(256)}.${random.below(256)}`;
    const big = Buffer.alloc(20 * MB, 0x20);
    const mix = await pool(REQUESTS, (i) => {
      const forged = { 'x-forwarded-for': `${address()}, ${address()}` };
      switch (i % 8) {
        case 0:
          return send(
            port,
            'GET',
            `/${'%ff'.repeat(random.below(300))}/..;/x?${'a=b&'.repeat(50)}`,
            forged,
            null,
          );
        case 1:
          return send(
            port,
            random.pick(['PATCH', 'DELETE', 'PROPFIND', 'PURGE']),
            '/ip/8.8.8.8',
            forged,
            null,
          );
        case 2:
          return send(
            port,
            'GET',
            `/ip/${address()}`,
            { 'x-forwarded-for': 'not-an-ip, ::ffff:zz' },
            null,
          );
        case 3:
          return send(
            port,
            'POST',
            '/batch?include=vpn',
            { ...forged, 'content-type': 'application/json' },
            JSON.stringify(Array.from({ length: 1000 }, address)),
          );
        case 4:
          return send(
            port,
            'POST',
            '/mcp',
            {
              ...forged,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            JSON.stringify(
              Array.from({ length: 100 }, (_, id) => ({
                jsonrpc: '2.0',
                id,
                method: 'tools/call',
                params: { name: 'vpn_detect', arguments: { ip: address() } },
              })),
            ),
          );
        case 5:
          return send(
            port,
            'POST',
            random.pick(['/batch', '/mcp']),
            { ...forged, 'content-type': 'application/json' },
            big.subarray(0, 1 + random.below(20 * MB)),
          );
        case 6:
          return send(
            port,
            'POST',
            random.pick(['/batch', '/mcp']),
            { ...forged, 'content-type': 'application/json' },
            '['.repeat(10_000) + ']'.repeat(10_000),
          );
        default:
          return send(port, 'GET', `/ip/${address()}/vpn`, forged, null);
      }
    });
    const afterMix = memory(pid);
    console.log(
      `after ${REQUESTS} hostile requests: ${shown(afterMix)}; statuses ${JSON.stringify([...mix].sort())}`,
    );
    const spray = await pool(SPRAY, () =>
      send(port, 'GET', '/healthz?x', { 'x-forwarded-for': address() }, null).then((status) =>
        // /healthz is not rate limited: an address is counted by a limited route
        status === 200
          ? send(port, 'GET', '/ip/8.8.8.8', { 'x-forwarded-for': address() }, null)
          : status,
      ),
    );
    const afterSpray = memory(pid);
    console.log(
      `after a spray of ${SPRAY} addresses: ${shown(afterSpray)}; statuses ${JSON.stringify([...spray].sort())}`,
    );
    await new Promise((r) => setTimeout(r, WAIT_S * 1000));
    const later = memory(pid);
    console.log(
      `${WAIT_S} s later: ${shown(later)} (${((later.rss - start.rss) / MB).toFixed(0)} MB above the start)`,
    );
    const released = log.split('\n').filter((l) => l.includes('memory given back'));
    console.log(`releases logged: ${released.length}`);
    for (const line of released) {
      const { rssMbBefore, rssMb, collections, trimmed } = JSON.parse(line) as {
        rssMbBefore: number;
        rssMb: number;
        collections: number;
        trimmed: boolean;
      };
      console.log(
        `  RSS ${rssMbBefore} → ${rssMb} MB, ${collections} collections, malloc trimmed: ${trimmed}`,
      );
    }
  } finally {
    child.kill('SIGKILL');
  }
}

await main();
