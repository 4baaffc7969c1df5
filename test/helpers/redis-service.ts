// A service instance on its own link to a real redis-server, as REDIS_URL
// makes one: the Redis cache and rate-limit stores, Redis in /readyz. The
// tests of several instances sharing one Redis start theirs with it.
import { openRedisStores, type RedisStoresOptions } from './redis-stores.js';
import { get, startService, type TestService } from './service.js';
import { until } from './wait.js';

export interface RedisInstance {
  service: TestService;
  /** the service, then its link */
  close(): Promise<void>;
}

/** A service on `url` with `env`, once its /readyz says Redis is up (from then on it counts in Redis). */
export async function startRedisInstance(
  url: string,
  env: Record<string, string>,
  options: RedisStoresOptions = {},
): Promise<RedisInstance> {
  const stores = await openRedisStores(url, options);
  const service = await startService({
    env,
    overrides: {
      cacheStore: stores.cache,
      rateLimitStore: stores.rateLimit,
      dependencies: () => ({ redis: stores.health() }),
    },
  });
  await until(async () => (await get(service.baseUrl, '/readyz')).text.includes('"up"'), 3000, 50);
  return {
    service,
    close: async () => {
      await service.close();
      await stores.close();
    },
  };
}
