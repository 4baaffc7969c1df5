// The lookup cache in Redis, shared by every instance. It is only a cache: on
// any Redis error or timeout a read is a miss (the lookup runs) and a write is
// dropped, so a sick Redis costs latency, never an answer.
//
// Keys are `ipintel:v<version>:cache:<sha256 of the logical key, base64url>`:
// what a client sends only ever reaches Redis hashed, as one argument of
// GET/SET, so it can neither form a command nor a pattern, and keys stay short
// however long the query. Values are `<version>;<expiresAt>;<json>`: Redis
// drops them itself when their TTL (PX) passes, expiresAt gives the reader its
// Cache-Control max-age, and an entry of another format version is a miss, so
// a deployment that changes the shape of a lookup never serves the old shape.
import { createHash } from 'node:crypto';
import type { CacheStore, CachedValue } from './cache-store.js';
import type { RedisLink } from '../redis/redis-link.js';

export interface RedisCacheStoreOptions {
  /** format version of the cached data: letters, digits, `.`, `_`, `-` */
  version: string;
  now?: () => number;
}

const VERSION_PATTERN = /^[A-Za-z0-9._-]{1,32}$/;

export class RedisCacheStore implements CacheStore {
  private readonly keyPrefix: string;
  private readonly valuePrefix: string;
  private readonly now: () => number;
  /** expiry second → entries written by this instance that expire then */
  private readonly expiring = new Map<number, number>();
  private written = 0;

  constructor(
    private readonly link: RedisLink,
    options: RedisCacheStoreOptions,
  ) {
    if (!VERSION_PATTERN.test(options.version)) {
      throw new RangeError(`Invalid cache format version: ${JSON.stringify(options.version)}`);
    }
    this.keyPrefix = `ipintel:v${options.version}:cache:`;
    this.valuePrefix = `${options.version};`;
    this.now = options.now ?? Date.now;
  }

  /**
   * Approximate: the entries this instance wrote whose lifetime has not
   * passed. Writes of other instances are not counted, an overwritten key
   * counts once per write, and entries Redis evicted early (maxmemory) still
   * count. Counting the shared keys would take a SCAN of the whole database.
   */
  get size(): number {
    const nowSecond = Math.floor(this.now() / 1000);
    for (const [second, count] of this.expiring) {
      if (second <= nowSecond) {
        this.expiring.delete(second);
        this.written -= count;
      }
    }
    return this.written;
  }

  async get(key: string): Promise<CachedValue | undefined> {
    let raw: string | null;
    try {
      raw = await this.link.run((client) => client.get(this.redisKey(key)));
    } catch {
      return undefined;
    }
    if (raw === null) return undefined;
    const entry = this.decode(raw);
    // Same rule as the memory store: an entry is gone at its expiry instant
    // (Redis's own clock may lag the writer's by a few ms).
    if (entry === undefined || entry.expiresAt <= this.now()) return undefined;
    return entry;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    if (!(ttlMs > 0)) return;
    const px = Math.max(1, Math.ceil(ttlMs));
    const expiresAt = this.now() + px;
    try {
      await this.link.run((client) =>
        client.set(this.redisKey(key), `${this.valuePrefix}${expiresAt};${value}`, 'PX', px),
      );
    } catch {
      return;
    }
    const second = Math.ceil(expiresAt / 1000);
    this.expiring.set(second, (this.expiring.get(second) ?? 0) + 1);
    this.written++;
  }

  private redisKey(key: string): string {
    return this.keyPrefix + createHash('sha256').update(key).digest('base64url');
  }

  /** The entry, or undefined for another version or a value not written by this store. */
  private decode(raw: string): CachedValue | undefined {
    if (!raw.startsWith(this.valuePrefix)) return undefined;
    const end = raw.indexOf(';', this.valuePrefix.length);
    if (end < 0) return undefined;
    const digits = raw.slice(this.valuePrefix.length, end);
    if (!/^\d{1,16}$/.test(digits)) return undefined;
    return { value: raw.slice(end + 1), expiresAt: Number(digits) };
  }
}
