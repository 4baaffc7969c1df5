// An address spray: one client behind a trusted proxy claims a new address
// with every request (and IPv6 gives anyone many /64s). 300,000 requests from
// distinct addresses within one rate-limit window must leave the real service
// (a spawned process) answering, its resident memory at most 64 MB above
// where it started: every per-client structure is bounded (docs/operations.md,
// "Bounds"). Requests are pipelined over a few keep-alive connections, 100
// deep (deeper pipelines keep thousands of requests alive at once, which only
// measures the garbage collector), so that the test takes seconds.
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getOnce } from '../helpers/http-get.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';

const REQUESTS = 300_000;
const CONNECTIONS = 6;
const BATCH = 100;
const MB = 1024 * 1024;

/** Resident set size of a process, in bytes (Linux /proc). */
function rss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for ${pid}`);
  return Number(kb) * 1024;
}

/** The n-th distinct client: two in three IPv4, one in three a /64 of its own. */
function clientAddress(n: number): string {
  if (n % 3 === 2) return `2001:db8:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}::1`;
  return `11.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function requestText(n: number): string {
  // mostly the caller's own GeoIP record; some unknown paths (404, still counted)
  const path = n % 10 === 0 ? `/no-such-path/${n}` : '/ip';
  // the warm-up (n ≥ REQUESTS) comes from 500 clients only, each within its allowance
  const client = n < REQUESTS ? clientAddress(n) : `12.0.${(n % 500) >>> 8}.${n % 256}`;
  return `GET ${path} HTTP/1.1\r\nHost: spray.test\r\nX-Forwarded-For: ${client}\r\n\r\n`;
}

/** Sends requests [from, to) pipelined in batches on one connection; counts the statuses. */
function spray(port: number, from: number, to: number): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    const statuses = new Map<string, number>();
    const socket: Socket = connect(port, '127.0.0.1');
    let next = from;
    let awaiting = 0;
    let tail = '';
    const send = (): void => {
      const end = Math.min(to, next + BATCH);
      let text = '';
      awaiting = end - next;
      for (; next < end; next++) text += requestText(next);
      socket.write(text);
    };
    socket.setEncoding('latin1');
    socket.on('connect', send);
    socket.on('data', (chunk: string) => {
      // every answer has a body with no "HTTP/1.1 " in it: count status lines
      const text = tail + chunk;
      const re = /HTTP\/1\.1 (\d{3}) /g;
      let match: RegExpExecArray | null;
      let last = 0;
      while ((match = re.exec(text)) !== null) {
        const code = match[1] ?? '?';
        statuses.set(code, (statuses.get(code) ?? 0) + 1);
        awaiting--;
        last = re.lastIndex;
      }
      tail = text.slice(Math.max(last, text.length - 16));
      if (awaiting === 0) {
        if (next < to) send();
        else socket.end();
      }
    });
    socket.on('error', reject);
    socket.on('close', () =>
      next >= to && awaiting === 0
        ? resolve(statuses)
        : reject(new Error(`connection closed with ${awaiting} answers missing`)),
    );
  });
}

describe('address spray: bounded memory', () => {
  let service: SpawnedService;
  before(async () => {
    service = await spawnService({ TRUST_PROXY: 'true', LOG_LEVEL: 'warn' });
  });
  after(() => service.kill());

  it(`${REQUESTS} requests from distinct addresses: RSS +64 MB at most, still answering`, async () => {
    // warm-up: lazily built parts, the JIT and the young generation's working
    // size, from a few clients (so the per-client structures stay small)
    await spray(service.port, REQUESTS, REQUESTS + 25_000);
    const baseline = rss(service.pid);
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, rss(service.pid))), 100);
    const share = Math.ceil(REQUESTS / CONNECTIONS);
    let counts: Map<string, number>[];
    try {
      counts = await Promise.all(
        Array.from({ length: CONNECTIONS }, (_, c) =>
          spray(service.port, c * share, Math.min(REQUESTS, (c + 1) * share)),
        ),
      );
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, rss(service.pid));
    const total = new Map<string, number>();
    for (const map of counts) for (const [k, v] of map) total.set(k, (total.get(k) ?? 0) + v);
    // every distinct client is within its allowance: no 429, no 5xx
    assert.deepEqual(Object.fromEntries(total), { '200': REQUESTS * 0.9, '404': REQUESTS * 0.1 });
    const grown = (peak - baseline) / MB;
    assert.ok(
      grown <= 64,
      `RSS grew ${grown.toFixed(1)} MB (baseline ${(baseline / MB).toFixed(1)} MB)`,
    );
    assert.equal((await getOnce(service.port, '/ip/8.8.8.8')).status, 200);
    process.stdout.write(
      `# spray: RSS ${(baseline / MB).toFixed(1)} MB → peak ${(peak / MB).toFixed(1)} MB (+${grown.toFixed(1)})\n`,
    );
  });
});
