// Where rate-limit counts are kept, behind one small interface, so a shared
// store (Redis, or the cluster primary over IPC) can replace the in-process
// one without touching the HTTP layer. The policy that reads a count (allowed
// or not, the RateLimit-* numbers, the per-/64 key) is src/http/rate-limit.ts.

export interface RateLimitHit {
  /**
   * requests counted in the current window, this one included; a leased
   * store answers its place in the allowance handed out (≤ limit when
   * allowed) and limit + 1 for a refusal
   */
  count: number;
  /** epoch milliseconds at which the window closes */
  resetAt: number;
}

export interface RateLimitStore {
  /**
   * Counts one request of `key` in its fixed window: the window opens with
   * the key's first request and lasts `windowMs`; at most `limit` requests of
   * a window are answered with a count ≤ limit. The limit is per call, so
   * buckets with limits of their own (a per-address limit, an API key's)
   * share one store. A synchronous answer lets the pipeline decide without an
   * await.
   */
  hit(key: string, limit: number, windowMs: number): RateLimitHit | Promise<RateLimitHit>;
}
