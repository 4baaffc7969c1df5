// Rate-limit windows in this process's memory: the store of a single
// instance, the cluster primary's ledger of leases, and the fallback of the
// leased stores. A client's fixed window opens with its first request
// and lasts windowMs; the count is taken in one synchronous step, so a burst
// of parallel requests lets exactly the limit through.
//
// Bounded: at most `maxEntries` windows (100 000 by default) are kept, in a
// ring in the order they opened, with their counts and closing times in typed
// arrays allocated once and a Map from client key to ring slot. So memory is
// fixed by the bound, not by traffic: an address spray (TRUST_PROXY, IPv6
// /64s) costs ~60 bytes of Map per key plus the key itself, and no object per
// client. Every hit first drops the closed windows at the front (with one
// window length, every closed window is at the front), so the store holds the
// active clients only. When it is full and a new client arrives, the oldest
// window is evicted and that client starts a fresh window with its next
// request: the limit is exact while fewer than maxEntries windows open within
// one window length; past that, the clients counted longest ago get a fresh
// allowance, never a refusal they did not earn.
import { grantSize, type LeaseGrant } from './lease.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';

export const DEFAULT_RATE_LIMIT_ENTRIES = 100_000;

export interface MemoryRateLimitStoreOptions {
  /** most clients tracked at once (default 100 000) */
  maxEntries?: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxEntries: number;
  /** key → its slot in the ring */
  private readonly slots = new Map<string, number>();
  /**
   * per slot: the key holding it, undefined when free or abandoned; grown
   * as the ring first fills (slots are taken in order from 0), not made
   * whole at construction: 100,000 holes cost ~3 ms of every start-up
   */
  private readonly keys: (string | undefined)[] = [];
  private readonly counts: Float64Array;
  private readonly resetAts: Float64Array;
  /** the oldest slot in use, and how many are in use from there */
  private head = 0;
  private used = 0;

  constructor(
    private readonly now: () => number = Date.now,
    options: MemoryRateLimitStoreOptions = {},
  ) {
    const maxEntries = options.maxEntries ?? DEFAULT_RATE_LIMIT_ENTRIES;
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
    this.counts = new Float64Array(maxEntries);
    this.resetAts = new Float64Array(maxEntries);
  }

  /** clients tracked (their windows may have closed since the last hit) */
  get size(): number {
    return this.slots.size;
  }

  /** Counts one request of `key` (the limit is the caller's to apply: every hit is counted). */
  hit(key: string, _limit: number, windowMs: number): RateLimitHit {
    const slot = this.slotOf(key, windowMs);
    return { count: ++this.counts[slot]!, resetAt: this.resetAts[slot]! };
  }

  /**
   * The cluster primary's side of a lease (src/ratelimit/lease.ts): hands out
   * up to `need` or a share of what is left of `key`'s allowance, never more
   * than `limit` in one window, in one synchronous step.
   */
  lease(key: string, limit: number, windowMs: number, need: number, share: number): LeaseGrant {
    const slot = this.slotOf(key, windowMs);
    const units = grantSize(limit, this.counts[slot]!, need, share);
    const count = (this.counts[slot]! += units);
    const resetAt = this.resetAts[slot]!;
    return { units, count, resetAt, window: String(resetAt), retryInMs: 0 };
  }

  /** Units of a lease not used: taken off the count if that window is still the key's. */
  giveBack(key: string, window: string, units: number): void {
    const slot = this.slots.get(key);
    if (slot === undefined || String(this.resetAts[slot]) !== window) return;
    this.counts[slot] = Math.max(0, this.counts[slot]! - units);
  }

  /** The key's slot, its window opened (count 0) when it had none open. */
  private slotOf(key: string, windowMs: number): number {
    const now = this.now();
    this.dropClosed(now);
    const slot = this.slots.get(key);
    if (slot !== undefined) {
      if (this.resetAts[slot]! > now) return slot;
      // closed behind a longer window still open (window lengths mixed): abandoned in place
      this.keys[slot] = undefined;
      this.slots.delete(key);
    }
    if (this.used === this.maxEntries) this.dropFront();
    const fresh = (this.head + this.used) % this.maxEntries;
    this.used++;
    this.keys[fresh] = key;
    this.counts[fresh] = 0;
    this.resetAts[fresh] = now + windowMs;
    this.slots.set(key, fresh);
    return fresh;
  }

  /** Frees the slots at the front whose window has closed (or that were abandoned). */
  private dropClosed(now: number): void {
    while (this.used > 0) {
      const key = this.keys[this.head];
      if (key !== undefined && this.resetAts[this.head]! > now) return;
      this.dropFront();
    }
  }

  /** Frees the oldest slot: a closed window, or the oldest open one when full. */
  private dropFront(): void {
    const key = this.keys[this.head];
    if (key !== undefined) {
      this.slots.delete(key);
      this.keys[this.head] = undefined;
    }
    this.head = (this.head + 1) % this.maxEntries;
    this.used--;
  }
}
