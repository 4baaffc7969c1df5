// The rate limit's policy at the HTTP layer, pure: which key a client is
// counted under and what a count means for the request. A client's window
// opens with its first request and lasts RATE_LIMIT_WINDOW_SECONDS; within it
// at most RATE_LIMIT_MAX requests pass. The count is taken before the request
// runs, in one atomic step of a store (src/ratelimit/), so a burst of parallel
// requests lets exactly the limit through. IPv6 clients are counted per /64,
// the smallest block an end site is given (RFC 6177), so one host cannot
// escape the limit by rotating addresses inside its own prefix.
import type { Ip } from '../net/ip.js';
import type { RateLimitHit } from '../ratelimit/rate-limit-store.js';

export function rateLimitKey(ip: Ip): string {
  if (ip.version === 4) return ip.text;
  const g = ip.groups;
  return `${(g[0] ?? 0).toString(16)}:${(g[1] ?? 0).toString(16)}:${(g[2] ?? 0).toString(16)}:${(g[3] ?? 0).toString(16)}::/64`;
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** whole seconds until the window closes (never 0 while it is open) */
  resetSeconds: number;
}

export function decide(hit: RateLimitHit, limit: number, now: number): RateLimitDecision {
  return {
    allowed: hit.count <= limit,
    limit,
    remaining: Math.max(0, limit - hit.count),
    resetSeconds: Math.max(1, Math.ceil((hit.resetAt - now) / 1000)),
  };
}
