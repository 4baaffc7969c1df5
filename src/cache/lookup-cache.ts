// Cache-aside with single-flight: concurrent identical lookups that miss share
// one computation (one upstream query), and only successes are stored.
import type { CacheStore, CachedValue } from './cache-store.js';

export interface CacheResult {
  value: string;
  hit: boolean;
  /** seconds the value stays fresh, for Cache-Control */
  maxAgeSeconds: number;
}

export interface ComputedValue {
  value: string;
  /** lifetime for this value; shorter than the endpoint's when the data says so (DNS TTLs) */
  ttlMs: number;
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

  async getOrCompute(key: string, compute: () => Promise<ComputedValue>): Promise<CacheResult> {
    const cached = await this.store.get(key);
    if (cached !== undefined) return this.hit(cached);
    const pending = this.inFlight.get(key);
    if (pending !== undefined) return pending;
    const flight = this.computeAndStore(key, compute);
    this.inFlight.set(key, flight);
    try {
      return await flight;
    } finally {
      this.inFlight.delete(key);
    }
  }

  /** Synchronous fast path for stores that answer synchronously (the memory store). */
  peek(key: string): CacheResult | undefined {
    const cached = this.store.get(key);
    if (cached === undefined || cached instanceof Promise) return undefined;
    return this.hit(cached);
  }

  private hit(cached: CachedValue): CacheResult {
    return {
      value: cached.value,
      hit: true,
      maxAgeSeconds: Math.max(0, Math.floor((cached.expiresAt - this.now()) / 1000)),
    };
  }

  private async computeAndStore(
    key: string,
    compute: () => Promise<ComputedValue>,
  ): Promise<CacheResult> {
    const { value, ttlMs } = await compute();
    await this.store.set(key, value, ttlMs);
    return { value, hit: false, maxAgeSeconds: Math.floor(ttlMs / 1000) };
  }
}
