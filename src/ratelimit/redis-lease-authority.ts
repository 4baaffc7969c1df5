// Leases in Redis, so one limit holds across every instance: each instance's
// LeasedRateLimitStore asks once per turn of its event loop, with ONE script
// call for every key that needs units (and the units it gives back). The
// script runs atomically in Redis, so the units handed out over all
// instances never pass a key's limit in one window.
//
// A key's window is a hash { g: units handed out, w: the window's id, and
// h:<instance>: when that instance's lease with spare units lapses, until it
// gives that lease back } whose TTL is the window: Redis closes it. Units
// given back carry the window id, so units of a closed window never reduce
// the count of the next one. The script is loaded once (EVALSHA; EVAL again
// only when Redis lost it).
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  GIVE_BACK_GRACE_LEASES,
  type LeaseAsk,
  type LeaseAuthority,
  type LeaseGrant,
} from './lease.js';
import type { RedisLink } from '../redis/redis-link.js';

/**
 * KEYS: the counters; ARGV[1] the share, ARGV[2] the asking instance's id;
 * then per key limit, window ms, need, units returned, the window they belong
 * to, ms the instance holds spare units → per key { units, count, ms left,
 * window id, ms to wait for other instances' spare units (when short: until
 * their leases lapse, or 1 while one has lapsed but not come back, for a
 * grace of GIVE_BACK_GRACE_LEASES of the asking instance's lease times) }. A
 * key found without a TTL (a PERSIST, a failed write) opens a fresh window
 * rather than limiting that client forever.
 */
export const LEASE_SCRIPT = `
local share = tonumber(ARGV[1])
local mine = 'h:' .. ARGV[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local at = 2 + (i - 1) * 6
  local limit = tonumber(ARGV[at + 1])
  local window = tonumber(ARGV[at + 2])
  local need = tonumber(ARGV[at + 3])
  local returned = tonumber(ARGV[at + 4])
  local holdMs = tonumber(ARGV[at + 6])
  local ttl = redis.call('PTTL', key)
  if (returned > 0 or need == 0) and ttl > 0 and redis.call('HGET', key, 'w') == ARGV[at + 5] then
    if returned > 0 and redis.call('HINCRBY', key, 'g', -returned) < 0 then
      redis.call('HSET', key, 'g', 0)
    end
    if need == 0 then redis.call('HDEL', key, mine) end
  end
  if need > 0 then
    local given, id
    if ttl < 0 then
      id = t[1] .. '.' .. t[2]
      given = 0
      ttl = window
      redis.call('DEL', key)
      redis.call('HSET', key, 'g', 0, 'w', id)
      redis.call('PEXPIRE', key, window)
    else
      local state = redis.call('HMGET', key, 'g', 'w')
      given = tonumber(state[1]) or 0
      id = state[2] or ''
    end
    local left = limit - given
    local units = 0
    if left > 0 then
      local spare = 0
      if left >= share * share then spare = math.floor(left / share) end
      units = math.min(left, math.max(need, spare))
    end
    if units > 0 then redis.call('HINCRBY', key, 'g', units) end
    if units > need then redis.call('HSET', key, mine, now + holdMs)
    else redis.call('HDEL', key, mine) end
    local retry = 0
    if units < need then
      local fields = redis.call('HGETALL', key)
      for f = 1, #fields, 2 do
        local name = fields[f]
        if name ~= mine and string.sub(name, 1, 2) == 'h:' then
          local lapse = tonumber(fields[f + 1]) - now
          if lapse > -${GIVE_BACK_GRACE_LEASES} * holdMs then retry = math.max(retry, lapse, 1) end
        end
      end
    end
    out[i] = {units, given + units, ttl, id, retry}
  else
    out[i] = {0, 0, 0, '', 0}
  end
end
return out
`;

const KEY_PREFIX = 'ipintel:v2:ratelimit:';
const COMMAND = 'ipintelRateLimitLease';
/**
 * A grant is 1/share of what is left. Instances do not know how many they
 * are; 8 lets four instances each hold a share twice over before grants
 * shrink to what is asked.
 */
export const REDIS_LEASE_SHARE = 8;

type LeaseCommand = (keyCount: number, ...args: (string | number)[]) => Promise<unknown>;

export class RedisLeaseAuthority implements LeaseAuthority {
  private readonly command: LeaseCommand;

  /** this instance in the keys' holds: random, so restarts and other hosts never collide */
  private readonly holder = randomBytes(9).toString('base64url');

  constructor(
    private readonly link: RedisLink,
    private readonly share: number = REDIS_LEASE_SHARE,
    private readonly now: () => number = Date.now,
  ) {
    const client: Redis = link.client;
    // no numberOfKeys: the call says how many keys it passes
    if (!(COMMAND in client)) client.defineCommand(COMMAND, { lua: LEASE_SCRIPT });
    const defined = (client as unknown as Record<string, LeaseCommand>)[COMMAND];
    if (defined === undefined) throw new Error('ioredis did not define the lease script');
    this.command = defined.bind(client);
  }

  available(): boolean {
    return this.link.state === 'up';
  }

  async take(asks: readonly LeaseAsk[]): Promise<(LeaseGrant | null)[]> {
    const keys = asks.map((ask) => redisKey(ask.key));
    const args: (string | number)[] = [String(this.share), this.holder];
    for (const ask of asks) {
      const px = ask.need > 0 ? Math.max(1, Math.ceil(ask.windowMs)) : 0;
      args.push(ask.limit, px, ask.need, ask.returned, ask.window, Math.ceil(ask.holdMs));
    }
    const reply = await this.link.run(() => this.command(keys.length, ...keys, ...args));
    const now = this.now();
    if (!Array.isArray(reply) || reply.length !== asks.length) {
      throw new Error('unexpected reply from the lease script');
    }
    return asks.map((ask, i) => (ask.need > 0 ? parseGrant(reply[i], now) : null));
  }
}

function redisKey(key: string): string {
  return KEY_PREFIX + createHash('sha256').update(key).digest('base64url');
}

function parseGrant(entry: unknown, now: number): LeaseGrant {
  if (Array.isArray(entry) && entry.length === 5) {
    const [units, count, ttl, window, retryInMs] = entry as unknown[];
    if (
      typeof units === 'number' &&
      typeof count === 'number' &&
      typeof ttl === 'number' &&
      typeof window === 'string' &&
      typeof retryInMs === 'number' &&
      units >= 0 &&
      ttl >= 0 &&
      retryInMs >= 0
    ) {
      return { units, count, resetAt: now + ttl, window, retryInMs };
    }
  }
  throw new Error('unexpected grant from the lease script');
}
