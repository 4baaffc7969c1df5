// Where rate-limit counts are kept, behind one small interface, so a shared
// store (Redis, or the cluster primary over IPC) can replace the in-process
// one without touching the HTTP layer. The policy that reads a count (allowed
// or not, the RateLimit-* numbers, the per-/64 key) is src/http/rate-limit.ts.

export interface RateLimitHit {
  /** requests counted in the current window, this one included */
  count: number;
  /** epoch milliseconds at which the window closes */
  resetAt: number;
}

export interface RateLimitStore {
  /**
   * Counts one request of `key` in its fixed window: the window opens with
   * the key's first request and lasts `windowMs`. A synchronous answer lets
   * the pipeline decide without an await. `limit` is the key's allowance
   * when it is its own (an API key's), not RATE_LIMIT_MAX: a store that only
   * counts ignores it; one that hands out shares of an allowance needs it.
   */
  hit(key: string, windowMs: number, limit?: number): RateLimitHit | Promise<RateLimitHit>;
}
