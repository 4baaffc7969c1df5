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
      Array.from({ length: 10 }, () => c.getOrCompute('k', compute)),
    );
    assert.equal(runs, 1);
    assert.ok(results.every((r) => r.value === '"v"' && !r.hit));
    assert.equal((await c.getOrCompute('k', compute)).hit, true);
    assert.equal(runs, 1);
  });

  it('different keys compute separately', async () => {
    const c = cache();
    const seen: string[] = [];
    await Promise.all(
      ['a', 'b', 'a'].map((key) =>
        c.getOrCompute(key, async () => {
          seen.push(key);
          await tick();
          return { value: key, ttlMs: 1_000 };
        }),
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
      Array.from({ length: 5 }, () => c.getOrCompute('k', failing)),
    );
    assert.equal(runs, 1);
    assert.ok(outcomes.every((o) => o.status === 'rejected'));
    assert.equal(c.size, 0);
    const ok = await c.getOrCompute('k', () => {
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
    assert.equal((await c.getOrCompute('k', compute)).maxAgeSeconds, 86_400);
    clock.advance(1_500);
    const hit = await c.getOrCompute('k', compute);
    assert.equal(hit.hit, true);
    assert.equal(hit.maxAgeSeconds, 86_398);
    assert.equal(c.peek('k')?.maxAgeSeconds, 86_398);
  });

  it('an expired entry is computed again', async () => {
    const clock = new TestClock(0);
    const c = cache(clock);
    let runs = 0;
    const compute = () => Promise.resolve({ value: String(++runs), ttlMs: 1_000 });
    await c.getOrCompute('k', compute);
    clock.advance(1_000);
    assert.equal(c.peek('k'), undefined);
    const again = await c.getOrCompute('k', compute);
    assert.deepEqual([again.value, again.hit], ['2', false]);
  });

  it('peek answers synchronously from a synchronous store and never from an async one', async () => {
    const c = cache();
    assert.equal(c.peek('k'), undefined);
    await c.getOrCompute('k', () => Promise.resolve({ value: 'v', ttlMs: 1_000 }));
    assert.equal(c.peek('k')?.value, 'v');

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
    await remote.getOrCompute('k', () => Promise.resolve({ value: 'v', ttlMs: 60_000 }));
    assert.equal(remote.peek('k'), undefined);
    assert.equal((await remote.getOrCompute('k', () => assert.fail('cached'))).hit, true);
  });
});
