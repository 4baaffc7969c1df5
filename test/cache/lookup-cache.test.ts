// LookupCache: cache-aside with single flight; only successes are stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import {
  MemoryCacheStore,
  type CacheStore,
  type CachedValue,
} from '../../src/cache/cache-store.js';
import { LookupCache } from '../../src/cache/lookup-cache.js';
import { TestClock } from '../helpers/clock.js';

function cache(clock = new TestClock()): LookupCache {
  return new LookupCache(new MemoryCacheStore(100, clock.now), clock.now);
}

describe('LookupCache', () => {
  it('10 concurrent identical misses run the computation once and share its value', async () => {
    const c = cache();
    let runs = 0;
    const compute = async () => {
      runs++;
      await tick();
      return { value: '"v"', ttlMs: 60_000 };
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => Promise.resolve(c.lookup('k', compute))),
    );
    assert.equal(runs, 1);
    assert.ok(results.every((r) => r.value === '"v"' && !r.hit));
    assert.equal((await c.lookup('k', compute)).hit, true);
    assert.equal(runs, 1);
  });

  it('different keys compute separately', async () => {
    const c = cache();
    const seen: string[] = [];
    await Promise.all(
      ['a', 'b', 'a'].map((key) =>
        Promise.resolve(
          c.lookup(key, async () => {
            seen.push(key);
            await tick();
            return { value: key, ttlMs: 1_000 };
          }),
        ),
      ),
    );
    assert.deepEqual(seen.sort(), ['a', 'b']);
  });

  it('a failure reaches every waiter and is not cached: the next call computes again', async () => {
    const c = cache();
    let runs = 0;
    const failing = async () => {
      runs++;
      await tick();
      throw new Error('upstream down');
    };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => Promise.resolve(c.lookup('k', failing))),
    );
    assert.equal(runs, 1);
    assert.ok(outcomes.every((o) => o.status === 'rejected'));
    assert.equal(c.size, 0);
    const ok = await c.lookup('k', () => {
      runs++;
      return Promise.resolve({ value: 'later', ttlMs: 1_000 });
    });
    assert.equal(ok.value, 'later');
    assert.equal(ok.hit, false);
    assert.equal(runs, 2);
  });

  it('max-age is the full lifetime on a miss and what remains on a hit', async () => {
    const clock = new TestClock(0);
    const c = cache(clock);
    const compute = () => Promise.resolve({ value: 'x', ttlMs: 86_400_000 });
    assert.equal((await c.lookup('k', compute)).maxAgeSeconds, 86_400);
    clock.advance(1_500);
    const hit = await c.lookup('k', compute);
    assert.equal(hit.hit, true);
    assert.equal(hit.maxAgeSeconds, 86_398);
  });

  it('an expired entry is computed again', async () => {
    const clock = new TestClock(0);
    const c = cache(clock);
    let runs = 0;
    const compute = () => Promise.resolve({ value: String(++runs), ttlMs: 1_000 });
    await c.lookup('k', compute);
    clock.advance(1_000);
    const again = await c.lookup('k', compute);
    assert.deepEqual([again.value, again.hit], ['2', false]);
  });

  it('lookup is synchronous with a synchronous store and computation, a promise otherwise', async () => {
    const c = cache();
    const miss = c.lookup('k', () => ({ value: 'v', ttlMs: 1_000 }));
    assert.ok(!(miss instanceof Promise));
    assert.deepEqual([miss.value, miss.hit], ['v', false]);
    const hit = c.lookup('k', () => assert.fail('cached'));
    assert.ok(!(hit instanceof Promise));
    assert.deepEqual([hit.value, hit.hit], ['v', true]);
    const later = c.lookup('other', () => Promise.resolve({ value: 'w', ttlMs: 1_000 }));
    assert.ok(later instanceof Promise);
    assert.equal((await later).value, 'w');

    const entries = new Map<string, CachedValue>();
    const asyncStore: CacheStore = {
      get: (key) => Promise.resolve(entries.get(key)),
      set: (key, value, ttlMs) => {
        entries.set(key, { value, expiresAt: Date.now() + ttlMs });
        return Promise.resolve();
      },
      size: 0,
    };
    const remote = new LookupCache(asyncStore);
    const stored = remote.lookup('k', () => ({ value: 'v', ttlMs: 60_000 }));
    assert.ok(stored instanceof Promise);
    assert.equal((await stored).hit, false);
    const remoteHit = remote.lookup('k', () => assert.fail('cached'));
    assert.ok(remoteHit instanceof Promise);
    assert.equal((await remoteHit).hit, true);
  });
});
