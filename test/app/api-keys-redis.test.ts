// REDIS_URL with API_KEYS_FILE: two instances on one real redis-server share a
// key's count as they share an address's, so a key gets its own limit across
// every instance, exactly, and the key itself never reaches Redis.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startRedisServer, type RedisTestServer } from '../helpers/redis-server.js';
import { startRedisInstance } from '../helpers/redis-service.js';
import { get } from '../helpers/service.js';

const KEY = 'shared-key-0123456789';
let redis: RedisTestServer;
const dir = mkdtempSync(join(tmpdir(), 'ipintel-keys-'));
before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});

// generous: a Redis call past its bound is counted in process, by design
const instance = (file: string) =>
  startRedisInstance(
    redis.url,
    { API_KEYS_FILE: file, RATE_LIMIT_MAX: '1000' },
    { timeoutMs: 5_000 },
  );

describe('two instances sharing Redis and one keys file', () => {
  it('give a key exactly its limit across both', async () => {
    const file = join(dir, 'keys.csv');
    writeFileSync(file, `name,key,limit\npartner,${KEY},25\n`);
    const a = await instance(file);
    const b = await instance(file);
    try {
      const replies = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          get((i % 2 ? a : b).service.baseUrl, '/cidr?range=10.0.0.0/8', {
            headers: { authorization: `Bearer ${KEY}` },
          }),
        ),
      );
      assert.equal(replies.filter((r) => r.status === 200).length, 25);
      assert.equal(replies.filter((r) => r.status === 429).length, 35);
      assert.ok(replies.every((r) => r.headers.get('ratelimit-limit') === '25'));
      // the address was not counted: an anonymous request still has its whole allowance
      const anonymous = await get(a.service.baseUrl, '/cidr?range=10.0.0.0/8');
      assert.equal(anonymous.headers.get('ratelimit-remaining'), '999');
      const raw = new Redis(redis.url);
      try {
        const keys = await raw.keys('*');
        const values = await Promise.all(keys.map((k) => raw.get(k).catch(() => '')));
        assert.ok(![...keys, ...values].some((t) => t?.includes(KEY)), 'the key is not in Redis');
      } finally {
        raw.disconnect();
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
