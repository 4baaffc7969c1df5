// The Redis-backed cache and rate-limit stores on one link, put together as
// src/main.ts puts them (the composition root owns that wiring; the tests of
// the stores and of REDIS_URL need the same pair against a real redis-server).
import { after, before } from 'node:test';
import { Redis } from 'ioredis';
import { RedisCacheStore } from '../../src/cache/redis-cache-store.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';
import { LeasedRateLimitStore } from '../../src/ratelimit/leased-rate-limit-store.js';
import { RedisLeaseAuthority } from '../../src/ratelimit/redis-lease-authority.js';
import {
  openRedisLink,
  type RedisLink,
  type RedisLinkOptions,
  type RedisState,
} from '../../src/redis/redis-link.js';
import { startRedisServer, type RedisTestServer } from './redis-server.js';
import { until } from './wait.js';

export interface RedisStoresOptions extends RedisLinkOptions {
  /** format version of the cached data (default '1') */
  cacheVersion?: string;
  now?: () => number;
  /** how long a rate-limit lease is kept (default: the service's 1 000 ms) */
  leaseMs?: number;
}

export interface RedisStores {
  link: RedisLink;
  cache: RedisCacheStore;
  rateLimit: LeasedRateLimitStore;
  /** the in-process store the rate limiter falls back on */
  memory: MemoryRateLimitStore;
  health: () => RedisState;
  close: () => Promise<void>;
}

/** Both stores on a new link to `url`, connecting in the background. */
export async function openRedisStores(
  url: string,
  options: RedisStoresOptions = {},
): Promise<RedisStores> {
  const { cacheVersion = '1', now = Date.now, leaseMs, ...linkOptions } = options;
  const link = await openRedisLink(url, linkOptions);
  const memory = new MemoryRateLimitStore();
  try {
    const rateLimit = new LeasedRateLimitStore(
      new RedisLeaseAuthority(link, undefined, now),
      memory,
      {
        now,
        ...(leaseMs === undefined ? {} : { leaseMs }),
      },
    );
    return {
      link,
      cache: new RedisCacheStore(link, { version: cacheVersion, now }),
      rateLimit,
      memory,
      health: () => link.state,
      close: () => rateLimit.close().finally(() => link.close()),
    };
  } catch (error) {
    // a rejected option must not leave a client reconnecting in the background
    await link.close();
    throw error;
  }
}

export interface RedisStoreFixture {
  /** the redis-server of this test file (set in its before hook) */
  readonly server: RedisTestServer;
  /** a plain client on it, to look at and change what the stores wrote */
  readonly raw: Redis;
  /** Both stores on a new link (closed after the file), once the link is up. */
  open(options?: RedisStoresOptions): Promise<RedisStores>;
}

/**
 * A store test file's Redis: registers the before hook (a redis-server and a
 * raw client) and the after hook (every opened link, the client, the server).
 */
export function redisStoreFixture(timeoutMs: number): RedisStoreFixture {
  let server: RedisTestServer | undefined;
  let raw: Redis | undefined;
  const opened: RedisStores[] = [];
  before(async () => {
    server = await startRedisServer();
    // a const first: `raw = new Redis(…)` costs seconds of type-checking (redis-link.ts)
    const client = new Redis(server.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    raw = client;
    client.on('error', () => {});
    await client.connect();
  });
  after(async () => {
    await Promise.all(opened.map((s) => s.close()));
    raw?.disconnect();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('redisStoreFixture: used before its before hook');
    return value;
  };
  return {
    get server() {
      return started(server);
    },
    get raw() {
      return started(raw);
    },
    async open(options = {}) {
      const created = await openRedisStores(started(server).url, { timeoutMs, ...options });
      opened.push(created);
      await until(() => created.health() === 'up');
      return created;
    },
  };
}
