// Fixed windows per client key in memory, and the bound on how many clients
// are tracked: closed windows make room first, then the oldest window goes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_RATE_LIMIT_ENTRIES,
  MemoryRateLimitStore,
} from '../../src/ratelimit/memory-rate-limit-store.js';
import { TestClock } from '../helpers/clock.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('MemoryRateLimitStore', () => {
  it('counts within a window and starts afresh when it closes', () => {
    const clock = new TestClock(0);
    const store = new MemoryRateLimitStore(clock.now);
    assert.deepEqual(store.hit('a', Infinity, 60_000), { count: 1, resetAt: 60_000 });
    clock.advance(30_000);
    assert.deepEqual(store.hit('a', Infinity, 60_000), { count: 2, resetAt: 60_000 });
    clock.advance(29_999);
    assert.equal(store.hit('a', Infinity, 60_000).count, 3);
    clock.advance(1); // 60 000: the window is closed
    assert.deepEqual(store.hit('a', Infinity, 60_000), { count: 1, resetAt: 120_000 });
  });

  it('keys are counted apart', () => {
    const store = new MemoryRateLimitStore(new TestClock().now);
    store.hit('a', Infinity, 1_000);
    store.hit('a', Infinity, 1_000);
    assert.equal(store.hit('b', Infinity, 1_000).count, 1);
    assert.equal(store.hit('a', Infinity, 1_000).count, 3);
  });

  it('closed windows are swept, so memory follows active clients', () => {
    const clock = new TestClock(0);
    const store = new MemoryRateLimitStore(clock.now);
    for (let i = 0; i < 100; i++) store.hit(`client-${i}`, Infinity, 1_000);
    assert.equal(store.size, 100);
    clock.advance(1_000);
    store.hit('newcomer', Infinity, 1_000);
    assert.equal(store.size, 1);
  });
});

describe('MemoryRateLimitStore bound', () => {
  it(`tracks at most ${DEFAULT_RATE_LIMIT_ENTRIES} clients unless told otherwise`, () => {
    assert.equal(new MemoryRateLimitStore().maxEntries, 100_000);
    assert.equal(new MemoryRateLimitStore(Date.now, { maxEntries: 3 }).maxEntries, 3);
  });

  for (const maxEntries of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`maxEntries ${maxEntries} → RangeError`, () => {
      assert.throws(() => new MemoryRateLimitStore(Date.now, { maxEntries }), RangeError);
    });
  }

  it('a flood of new clients never holds more than maxEntries; the newest stay counted', () => {
    const store = new MemoryRateLimitStore(new TestClock(0).now, { maxEntries: 1_000 });
    for (let i = 0; i < 10_000; i++) {
      store.hit(`flood-${i}`, Infinity, 60_000);
      assert.ok(store.size <= 1_000, `size ${store.size} after ${i + 1} clients`);
    }
    assert.equal(store.size, 1_000);
    assert.equal(store.hit('flood-9999', Infinity, 60_000).count, 2);
    assert.equal(store.hit('flood-9000', Infinity, 60_000).count, 2);
  });

  it('full: a newcomer evicts the oldest window, and that client starts a fresh one', () => {
    const clock = new TestClock(0);
    const store = new MemoryRateLimitStore(clock.now, { maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) store.hit(key, Infinity, 60_000);
    clock.advance(10);
    assert.equal(store.hit('a', Infinity, 60_000).count, 2); // counting does not make a window younger
    assert.equal(store.hit('d', Infinity, 60_000).count, 1); // evicts a
    assert.equal(store.size, 3);
    assert.equal(store.hit('b', Infinity, 60_000).count, 2);
    assert.equal(store.hit('c', Infinity, 60_000).count, 2);
    // the price of the bound: a was at 2, and starts again at 1 (evicting b)
    assert.deepEqual(store.hit('a', Infinity, 60_000), { count: 1, resetAt: 60_010 });
    assert.equal(store.hit('b', Infinity, 60_000).count, 1);
  });

  it('full: closed windows make room before any open window is evicted', () => {
    const clock = new TestClock(0);
    const store = new MemoryRateLimitStore(clock.now, { maxEntries: 3 });
    store.hit('short', Infinity, 100); // closes at 100
    store.hit('b', Infinity, 60_000);
    store.hit('c', Infinity, 60_000);
    clock.advance(150); // before the periodic sweep (due after 60 s), after short closed
    assert.equal(store.hit('d', Infinity, 60_000).count, 1);
    assert.equal(store.size, 3);
    assert.equal(store.hit('b', Infinity, 60_000).count, 2, 'b kept its window');
    assert.equal(store.hit('c', Infinity, 60_000).count, 2, 'c kept its window');
  });

  it('a window that opens again goes to the back, so it is not the next to go', () => {
    const clock = new TestClock(0);
    const store = new MemoryRateLimitStore(clock.now, { maxEntries: 3 });
    store.hit('a', Infinity, 100);
    clock.advance(50);
    store.hit('b', Infinity, 60_000);
    store.hit('c', Infinity, 60_000);
    clock.advance(60); // a's window closed at 100
    assert.equal(store.hit('a', Infinity, 100).count, 1); // a new window, now the youngest
    assert.equal(store.hit('d', Infinity, 60_000).count, 1); // evicts b, not a
    assert.equal(store.hit('a', Infinity, 100).count, 2);
    assert.equal(store.hit('c', Infinity, 60_000).count, 2);
    assert.equal(store.hit('b', Infinity, 60_000).count, 1, 'b was evicted');
  });

  it('agrees with a plain model over random hits, ticks and evictions (seeded)', () => {
    const random = seededRandom();
    const seed = random.seed;
    const clock = new TestClock(0);
    const maxEntries = 8;
    const windowMs = 1_000;
    const store = new MemoryRateLimitStore(clock.now, { maxEntries });
    const model = new WindowModel(maxEntries);
    for (let step = 0; step < 20_000; step++) {
      clock.advance(random.below(120));
      const key = `k${random.below(20)}`;
      const want = model.hit(key, windowMs, clock.ms);
      const got = store.hit(key, Infinity, windowMs);
      assert.deepEqual(got, want, `TEST_SEED=${seed}, step ${step}, key ${key}`);
      assert.ok(store.size <= maxEntries, `TEST_SEED=${seed}, step ${step}: size ${store.size}`);
    }
  });
});

/**
 * The bound as stated, with no cleverness: open windows in the order they
 * opened; a new client when maxEntries are open evicts the first.
 */
class WindowModel {
  private open: { key: string; count: number; resetAt: number }[] = [];
  constructor(private readonly maxEntries: number) {}

  hit(key: string, windowMs: number, now: number): { count: number; resetAt: number } {
    this.open = this.open.filter((w) => w.resetAt > now);
    const current = this.open.find((w) => w.key === key);
    if (current !== undefined) {
      current.count++;
      return { count: current.count, resetAt: current.resetAt };
    }
    if (this.open.length >= this.maxEntries) this.open.shift();
    this.open.push({ key, count: 1, resetAt: now + windowMs });
    return { count: 1, resetAt: now + windowMs };
  }
}
