// Fixed-window rate limiting per client: a client's window opens with its
// first request and lasts RATE_LIMIT_WINDOW_SECONDS; within it at most
// RATE_LIMIT_MAX requests pass. The count is taken before the request runs,
// in one synchronous step of the event loop, so a burst of parallel requests
// lets exactly the limit through. IPv6 clients are counted per /64, the
// smallest block an end site is given (RFC 6177), so one host cannot escape
// the limit by rotating addresses inside its own prefix.
import type { Ip } from '../net/ip.js';

export interface RateLimitHit {
  /** requests counted in the current window, this one included */
  count: number;
  /** epoch milliseconds at which the window closes */
  resetAt: number;
}

export interface RateLimitStore {
  hit(key: string, windowMs: number): RateLimitHit | Promise<RateLimitHit>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, RateLimitHit>();
  private lastSweep: number;

  constructor(private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  get size(): number {
    return this.windows.size;
  }

  hit(key: string, windowMs: number): RateLimitHit {
    const now = this.now();
    if (now - this.lastSweep >= windowMs) this.sweep(now);
    const current = this.windows.get(key);
    if (current === undefined || current.resetAt <= now) {
      const fresh = { count: 1, resetAt: now + windowMs };
      this.windows.set(key, fresh);
      return { ...fresh };
    }
    current.count++;
    // a copy: the caller reads it after an await, when later hits may have moved the live one
    return { count: current.count, resetAt: current.resetAt };
  }

  /** Drops closed windows so memory follows the number of active clients. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, window] of this.windows) {
      if (window.resetAt <= now) this.windows.delete(key);
    }
  }
}

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
