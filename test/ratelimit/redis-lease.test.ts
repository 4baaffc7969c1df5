// LeasedRateLimitStore over RedisLeaseAuthority against a real redis-server:
// the memory store's fixed window, one exact limit across two instances
// (leases never hand out more than the limit; unused units come back),
// hashed keys, one call per turn, and a Redis that stops, stalls and comes
// back (the in-process store counts meanwhile).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { decide } from '../../src/http/rate-limit.js';
import type { RateLimitHit } from '../../src/ratelimit/rate-limit-store.js';
import type { RedisState } from '../../src/redis/redis-link.js';
import { MAX_WAIT_LEASES } from '../../src/ratelimit/lease.js';
import { openRedisStores, redisStoreFixture, type RedisStores } from '../helpers/redis-stores.js';
import { timed, until } from '../helpers/wait.js';

const TIMEOUT_MS = 100;
// what a loaded machine may add to a bounded wait (the bound is what is tested, not the
// speed): 10× the quiet figure of one command timeout, as test/cache/redis-cache-store.test.ts
const SLACK_MS = 9 * TIMEOUT_MS;
const LIMIT = 60;

const redis = redisStoreFixture(TIMEOUT_MS);

/** Script calls (EVALSHA and EVAL) redis-server has run so far. */
async function scriptCalls(): Promise<number> {
  const info = await redis.raw.info('commandstats');
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)) {
    calls += Number(match[1]);
  }
  return calls;
}

function instance(onStateChange?: (state: RedisState) => void): Promise<RedisStores> {
  return redis.open(onStateChange === undefined ? {} : { onStateChange });
}

describe('leases in Redis', () => {
  it('opens a window with the first hit and counts within it without extending it', async () => {
    const { rateLimit, memory } = await instance();
    const before = Date.now();
    const hits: RateLimitHit[] = [];
    for (let i = 0; i < 5; i++) hits.push(await rateLimit.hit('198.51.100.1', LIMIT, 60_000));
    assert.deepEqual(
      hits.map((h) => h.count),
      [1, 2, 3, 4, 5],
    );
    const first = hits[0]?.resetAt ?? 0;
    assert.ok(first >= before + 60_000 && first <= Date.now() + 60_000);
    // Every hit reports the same window end (give or take the clock's ms).
    for (const hit of hits) assert.ok(Math.abs(hit.resetAt - first) <= 20, `${hit.resetAt}`);
    assert.equal(memory.size, 0, 'the in-process store was not used');
  });

  it('counts clients separately', async () => {
    const { rateLimit } = await instance();
    const clients = ['203.0.113.1', '203.0.113.2', '2001:db8:1:2::/64'];
    for (const client of clients) await rateLimit.hit(client, LIMIT, 60_000);
    for (const client of clients)
      assert.equal((await rateLimit.hit(client, LIMIT, 60_000)).count, 2);
  });

  it('a new window opens once windowMs has passed', async () => {
    const { rateLimit } = await instance();
    for (let i = 0; i < 3; i++) await rateLimit.hit('window', LIMIT, 200);
    assert.equal((await rateLimit.hit('window', LIMIT, 200)).count, 4);
    await sleep(250);
    const fresh = await rateLimit.hit('window', LIMIT, 200);
    assert.equal(fresh.count, 1);
    assert.ok(fresh.resetAt > Date.now() + 150);
  });

  it(`two instances on one Redis enforce one limit exactly: 100 parallel hits → ${LIMIT} pass`, async () => {
    const a = await instance();
    const b = await instance();
    const now = Date.now();
    const hits = await Promise.all(
      Array.from({ length: 100 }, async (_, i) =>
        (i % 2 === 0 ? a : b).rateLimit.hit('burst', LIMIT, 60_000),
      ),
    );
    const allowed = hits.filter((h) => decide(h, LIMIT, now).allowed);
    assert.equal(allowed.length, LIMIT);
    // each allowed hit has its own place in the allowance
    assert.deepEqual(
      allowed.map((h) => h.count).sort((x, y) => x - y),
      Array.from({ length: LIMIT }, (_, i) => i + 1),
    );
    assert.equal(a.memory.size + b.memory.size, 0, 'no hit fell back');
  });

  it('a lease answers the next hits from memory, without a Redis call', async () => {
    const { rateLimit } = await instance();
    const first = await rateLimit.hit('leased', 1_000_000, 60_000);
    const calls = await scriptCalls();
    const next = rateLimit.hit('leased', 1_000_000, 60_000);
    assert.ok(!(next instanceof Promise), 'answered synchronously');
    assert.equal(next.count, first.count + 1);
    for (let i = 0; i < 1_000; i++) {
      assert.ok(!(rateLimit.hit('leased', 1_000_000, 60_000) instanceof Promise));
    }
    assert.equal(await scriptCalls(), calls);
  });

  it('one script call per turn for every key that needs units', async () => {
    const { rateLimit } = await instance();
    const before = await scriptCalls();
    const hits = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => rateLimit.hit(`turn-${i}`, LIMIT, 60_000)),
    );
    assert.ok(hits.every((h) => h.count === 1));
    // one EVALSHA (and an EVAL when Redis did not know the script yet)
    assert.ok((await scriptCalls()) - before <= 2, `${(await scriptCalls()) - before} calls`);
  });

  it('a refusal waits once for the spare units another instance holds: the allowance is used exactly', async () => {
    // leases of a second: one wait is a second, a wait per request 24 s, and
    // "at once" (a millisecond or two) has a second's room on a loaded machine
    const leaseMs = 1_000;
    const a = await redis.open({ leaseMs });
    const b = await redis.open({ leaseMs });
    const big = 200; // ≥ 8²: the first grant is a share (25), not just the need
    const now = Date.now();
    // a takes a share and goes quiet, 24 units to spare; b spends the rest
    assert.equal((await a.rateLimit.hit('strand', big, 60_000)).count, 1);
    let passed = 1;
    const started = performance.now();
    for (let i = 0; i < big; i++) {
      if (decide(await b.rateLimit.hit('strand', big, 60_000), big, now).allowed) passed++;
    }
    const waited = performance.now() - started;
    // b's first shortfall waited for a's lease to lapse and its units to come back
    assert.equal(passed, big, 'every unit answered, none left stranded with a');
    assert.ok(waited >= leaseMs, `b asked again after a's lease lapsed (${waited} ms)`);
    assert.ok(waited < 10 * leaseMs, `b waited once, not per request (${waited} ms)`);
    // the next shortfall is final: refused at once
    const refusedAt = performance.now();
    assert.equal(decide(await b.rateLimit.hit('strand', big, 60_000), big, now).allowed, false);
    assert.ok(performance.now() - refusedAt < leaseMs, 'no second wait: nobody holds spare units');
  });

  it('a wait for spare units is bounded by a few lease times, whatever the window says', async () => {
    const b = await redis.open({ leaseMs: 100 });
    await redis.raw.flushdb();
    const limit = 10;
    const now = Date.now();
    assert.equal((await b.rateLimit.hit('bounded', limit, 60_000)).count, 1);
    // a hold of another instance far in the future (a stale or hostile field)
    const [key] = await redis.raw.keys('ipintel:v2:ratelimit:*');
    assert.ok(key !== undefined);
    const [seconds] = await redis.raw.time();
    await redis.raw.hset(key, 'h:elsewhere', Number(seconds) * 1000 + 600_000);
    for (let i = 1; i < limit; i++) await b.rateLimit.hit('bounded', limit, 60_000);
    const started = performance.now();
    assert.equal(
      decide(await b.rateLimit.hit('bounded', limit, 60_000), limit, now).allowed,
      false,
    );
    const waited = performance.now() - started;
    assert.ok(waited >= 100, `the hold was seen: one wait (${waited} ms)`);
    // quiet: a few leases (a few hundred ms); unbounded, it would wait out the
    // hold, ten minutes: 10 s tells the two apart with room for a loaded machine
    assert.ok(
      waited < 10_000,
      `waited ${waited} ms, at most ${MAX_WAIT_LEASES} leases and a sweep`,
    );
  });

  it('a lease past its lapse not given back yet is waited for: its units still reach the burst', async () => {
    const b = await redis.open({ leaseMs: 100 });
    await redis.raw.flushdb();
    const limit = 10;
    for (let i = 1; i <= 5; i++) await b.rateLimit.hit('late', limit, 60_000);
    // another instance holds the other 5; its lease lapsed just now, its sweep is late
    const [key] = await redis.raw.keys('ipintel:v2:ratelimit:*');
    assert.ok(key !== undefined);
    const [seconds, micros] = await redis.raw.time();
    await redis.raw.hincrby(key, 'g', 5);
    await redis.raw.hset(key, 'h:late', Number(seconds) * 1000 + Number(micros) / 1000 - 10);
    const waiting = b.rateLimit.hit('late', limit, 60_000);
    await sleep(80);
    // the late give-back, as the script takes it
    await redis.raw.hincrby(key, 'g', -5);
    await redis.raw.hdel(key, 'h:late');
    const hit = await waiting;
    assert.equal(decide(hit, limit, Date.now()).allowed, true, `count ${hit.count}`);
  });

  it('a script error (a key of the wrong type in a shared Redis) counts the hit in process, never fails it', async () => {
    const b = await redis.open();
    await redis.raw.flushdb();
    assert.equal((await b.rateLimit.hit('typed', LIMIT, 60_000)).count, 1);
    const [key] = await redis.raw.keys('ipintel:v2:ratelimit:*');
    assert.ok(key !== undefined);
    // another program overwrites the window with a string: HGET fails in the script
    await redis.raw.del(key);
    await redis.raw.set(key, 'not a hash', 'PX', 60_000);
    const other = await redis.open();
    const hit = await other.rateLimit.hit('typed', LIMIT, 60_000);
    assert.equal(hit.count, 1, 'counted by the fallback');
    assert.equal(other.memory.size, 1, 'the in-process store holds the client');
  });

  it('counters live under hashed keys with the window as TTL', async () => {
    const { rateLimit } = await instance();
    await redis.raw.flushdb();
    const hostile = ['*', 'a\r\nFLUSHALL\r\n', 'with spaces', 'x'.repeat(10_240)];
    await redis.raw.set('sentinel', 'still here');
    for (const key of hostile) await rateLimit.hit(key, LIMIT, 30_000);
    for (const key of hostile) assert.equal((await rateLimit.hit(key, LIMIT, 30_000)).count, 2);
    for (const key of await redis.raw.keys('ipintel:*')) {
      // 60 is below 8² left: each hit was granted exactly what it needed
      assert.equal(await redis.raw.hget(key, 'g'), '2');
    }
    assert.equal(await redis.raw.get('sentinel'), 'still here');
    const keys = await redis.raw.keys('ipintel:*');
    assert.equal(keys.length, hostile.length);
    for (const key of keys) {
      assert.match(key, /^ipintel:v2:ratelimit:[A-Za-z0-9_-]{43}$/);
      const pttl = await redis.raw.pttl(key);
      assert.ok(pttl > 29_000 && pttl <= 30_000, `PTTL ${pttl}`);
    }
  });

  it('a counter left without a TTL gets the window again instead of limiting forever', async () => {
    const { rateLimit } = await redis.open({ leaseMs: 0 });
    await redis.raw.flushdb();
    await rateLimit.hit('persisted', LIMIT, 30_000);
    const [key, ...others] = await redis.raw.keys('ipintel:v2:ratelimit:*');
    assert.ok(key !== undefined && others.length === 0);
    await redis.raw.persist(key);
    const hit = await rateLimit.hit('persisted', LIMIT, 30_000);
    assert.equal(hit.count, 1, 'a fresh window');
    assert.ok((await redis.raw.pttl(key)) > 29_000);
  });

  it('Redis unreachable from the start: down is reported once, hits and reads fall back', async () => {
    const changes: Array<[RedisState, string | undefined]> = [];
    // Port 1 on loopback: nothing listens there, every connection is refused.
    const stores = await openRedisStores('redis://127.0.0.1:1', {
      timeoutMs: TIMEOUT_MS,
      onStateChange: (state, error) => changes.push([state, error?.message]),
    });
    try {
      await sleep(400); // several reconnect attempts
      assert.equal(stores.health(), 'down');
      assert.equal(changes.length, 1);
      assert.equal(changes[0]?.[0], 'down');
      assert.match(changes[0]?.[1] ?? '', /ECONNREFUSED/);
      const { result, ms } = await timed(async () => stores.rateLimit.hit('nobody', LIMIT, 60_000));
      assert.equal(result.count, 1);
      assert.ok(ms < SLACK_MS, `hit took ${ms} ms`);
      assert.equal(await stores.cache.get('anything'), undefined);
      await stores.cache.set('anything', 'v', 1_000);
    } finally {
      await stores.close();
    }
    assert.equal(changes.length, 1, 'closing is not an incident');
  });

  it('Redis stopped: hits fall back to the in-process store at once, then go back to Redis', async () => {
    const changes: RedisState[] = [];
    const { rateLimit, memory, health } = await instance((state) => changes.push(state));
    assert.equal((await rateLimit.hit('before', LIMIT, 60_000)).count, 1);
    await redis.server.stop();
    await until(() => health() === 'down');
    for (let i = 1; i <= 5; i++) {
      const { result, ms } = await timed(async () => rateLimit.hit('outage', LIMIT, 60_000));
      assert.equal(result.count, i, 'counted in process');
      assert.ok(ms < TIMEOUT_MS + SLACK_MS, `hit took ${ms} ms`);
    }
    assert.equal(memory.size, 1);
    await redis.server.restart();
    await until(() => health() === 'up');
    // The restarted server is empty and has no scripts loaded: EVALSHA falls
    // back to EVAL and the count starts again in Redis, not in process.
    await until(async () => (await rateLimit.hit('outage', LIMIT, 60_000)).count === 1, 3_000);
    assert.equal((await rateLimit.hit('outage', LIMIT, 60_000)).count, 2);
    assert.equal((await redis.raw.keys('ipintel:v2:ratelimit:*')).length, 1);
    assert.deepEqual(changes, ['up', 'down', 'up']);
  });

  it('Redis stalled: hits fall back within the bound and the service keeps limiting', async () => {
    const { rateLimit, memory, health } = await instance();
    redis.server.pause();
    try {
      const { result, ms } = await timed(() =>
        Promise.all(Array.from({ length: 70 }, async () => rateLimit.hit('stall', LIMIT, 60_000))),
      );
      assert.ok(ms < TIMEOUT_MS + SLACK_MS, `70 parallel hits took ${ms} ms`);
      assert.equal(result.filter((h) => h.count <= LIMIT).length, LIMIT);
      assert.equal(memory.size, 1);
      assert.equal(health(), 'down');
    } finally {
      redis.server.resume();
    }
    await until(() => health() === 'up');
    const after = await rateLimit.hit('stall-after', LIMIT, 60_000);
    assert.equal(after.count, 1);
    assert.equal(memory.size, 1, 'back on Redis');
  });
});
