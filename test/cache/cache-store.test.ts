// MemoryCacheStore: LRU bound and per-entry expiry against an injected clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { entryCost, MemoryCacheStore } from '../../src/cache/cache-store.js';
import { TestClock } from '../helpers/clock.js';

describe('MemoryCacheStore', () => {
  it('answers a stored value with its expiry', () => {
    const clock = new TestClock(1_000);
    const store = new MemoryCacheStore(10, clock.now);
    store.set('k', 'v', 5_000);
    const stored = store.get('k');
    assert.equal(stored?.value, 'v');
    assert.equal(stored.expiresAt, 6_000);
    assert.equal(store.get('other'), undefined);
  });

  it('an entry expires exactly at its expiry time, and is dropped', () => {
    const clock = new TestClock(0);
    const store = new MemoryCacheStore(10, clock.now);
    store.set('k', 'v', 1_000);
    clock.advance(999);
    assert.equal(store.get('k')?.value, 'v');
    clock.advance(1);
    assert.equal(store.get('k'), undefined);
    assert.equal(store.size, 0);
  });

  it('evicts the least recently used entry beyond the bound', () => {
    const store = new MemoryCacheStore(3, new TestClock().now);
    store.set('a', '1', 60_000);
    store.set('b', '2', 60_000);
    store.set('c', '3', 60_000);
    assert.equal(store.get('a')?.value, '1'); // a is now the most recent
    store.set('d', '4', 60_000); // b is the oldest: evicted
    assert.equal(store.get('b'), undefined);
    assert.deepEqual(
      ['a', 'c', 'd'].map((k) => store.get(k)?.value),
      ['1', '3', '4'],
    );
    assert.equal(store.size, 3);
  });

  it('overwriting a key renews its value and lifetime', () => {
    const clock = new TestClock(0);
    const store = new MemoryCacheStore(3, clock.now);
    store.set('k', 'old', 1_000);
    clock.advance(900);
    store.set('k', 'new', 1_000);
    clock.advance(900);
    assert.equal(store.get('k')?.value, 'new');
  });

  it('a non-positive lifetime stores nothing', () => {
    const store = new MemoryCacheStore(3, new TestClock().now);
    store.set('zero', 'v', 0);
    store.set('negative', 'v', -5);
    assert.equal(store.get('zero'), undefined);
    assert.equal(store.get('negative'), undefined);
    assert.equal(store.size, 0);
  });

  it('CACHE_MAX_ENTRIES=0 disables the cache', () => {
    const store = new MemoryCacheStore(0, new TestClock().now);
    store.set('k', 'v', 1_000);
    assert.equal(store.get('k'), undefined);
    assert.equal(store.size, 0);
  });

  it('CACHE_MAX_BYTES bounds the bytes: large values evict the least recently used', () => {
    const value = 'x'.repeat(1_000);
    const cost = entryCost('k0', value);
    const store = new MemoryCacheStore(1_000, new TestClock().now, cost * 3);
    for (let i = 0; i < 10; i++) store.set(`k${i}`, value, 60_000);
    assert.equal(store.size, 3);
    assert.deepEqual(
      ['k7', 'k8', 'k9'].map((k) => store.get(k)?.value.length),
      [1_000, 1_000, 1_000],
    );
    // one value larger than the whole bound is not kept, and evicts nothing
    store.set('huge', 'y'.repeat(cost * 3), 60_000);
    assert.equal(store.get('huge'), undefined);
    assert.equal(store.size, 3);
  });
});
