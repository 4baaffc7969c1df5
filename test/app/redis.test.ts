// REDIS_URL: two service instances on one real redis-server share one rate
// limit and one cache; with Redis stopped they keep answering, and they go
// back to Redis when it returns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { startRedisServer, type RedisTestServer } from '../helpers/redis-server.js';
import { startRedisInstance } from '../helpers/redis-service.js';
import type { RedisStoresOptions } from '../helpers/redis-stores.js';
import { dataOf, get } from '../helpers/service.js';
import { until } from '../helpers/wait.js';

let redis: RedisTestServer;
/** a lookup with an upstream, so a cached answer shows in the upstream's query log */
let dns: DnsTestServer;
before(async () => {
  redis = await startRedisServer();
  dns = await startDnsServer({
    'shared.example.test': { records: [{ type: 'A', data: '192.0.2.40', ttl: 300 }] },
  });
});
after(async () => {
  await redis.stop();
  await dns.close();
});

const instance = (env: Record<string, string>, options: RedisStoresOptions = {}) =>
  startRedisInstance(redis.url, env, options);

describe('two instances sharing one Redis', () => {
  it('enforce one limit: 100 parallel requests across both let exactly 60 through', async () => {
    // A call past the bound (100 ms by default) is counted in memory instead,
    // by design (src/ratelimit/leased-rate-limit-store.ts): under a busy test
    // run a burst of 100 would stray into that fallback and let a few more
    // through. This test is about the shared count, so the bound is generous.
    const patient = { timeoutMs: 5_000 };
    const a = await instance({ RATE_LIMIT_MAX: '60' }, patient);
    const b = await instance({ RATE_LIMIT_MAX: '60' }, patient);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          get((i % 2 ? a : b).service.baseUrl, '/cidr?range=10.0.0.0/8').then((r) => r.status),
        ),
      );
      assert.equal(statuses.filter((s) => s === 200).length, 60);
      assert.equal(statuses.filter((s) => s === 429).length, 40);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('share the cache: a miss on one is a hit on the other, with the same body', async () => {
    // the shared counter of 127.0.0.1 was spent by the test above: a larger limit here
    const env = { RATE_LIMIT_MAX: '100000', DNS_SERVERS: `127.0.0.1:${dns.port}` };
    const a = await instance(env);
    const b = await instance(env);
    try {
      const path = '/dns/shared.example.test?type=A';
      const first = await get(a.service.baseUrl, path);
      const asked = dns.queries.length;
      const second = await get(b.service.baseUrl, path);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-cache'), 'MISS');
      assert.equal(second.headers.get('x-cache'), 'HIT');
      assert.equal(second.text, first.text);
      assert.equal(dns.queries.length, asked, 'b answered without asking DNS');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keep answering while Redis is down, report it, and go back when it returns', async () => {
    const a = await instance({ RATE_LIMIT_MAX: '1000' });
    try {
      await redis.stop();
      const started = Date.now();
      const res = await get(a.service.baseUrl, '/ip/8.8.4.4');
      assert.equal(res.status, 200);
      assert.ok(Date.now() - started < 1500, 'a Redis outage costs at most the call timeout');
      assert.equal(res.headers.get('ratelimit-limit'), '1000', 'still rate limited (in process)');
      const ready = await get(a.service.baseUrl, '/readyz');
      assert.equal(ready.status, 200);
      assert.deepEqual(dataOf(ready.body)['dependencies'], { redis: 'down' });
      const metrics = await get(a.service.baseUrl, '/metrics');
      assert.match(metrics.text, /ipintel_dependency_up\{name="redis"\} 0/);
      await redis.restart();
      await until(
        async () => (await get(a.service.baseUrl, '/readyz')).text.includes('"up"'),
        8000,
      );
      const back = await get(a.service.baseUrl, '/ip/8.8.4.4');
      assert.equal(back.status, 200);
    } finally {
      await a.close();
    }
  });

  it('while Redis is down each instance still limits, on its own, without waiting for Redis', async () => {
    const a = await instance({ RATE_LIMIT_MAX: '5' });
    try {
      await redis.stop();
      await until(async () => (await get(a.service.baseUrl, '/readyz')).text.includes('"down"'));
      const started = Date.now();
      const statuses: number[] = [];
      // this instance holds no lease of the client yet: counted in its own memory
      for (let i = 0; i < 7; i++)
        statuses.push((await get(a.service.baseUrl, '/ip/8.8.8.8')).status);
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429, 429]);
      assert.ok(Date.now() - started < 1_000, 'no request waited for Redis');
    } finally {
      await redis.restart();
      await a.close();
    }
  });
});
