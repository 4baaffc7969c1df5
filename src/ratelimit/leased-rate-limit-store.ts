// The holder's side of leases (src/ratelimit/lease.ts): a cluster worker, or
// an instance sharing Redis. A request of a key this process holds a lease
// of is counted from memory, synchronously; the others wait for the
// authority, which is asked once per turn of the event loop for every key
// that needs units (one IPC message, or one Redis script call), so a burst of
// new clients costs one round trip, not one per request.
//
// A lease lives RATE_LIMIT_LEASE_MS (or until its window closes); a sweep
// every quarter of that gives back the units lapsed leases did not use, in
// one call (a lease granted with spare units goes back even empty, so the
// authority stops waiting for it). When the authority falls short while
// other holders may still give spare units back, the requests left over wait
// and ask again, for MAX_WAIT_LEASES lease times at most (lease.ts: exactly
// the limit); the answer after that is final. A refusal is kept as long as a
// lease, so a client over its limit costs the authority one call per
// RATE_LIMIT_LEASE_MS, not one per request.
//
// When the authority does not answer (IPC timeout, Redis down or slow), the
// waiting requests are counted in this process's memory store instead: the
// documented degraded mode. Units leased before keep being used until they
// expire; units given back into a failed call are lost for that window,
// which errs on the side of limiting.
import {
  DEFAULT_LEASE_MS,
  MAX_WAIT_LEASES,
  sweepEveryMs,
  type LeaseAsk,
  type LeaseAuthority,
  type LeaseGrant,
} from './lease.js';
import type { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';

export interface LeasedStoreOptions {
  /** how long a lease (or a refusal) is kept, ms (default 1 000; 0: no lease is kept) */
  leaseMs?: number;
  /** most leases held at once; past it the oldest is given back (default 100 000) */
  maxLeases?: number;
  /** 'turn' (default): one call per event-loop turn; 'now': one call per new ask (for the benchmark) */
  flush?: 'turn' | 'now';
  now?: () => number;
}

interface Lease {
  limit: number;
  units: number;
  /** the count of the last unit used */
  position: number;
  resetAt: number;
  window: string;
  expiresAt: number;
  /** when the lease lapses (grant order: the sweep stops at the first not lapsed) */
  lapseAt: number;
  /** the authority had fewer units than asked: the rest of the window is refused */
  spent: boolean;
  /** granted with units to spare: the authority waits for it to be given back */
  spare: boolean;
}

interface Wanted {
  limit: number;
  windowMs: number;
  waiters: ((hit: RateLimitHit) => void)[];
  /** units asked for in the call in flight (0: none in flight) */
  asked: number;
  /** the waiters wait for other holders' leases to lapse until then (0: not waiting) */
  retryAt: number;
  /** when the waiters stop waiting for others (0: not yet waited); a shortfall is final then */
  waitUntil: number;
}

/** After the other holders' leases lapse: their next sweep, and the give-back's trip. */
const GIVE_BACK_MARGIN_MS = 20;

export class LeasedRateLimitStore implements RateLimitStore {
  private readonly leases = new Map<string, Lease>();
  private readonly wanted = new Map<string, Wanted>();
  private giveBacks: LeaseAsk[] = [];
  private scheduled = false;
  private readonly sweeper: NodeJS.Timeout;
  private readonly retries = new Set<NodeJS.Timeout>();
  private readonly leaseMs: number;
  private readonly sweepMs: number;
  private readonly maxLeases: number;
  private readonly flushNow: boolean;
  private readonly now: () => number;

  constructor(
    private readonly authority: LeaseAuthority,
    private readonly fallback: MemoryRateLimitStore,
    options: LeasedStoreOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.maxLeases = options.maxLeases ?? 100_000;
    this.flushNow = options.flush === 'now';
    this.now = options.now ?? Date.now;
    this.sweepMs = sweepEveryMs(this.leaseMs);
    this.sweeper = setInterval(() => this.sweep(), this.sweepMs).unref();
  }

  /** leases held (for tests and diagnostics) */
  get held(): number {
    return this.leases.size;
  }

  hit(key: string, limit: number, windowMs: number): RateLimitHit | Promise<RateLimitHit> {
    const lease = this.leases.get(key);
    if (lease !== undefined && lease.limit === limit && this.now() < lease.expiresAt) {
      if (lease.units > 0) {
        lease.units--;
        return { count: ++lease.position, resetAt: lease.resetAt };
      }
      if (lease.spent) return { count: limit + 1, resetAt: lease.resetAt };
    }
    if (!this.authority.available()) return this.fallback.hit(key, limit, windowMs);
    return new Promise((resolve) => this.want(key, limit, windowMs, resolve));
  }

  /** Stops the sweep and gives back every unused unit (at shutdown). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const timer of this.retries) clearTimeout(timer);
    this.retries.clear();
    for (const [key, wanted] of this.wanted) {
      if (wanted.retryAt === 0) continue;
      this.wanted.delete(key);
      for (const resolve of wanted.waiters)
        resolve(this.fallback.hit(key, wanted.limit, wanted.windowMs));
    }
    for (const [key, lease] of this.leases) this.giveBack(key, lease);
    this.leases.clear();
    const asks = this.giveBacks;
    this.giveBacks = [];
    if (asks.length > 0 && this.authority.available())
      await this.authority.take(asks).catch(() => []);
  }

  private want(key: string, limit: number, windowMs: number, resolve: (hit: RateLimitHit) => void) {
    let wanted = this.wanted.get(key);
    if (wanted === undefined) {
      wanted = { limit, windowMs, waiters: [], asked: 0, retryAt: 0, waitUntil: 0 };
      this.wanted.set(key, wanted);
    }
    wanted.limit = limit;
    wanted.windowMs = windowMs;
    wanted.waiters.push(resolve);
    if (wanted.asked === 0 && wanted.retryAt === 0) {
      if (this.flushNow) this.flush();
      else this.schedule();
    }
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** One call for every key waiting (and the give-backs due). */
  private flush(): void {
    this.scheduled = false;
    const asks = this.giveBacks;
    this.giveBacks = [];
    for (const [key, wanted] of this.wanted) {
      if (wanted.asked > 0 || wanted.retryAt > 0 || wanted.waiters.length === 0) continue;
      const old = this.leases.get(key);
      this.leases.delete(key);
      wanted.asked = wanted.waiters.length;
      asks.push({
        key,
        limit: wanted.limit,
        windowMs: wanted.windowMs,
        need: wanted.asked,
        returned: old !== undefined && this.now() < old.resetAt ? old.units : 0,
        window: old?.window ?? '',
        holdMs: this.leaseMs,
      });
    }
    if (asks.length === 0) return;
    this.authority.take(asks).then(
      (grants) => asks.forEach((ask, i) => this.granted(ask, grants[i] ?? null)),
      () => asks.forEach((ask) => this.counted(ask)),
    );
  }

  /** A grant: the waiters of its key use it, then the lease stays for the next requests. */
  private granted(ask: LeaseAsk, grant: LeaseGrant | null): void {
    if (ask.need === 0) return;
    if (grant === null) return this.counted(ask);
    const wanted = this.wanted.get(ask.key);
    if (wanted === undefined) return;
    const now = this.now();
    const short = grant.units < ask.need;
    const wait = short && grant.retryInMs > 0 && (wanted.waitUntil === 0 || now < wanted.waitUntil);
    const lease: Lease = {
      limit: ask.limit,
      units: grant.units,
      position: grant.count - grant.units,
      resetAt: grant.resetAt,
      window: grant.window,
      expiresAt: Math.min(now + this.leaseMs, grant.resetAt),
      lapseAt: now + this.leaseMs,
      // waiting for other holders' units: not refused yet
      spent: short && !wait,
      spare: grant.units > ask.need,
    };
    this.hold(ask.key, lease);
    if (wait) this.waitForOthers(ask.key, wanted, grant.retryInMs);
    const { waiters } = wanted;
    let served = 0;
    for (; served < waiters.length && (lease.units > 0 || lease.spent); served++) {
      const hit =
        lease.units > 0
          ? (lease.units--, { count: ++lease.position, resetAt: lease.resetAt })
          : { count: ask.limit + 1, resetAt: lease.resetAt };
      waiters[served]!(hit);
    }
    waiters.splice(0, served);
    wanted.asked = 0;
    // requests that came while the call was in flight and found no unit ask again
    if (waiters.length === 0) this.wanted.delete(ask.key);
    else if (wanted.retryAt === 0) this.schedule();
  }

  /**
   * The authority fell short while other holders may give spare units back
   * in `retryInMs`: the waiters left ask again after that, their holders'
   * sweep and the give-back's trip; for MAX_WAIT_LEASES lease times at most,
   * whatever the shared store says (a stale or hostile hold cannot hang them).
   */
  private waitForOthers(key: string, wanted: Wanted, retryInMs: number): void {
    const now = this.now();
    const margin = this.sweepMs + GIVE_BACK_MARGIN_MS;
    if (wanted.waitUntil === 0) wanted.waitUntil = now + MAX_WAIT_LEASES * this.leaseMs + margin;
    wanted.retryAt = Math.min(now + Math.min(retryInMs, this.leaseMs) + margin, wanted.waitUntil);
    // not unref'd: requests wait on it, and it is bounded
    const timer = setTimeout(() => {
      this.retries.delete(timer);
      wanted.retryAt = 0;
      if (this.wanted.get(key) === wanted && wanted.waiters.length > 0) this.schedule();
    }, wanted.retryAt - now);
    this.retries.add(timer);
  }

  /** The authority did not answer: the key's waiting requests are counted in process. */
  private counted(ask: LeaseAsk): void {
    if (ask.need === 0) return;
    const wanted = this.wanted.get(ask.key);
    if (wanted === undefined) return;
    this.wanted.delete(ask.key);
    for (const resolve of wanted.waiters) {
      resolve(this.fallback.hit(ask.key, wanted.limit, wanted.windowMs));
    }
  }

  private hold(key: string, lease: Lease): void {
    // to the end of the order: the sweep relies on leases lapsing in map order
    this.leases.delete(key);
    this.leases.set(key, lease);
    if (this.leases.size <= this.maxLeases) return;
    const [oldestKey, oldest] = this.leases.entries().next().value as [string, Lease];
    this.leases.delete(oldestKey);
    this.giveBack(oldestKey, oldest);
    this.schedule();
  }

  /** Expired leases go, their unused units back to the authority with the next call. */
  private sweep(): void {
    const now = this.now();
    // leases are held in the order they were granted, so in the order they lapse
    for (const [key, lease] of this.leases) {
      if (now < lease.lapseAt) break;
      this.leases.delete(key);
      if (now < lease.resetAt) this.giveBack(key, lease);
    }
    if (this.giveBacks.length > 0) this.schedule();
  }

  private giveBack(key: string, lease: Lease): void {
    // a lease granted with spare units goes back even empty: the authority stops waiting for it
    if (lease.units === 0 && !lease.spare) return;
    this.giveBacks.push({
      key,
      limit: lease.limit,
      windowMs: 0,
      need: 0,
      returned: lease.units,
      window: lease.window,
      holdMs: 0,
    });
  }
}
