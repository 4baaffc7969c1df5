// The Redis-backed cache and rate-limit stores on one link, put together as
// src/main.ts puts them (the composition root owns that wiring; the tests of
// the stores and of REDIS_URL need the same pair against a real redis-server).
import { RedisCacheStore } from '../../src/cache/redis-cache-store.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';
import { RedisRateLimitStore } from '../../src/ratelimit/redis-rate-limit-store.js';
import {
  openRedisLink,
  type RedisLink,
  type RedisLinkOptions,
  type RedisState,
} from '../../src/redis/redis-link.js';

export interface RedisStoresOptions extends RedisLinkOptions {
  /** format version of the cached data (default '1') */
  cacheVersion?: string;
  now?: () => number;
}

export interface RedisStores {
  link: RedisLink;
  cache: RedisCacheStore;
  rateLimit: RedisRateLimitStore;
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
  const { cacheVersion = '1', now = Date.now, ...linkOptions } = options;
  const link = await openRedisLink(url, linkOptions);
  const memory = new MemoryRateLimitStore();
  try {
    return {
      link,
      cache: new RedisCacheStore(link, { version: cacheVersion, now }),
      rateLimit: new RedisRateLimitStore(link, memory, now),
      memory,
      health: () => link.state,
      close: () => link.close(),
    };
  } catch (error) {
    // a rejected option must not leave a client reconnecting in the background
    await link.close();
    throw error;
  }
}
