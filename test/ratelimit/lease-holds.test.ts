// The primary's record of who may still sit on spare units of a key's
// allowance (src/ratelimit/lease-holds.ts), on an injected clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LeaseHolds } from '../../src/ratelimit/lease-holds.js';
import { GIVE_BACK_GRACE_LEASES } from '../../src/ratelimit/lease.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe('LeaseHolds', () => {
  it("counts other holders' open leases only, until the last one lapses", () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    holds.record('k', 'w1', 1, 1_000);
    holds.record('k', 'w1', 2, 400);
    assert.equal(holds.othersOpenFor('k', 'w1', 3), 1_000);
    assert.equal(holds.othersOpenFor('k', 'w1', 1), 400, 'its own hold is not a reason to wait');
    c.advance(500);
    assert.equal(holds.othersOpenFor('k', 'w1', 2), 500);
    assert.equal(holds.othersOpenFor('other', 'w1', 2), 0);
  });

  it('a lapsed lease not given back yet is waited for again (1 ms), for its grace only', () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    holds.record('k', 'w1', 2, 400);
    c.advance(500);
    // 2's sweep is late (a busy machine): its units may still come back
    assert.equal(holds.othersOpenFor('k', 'w1', 1), 1);
    c.advance(GIVE_BACK_GRACE_LEASES * 400 - 100 - 1);
    assert.equal(holds.othersOpenFor('k', 'w1', 1), 1, 'the last ms of the grace');
    c.advance(1);
    assert.equal(holds.othersOpenFor('k', 'w1', 1), 0, 'a holder that died never gives back');
  });

  it('a lease given back is not waited for, lapsed or not', () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    holds.record('k', 'w1', 2, 400);
    holds.record('k', 'w1', 3, 400);
    holds.release('k', 'w1', 2);
    assert.equal(holds.othersOpenFor('k', 'w1', 3), 0);
    holds.release('k', 'w0', 3); // a give-back of a closed window changes nothing
    assert.equal(holds.othersOpenFor('k', 'w1', 1), 400);
    holds.release('k', 'w1', 3);
    assert.equal(holds.size, 0, 'the key is dropped with its last hold');
  });

  it('a grant that leaves a holder nothing to spare forgets it', () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    holds.record('k', 'w1', 1, 1_000);
    holds.record('k', 'w1', 1, 0);
    assert.equal(holds.othersOpenFor('k', 'w1', 2), 0);
    assert.equal(holds.size, 0, 'the key is dropped with its last hold');
  });

  it("only the current window's holds count: units of a closed window never come back", () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    holds.record('k', 'w1', 1, 1_000);
    assert.equal(holds.othersOpenFor('k', 'w2', 2), 0);
    holds.record('k', 'w2', 2, 300);
    assert.equal(holds.othersOpenFor('k', 'w2', 3), 300, "the new window replaced w1's holds");
    assert.equal(holds.othersOpenFor('k', 'w1', 3), 0);
  });

  it('holds past their grace are dropped as time goes on, so the record stays small', () => {
    const c = clock();
    const holds = new LeaseHolds(c.now);
    for (let i = 0; i < 1_000; i++) holds.record(`k${i}`, 'w', 1, 1_000);
    assert.equal(holds.size, 1_000);
    c.advance(6_000);
    holds.record('fresh', 'w', 1, 1_000);
    assert.equal(holds.size, 1);
  });
});
