// Rate-limit windows in Redis, so one limit holds across every instance. The
// semantics are MemoryRateLimitStore's (a fixed window per client, opened by
// its first request): the counter's key is created with the window as its
// TTL, so Redis closes the window, and one Lua script counts the request and
// reads the time left in a single atomic step. Two instances therefore never
// both see "59": a parallel burst lets exactly the limit through.
//
// When Redis does not answer (down, slow past the bound, or not connected
// yet) the request is counted by the in-process store instead, so the service
// keeps limiting, per instance, until Redis is back. A call that timed out may
// still have been counted in Redis: during an incident a client can be
// counted in both places, which errs on the side of limiting.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';
import type { RedisLink } from '../redis/redis-link.js';

/**
 * KEYS[1] the client's counter, ARGV[1] the window in ms → { count, ms left }.
 * PEXPIRE only when INCR created the key, so later hits never extend the
 * window. A counter found without a TTL (it cannot happen through this script,
 * but a PERSIST or a failed write could leave one) gets the window again
 * rather than limiting that client forever.
 */
export const RATE_LIMIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local window = tonumber(ARGV[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], window)
  return {count, window}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
end
return {count, ttl}
`;

const KEY_PREFIX = 'ipintel:v1:ratelimit:';
const COMMAND = 'ipintelRateLimitHit';

type RateLimitCommand = (key: string, windowMs: number) => Promise<unknown>;

export class RedisRateLimitStore implements RateLimitStore {
  private readonly command: RateLimitCommand;

  constructor(
    private readonly link: RedisLink,
    private readonly fallback: MemoryRateLimitStore,
    private readonly now: () => number = Date.now,
  ) {
    // defineCommand sends EVALSHA, and EVAL once when Redis does not know the
    // script yet (first use, or after a restart emptied its script cache).
    const client: Redis = link.client;
    if (!(COMMAND in client)) {
      client.defineCommand(COMMAND, { numberOfKeys: 1, lua: RATE_LIMIT_SCRIPT });
    }
    const defined = (client as unknown as Record<string, RateLimitCommand>)[COMMAND];
    if (defined === undefined) throw new Error('ioredis did not define the rate-limit script');
    this.command = defined.bind(client);
  }

  async hit(key: string, windowMs: number): Promise<RateLimitHit> {
    const px = Math.max(1, Math.ceil(windowMs));
    let reply: unknown;
    try {
      reply = await this.link.run(() => this.command(this.redisKey(key), px));
    } catch {
      return this.counted(key, windowMs);
    }
    return parseReply(reply, this.now()) ?? this.counted(key, windowMs);
  }

  /**
   * The in-process count, copied: the memory store hands back its live window,
   * which the next fallback hit would change before an awaiting caller reads it.
   */
  private counted(key: string, windowMs: number): RateLimitHit {
    const { count, resetAt } = this.fallback.hit(key, windowMs);
    return { count, resetAt };
  }

  private redisKey(key: string): string {
    return KEY_PREFIX + createHash('sha256').update(key).digest('base64url');
  }
}

function parseReply(reply: unknown, now: number): RateLimitHit | undefined {
  if (!Array.isArray(reply) || reply.length !== 2) return undefined;
  const [count, ttl] = reply as unknown[];
  if (typeof count !== 'number' || typeof ttl !== 'number' || count < 1 || ttl < 0) {
    return undefined;
  }
  return { count, resetAt: now + ttl };
}
