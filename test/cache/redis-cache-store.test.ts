// RedisCacheStore against a real redis-server: round trip and expiry, a cache
// shared by two instances, format versions, hostile keys, and a Redis that
// stops, stalls and comes back (misses within the bound, never a throw).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RedisCacheStore } from '../../src/cache/redis-cache-store.js';
import type { RedisState } from '../../src/redis/redis-link.js';
import { TestClock } from '../helpers/clock.js';
import { redisStoreFixture, type RedisStores } from '../helpers/redis-stores.js';
import { timed, until } from '../helpers/wait.js';

const TIMEOUT_MS = 100;
/**
 * scheduling slack on top of the bound when timing a call: the bound is 10×
 * the quiet figure (one command timeout), so a loaded machine's turns do not
 * fail it; what it catches, a call waiting for Redis to come back, waits until
 * the test resumes or restarts the server, far past it
 */
const SLACK_MS = 9 * TIMEOUT_MS;

const redis = redisStoreFixture(TIMEOUT_MS);

function stores(
  options: { cacheVersion?: string; onStateChange?: (state: RedisState) => void } = {},
): Promise<RedisStores> {
  return redis.open(options);
}

function redisKey(key: string, version = '1'): string {
  return `ipintel:v${version}:cache:${createHash('sha256').update(key).digest('base64url')}`;
}

describe('RedisCacheStore', () => {
  it('answers a stored value with its expiry, and Redis holds it with a PX TTL', async () => {
    const { cache } = await stores();
    const before = Date.now();
    await cache.set('geoip:1.1.1.1', '{"country":"AU"}', 60_000);
    const entry = await cache.get('geoip:1.1.1.1');
    assert.equal(entry?.value, '{"country":"AU"}');
    assert.ok(entry.expiresAt >= before + 60_000 && entry.expiresAt <= Date.now() + 60_000);
    const pttl = await redis.raw.pttl(redisKey('geoip:1.1.1.1'));
    assert.ok(pttl > 59_000 && pttl <= 60_000, `PTTL ${pttl}`);
    assert.equal(await cache.get('geoip:8.8.8.8'), undefined);
  });

  it('values round trip byte for byte, separators and all', async () => {
    const { cache } = await stores();
    const values = ['', ';', '1;2;3', 'line\nbreak\r\n', '{"a":"é💥"}', 'x'.repeat(100_000)];
    for (const [i, value] of values.entries()) await cache.set(`value:${i}`, value, 10_000);
    for (const [i, value] of values.entries()) {
      assert.equal((await cache.get(`value:${i}`))?.value, value, `value ${i}`);
    }
  });

  it('an entry expires with its TTL: Redis drops it and the store misses', async () => {
    const { cache } = await stores();
    await cache.set('short', 'v', 150);
    assert.equal((await cache.get('short'))?.value, 'v');
    await sleep(250);
    assert.equal(await cache.get('short'), undefined);
    assert.equal(await redis.raw.exists(redisKey('short')), 0);
  });

  it('an entry whose stored expiry has passed is a miss even if Redis still has it', async () => {
    const { cache } = await stores();
    await redis.raw.set(redisKey('stale'), `1;${Date.now() - 1};"old"`, 'PX', 10_000);
    assert.equal(await cache.get('stale'), undefined);
  });

  it('a non-positive lifetime stores nothing', async () => {
    const { cache } = await stores();
    for (const ttl of [0, -5, Number.NaN]) await cache.set(`ttl:${ttl}`, 'v', ttl);
    for (const ttl of [0, -5, Number.NaN]) {
      assert.equal(await redis.raw.exists(redisKey(`ttl:${ttl}`)), 0, `ttl ${ttl}`);
    }
  });

  it('size approximates the live entries this instance wrote', async () => {
    const clock = new TestClock(Date.now());
    const { cache } = await redis.open({ now: clock.now });
    await cache.set('size:a', 'v', 2_000);
    await cache.set('size:b', 'v', 60_000);
    await cache.set('size:c', 'v', 60_000);
    assert.equal(cache.size, 3);
    clock.advance(3_000);
    assert.equal(cache.size, 2);
    assert.equal(await cache.get('size:b').then((e) => e?.value), 'v');
    clock.advance(60_000);
    assert.equal(cache.size, 0);
    assert.equal(await cache.get('size:b'), undefined, 'past its stored expiry');
  });

  it('two instances on one Redis share the cache, both ways', async () => {
    // sharing, not the bound, is under test: a loaded CI host can take more
    // than TIMEOUT_MS for a command, which the store rightly counts as a miss
    const a = await redis.open({ timeoutMs: 5_000 });
    const b = await redis.open({ timeoutMs: 5_000 });
    await a.cache.set('shared:a', '"from a"', 10_000);
    await b.cache.set('shared:b', '"from b"', 10_000);
    const [fromA, fromB] = [await a.cache.get('shared:a'), await b.cache.get('shared:a')];
    assert.deepEqual(fromB, fromA);
    assert.equal((await a.cache.get('shared:b'))?.value, '"from b"');
  });

  const misses: ReadonlyArray<{ name: string; write: () => Promise<unknown> }> = [
    {
      name: 'an entry written by another format version (other key space)',
      write: async () => {
        const v2 = await stores({ cacheVersion: '2' });
        await v2.cache.set('versioned', '"v2 shape"', 10_000);
      },
    },
    {
      name: 'a value tagged with another version under this version’s key',
      write: () =>
        redis.raw.set(redisKey('versioned'), `2;${Date.now() + 10_000};"v2 shape"`, 'PX', 10_000),
    },
    {
      name: 'a value without the version tag',
      write: () => redis.raw.set(redisKey('versioned'), '"bare json"', 'PX', 10_000),
    },
    {
      name: 'a value with a malformed expiry',
      write: () => redis.raw.set(redisKey('versioned'), '1;soon;"x"', 'PX', 10_000),
    },
  ];
  for (const { name, write } of misses) {
    it(`misses on ${name}`, async () => {
      const v1 = await stores({ cacheVersion: '1' });
      await redis.raw.del(redisKey('versioned'));
      await write();
      assert.equal(await v1.cache.get('versioned'), undefined);
    });
  }

  it('rejects a format version that could not be part of a key', async () => {
    const { link } = await stores();
    for (const version of ['', 'a b', 'v1;', 'x'.repeat(33), '*']) {
      assert.throws(
        () => new RedisCacheStore(link, { version }),
        RangeError,
        JSON.stringify(version),
      );
    }
  });

  it('hostile keys are stored under hashed names only and cannot act on Redis', async () => {
    const { cache } = await stores();
    await redis.raw.flushdb();
    await redis.raw.set('sentinel', 'still here');
    const hostile = [
      'a\r\nFLUSHALL\r\n',
      '*\r\n$8\r\nFLUSHALL\r\n',
      '*',
      'ipintel:*',
      '?[a-z]*',
      'key with spaces',
      '',
      '💥\u0000nul',
      'k'.repeat(10_240),
    ];
    for (const [i, key] of hostile.entries()) await cache.set(key, `"value ${i}"`, 10_000);
    for (const [i, key] of hostile.entries()) {
      assert.equal((await cache.get(key))?.value, `"value ${i}"`, JSON.stringify(key.slice(0, 20)));
    }
    assert.equal(await redis.raw.get('sentinel'), 'still here');
    const keys = (await redis.raw.keys('ipintel:*')).sort();
    assert.equal(keys.length, hostile.length);
    for (const key of keys) assert.match(key, /^ipintel:v1:cache:[A-Za-z0-9_-]{43}$/);
  });

  it('Redis stopped: reads miss and writes are dropped at once, then it comes back', async () => {
    const changes: RedisState[] = [];
    const { cache, health } = await stores({ onStateChange: (state) => changes.push(state) });
    await cache.set('outage', '"before"', 60_000);
    await redis.server.stop();
    await until(() => health() === 'down');
    for (let i = 0; i < 5; i++) {
      const read = await timed(() => cache.get('outage'));
      assert.equal(read.result, undefined);
      assert.ok(read.ms < TIMEOUT_MS + SLACK_MS, `get took ${read.ms} ms`);
      const write = await timed(() => cache.set('outage', '"during"', 60_000));
      assert.ok(write.ms < TIMEOUT_MS + SLACK_MS, `set took ${write.ms} ms`);
    }
    await redis.server.restart();
    await until(() => health() === 'up');
    // The restarted server is empty (no persistence): a miss, then a working cache.
    assert.equal(await cache.get('outage'), undefined);
    await cache.set('outage', '"after"', 60_000);
    assert.equal((await cache.get('outage'))?.value, '"after"');
    assert.deepEqual(changes, ['up', 'down', 'up']); // one report per incident
  });

  it('Redis stalled: reads miss and writes are dropped within the bound', async () => {
    const changes: RedisState[] = [];
    const { cache, health } = await stores({ onStateChange: (state) => changes.push(state) });
    await cache.set('stall', '"before"', 60_000);
    redis.server.pause();
    try {
      const reads = await timed(() =>
        Promise.all(Array.from({ length: 20 }, () => cache.get('stall'))),
      );
      assert.ok(reads.result.every((r) => r === undefined));
      assert.ok(reads.ms < TIMEOUT_MS + SLACK_MS, `20 parallel gets took ${reads.ms} ms`);
      const write = await timed(() => cache.set('stall', '"during"', 60_000));
      assert.ok(write.ms < TIMEOUT_MS + SLACK_MS, `set took ${write.ms} ms`);
      assert.equal(health(), 'down');
    } finally {
      redis.server.resume();
    }
    await until(() => health() === 'up');
    await until(() => changes.length >= 3);
    // The SET sent during the stall reached the socket and ran on resume: a
    // timed-out write may still land, and either value is a correct one.
    assert.ok(['"before"', '"during"'].includes((await cache.get('stall'))?.value ?? ''));
    assert.deepEqual(changes, ['up', 'down', 'up']);
  });
});
