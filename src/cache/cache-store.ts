// The lookup cache's storage behind one small interface, so a shared store
// (Redis) can replace the in-process one without touching the routes. Values
// are the serialised JSON of a lookup's `data`, so a hit is written to the
// socket as it is, byte-identical to the miss that stored it.

export interface CachedValue {
  value: string;
  /** epoch milliseconds */
  expiresAt: number;
}

export interface CacheStore {
  get(key: string): CachedValue | undefined | Promise<CachedValue | undefined>;
  set(key: string, value: string, ttlMs: number): void | Promise<void>;
  readonly size: number;
}

/**
 * Least-recently-used with per-entry expiry, bounded by entry count. A Map
 * keeps insertion order, so re-inserting on a hit makes the first key the
 * least recently used one.
 */
export class MemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, CachedValue>();

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): CachedValue | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, value: string, ttlMs: number): void {
    if (this.maxEntries === 0 || ttlMs <= 0) return;
    this.entries.delete(key);
    while (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }
}
