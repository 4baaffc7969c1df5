// Cache-aside with single-flight: concurrent identical lookups that miss share
// one computation (one upstream query), and only successes are stored.
// `lookup` stays synchronous when the store and the computation are (the
// memory store and the embedded-data lookups): on the GeoIP hot path every
// `await` is a microtask and a promise the request pays for.
import type { CacheStore, CachedValue, Envelope } from './cache-store.js';
import { after, type MaybePromise } from '../kit/maybe-promise.js';

export interface CacheResult {
  value: string;
  hit: boolean;
  /** the stored entry of a hit (or the envelope of a miss), where the app memoises the response body */
  entry?: Envelope | undefined;
  /** seconds the value stays fresh, for Cache-Control */
  maxAgeSeconds: number;
}

export interface ComputedValue {
  value: string;
  /** lifetime for this value; shorter than the endpoint's when the data says so (DNS TTLs) */
  ttlMs: number;
  /** the response built with the value, handed to the callers of this miss */
  envelope?: Envelope;
}

export class LookupCache {
  private readonly inFlight = new Map<string, Promise<CacheResult>>();

  constructor(
    private readonly store: CacheStore,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.store.size;
  }

  /**
   * The cached value, or the computed one once stored. Synchronous when the
   * store answers synchronously and `compute` returns a value; a computation
   * that returns a promise is shared by every caller until it settles.
   */
  lookup(key: string, compute: () => MaybePromise<ComputedValue>): MaybePromise<CacheResult> {
    const cached = this.store.get(key);
    if (cached instanceof Promise) {
      return cached.then((found) =>
        found === undefined ? this.miss(key, compute) : this.hit(found),
      );
    }
    return cached === undefined ? this.miss(key, compute) : this.hit(cached);
  }

  private hit(cached: CachedValue): CacheResult {
    return {
      value: cached.value,
      hit: true,
      entry: cached,
      maxAgeSeconds: Math.max(0, Math.floor((cached.expiresAt - this.now()) / 1000)),
    };
  }

  private miss(key: string, compute: () => MaybePromise<ComputedValue>): MaybePromise<CacheResult> {
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const computed = compute();
    if (!(computed instanceof Promise)) return this.store_(key, computed);
    const flight = computed
      .then((value) => this.store_(key, value))
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, flight);
    return flight;
  }

  private store_(
    key: string,
    { value, ttlMs, envelope }: ComputedValue,
  ): MaybePromise<CacheResult> {
    const result: CacheResult = {
      value,
      hit: false,
      entry: envelope,
      maxAgeSeconds: Math.floor(ttlMs / 1000),
    };
    return after(this.store.set(key, value, ttlMs, envelope?.data), () => result);
  }
}
