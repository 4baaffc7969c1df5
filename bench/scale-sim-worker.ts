// One simulated worker (under node:cluster) or instance (a forked process) of
// `npm run bench:scale`'s simulation: no HTTP, only the rate limit, as fast
// as it can — 50 hits per turn of the event loop (a loaded server's turn),
// for SIM_SECONDS after the driver says go — through the real
// LeasedRateLimitStore and the real authority of the design under test.
// It reports how many hits it made; the driver measures the authority.
import { openRedisLink } from '../src/redis/redis-link.js';
import { IpcLeaseAuthority } from '../src/ratelimit/ipc-lease-authority.js';
import type { LeaseAuthority } from '../src/ratelimit/lease.js';
import {
  LeasedRateLimitStore,
  type LeasedStoreOptions,
} from '../src/ratelimit/leased-rate-limit-store.js';
import { MemoryRateLimitStore } from '../src/ratelimit/memory-rate-limit-store.js';
import { RedisLeaseAuthority } from '../src/ratelimit/redis-lease-authority.js';
import { mulberry32 } from './paths.js';

export type Design = 'per-request' | 'per-turn' | 'lease';
export const HITS_PER_TURN = 50;
/** a limit no simulated client reaches: the cost of counting, not of refusing */
const LIMIT = 1_000_000_000;

const env = process.env;
const design = env['SIM_DESIGN'] as Design;
const seconds = Number(env['SIM_SECONDS']);
/** distinct clients hit at random; 0: every hit a client never seen (an address spray) */
const keys = Number(env['SIM_KEYS']);
const id = Number(env['SIM_ID']);

const options: LeasedStoreOptions =
  design === 'lease'
    ? { leaseMs: 1_000 }
    : { leaseMs: 0, flush: design === 'per-request' ? 'now' : 'turn' };

async function authority(): Promise<LeaseAuthority> {
  const url = env['SIM_REDIS_URL'];
  if (url === undefined) return new IpcLeaseAuthority(undefined, 10_000);
  const link = await openRedisLink(url, { timeoutMs: 10_000 });
  while (link.state !== 'up') await new Promise((r) => setTimeout(r, 10));
  return new RedisLeaseAuthority(link, Number(env['SIM_SHARE']));
}

async function run(store: LeasedRateLimitStore): Promise<number> {
  const random = mulberry32(1000 + id);
  const deadline = performance.now() + seconds * 1000;
  let hits = 0;
  let fresh = 0;
  while (performance.now() < deadline) {
    const waiting: Promise<unknown>[] = [];
    for (let i = 0; i < HITS_PER_TURN; i++) {
      const key = keys === 0 ? `${id}:${fresh++}` : `k${Math.floor(random() * keys)}`;
      const hit = store.hit(key, LIMIT, 60_000);
      if (hit instanceof Promise) waiting.push(hit);
    }
    await Promise.all(waiting);
    hits += HITS_PER_TURN;
    await new Promise((r) => setImmediate(r));
  }
  return hits;
}

async function main(): Promise<void> {
  const memory = new MemoryRateLimitStore();
  const store = new LeasedRateLimitStore(await authority(), memory, options);
  process.on('message', (message: unknown) => {
    if ((message as { type?: string }).type !== 'sim-go') return;
    void run(store).then((hits) => {
      process.send?.({ type: 'sim-result', hits, fellBack: memory.size });
      setTimeout(() => process.exit(0), 50);
    });
  });
  process.send?.({ type: 'sim-ready' });
}

void main();
