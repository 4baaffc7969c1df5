import { LRUCache } from 'lru-cache';

// The lookup cache's storage behind one small interface, so a shared store
// (Redis) can replace the in-process one without touching the routes. Values
// are the serialised JSON of a lookup's `data`, so a hit is written to the
// socket as it is, byte-identical to the miss that stored it.

export interface CachedValue extends Envelope {
  /** epoch milliseconds */
  expiresAt: number;
}

/**
 * A value with its HTTP body, memoised by the app on the entry's first
 * answer, and (in process) the record it was serialised from, so callers
 * inside the process (MCP tools) need not parse the text back.
 */
export interface Envelope {
  value: string;
  /** `{"data":<value>}` */
  body?: string | undefined;
  /** the record, when the entry was made in this process */
  data?: unknown;
}

export interface CacheStore {
  get(key: string): CachedValue | undefined | Promise<CachedValue | undefined>;
  /** `data`: the record `value` serialises, kept by stores in this process */
  set(key: string, value: string, ttlMs: number, data?: unknown): void | Promise<void>;
  readonly size: number;
}

/**
 * What one entry costs in memory, roughly: the value text, the HTTP body the
 * app memoises beside it (the same text again), the record it was made from
 * (about as large again) and the key, at one byte per character for the
 * ASCII JSON of lookups; plus a fixed share for the entry's objects.
 */
export function entryCost(key: string, value: string): number {
  return key.length + 3 * value.length + 200;
}

/** The default byte bound of the in-process cache (CACHE_MAX_BYTES). */
export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Least-recently-used with per-entry expiry, bounded by entry count and by
 * bytes (entryCost; a whois or TXT answer can be kilobytes). The LRU
 * bookkeeping is lru-cache's (a linked list over typed arrays): evicting the
 * oldest key of a plain Map looks cheap but scans the Map's deleted slots,
 * which cost ~20 µs a request under a stream of misses. Expiry is kept here
 * against the injected clock, so tests control time.
 */
export class MemoryCacheStore implements CacheStore {
  /** made at the first write: lru-cache allocates its `max` slots up front (~20 ms, ~1 MB at 50,000) */
  private lru: LRUCache<string, CachedValue> | null = null;

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
    private readonly maxBytes: number = DEFAULT_CACHE_MAX_BYTES,
  ) {}

  private writable(): LRUCache<string, CachedValue> | null {
    if (this.lru === null && this.maxEntries > 0 && this.maxBytes > 0) {
      this.lru = new LRUCache({
        max: this.maxEntries,
        maxSize: this.maxBytes,
        sizeCalculation: (entry, key) => entryCost(key, entry.value),
      });
    }
    return this.lru;
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  get(key: string): CachedValue | undefined {
    const entry = this.lru?.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.lru?.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: string, ttlMs: number, data?: unknown): void {
    // an entry larger than the whole bound is not kept (lru-cache would refuse it anyway)
    if (ttlMs <= 0) return;
    const entries = this.writable();
    if (entries === null || entryCost(key, value) > entries.maxSize) return;
    // every field from the start: one object shape for all entries
    entries.set(key, {
      value,
      expiresAt: this.now() + ttlMs,
      body: undefined,
      data,
    });
  }
}
