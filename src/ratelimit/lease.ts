// Leases of a client's allowance: how several processes (cluster workers, or
// instances sharing Redis) keep one exact limit without asking a shared
// authority for every request. The authority (the cluster primary's memory,
// or a Lua script in Redis) hands a holder a lease of some units of a key's
// allowance; the holder answers that many requests from memory, then asks
// again. The authority never hands out more than the limit in one window, so
// no client gets more than RATE_LIMIT_MAX answers across all holders.
//
// A lease is as large as a share of what is left (1/share of it, at least
// what the holder needs now), so grants shrink as the allowance runs out;
// near the end (less than share² left) a holder gets only what it needs. A
// holder keeps a lease for a short time (RATE_LIMIT_LEASE_MS) and gives back
// what it did not use.
//
// Exactly the limit, not merely at most: a grant with spare units (more than
// the holder needed at once) is remembered, with the time its lease lapses,
// until the holder gives that lease back (a sweep sends a give-back for it
// even when no unit is left, so the authority knows). When the allowance runs
// short for one holder while another may still sit on spare units, the grant
// says so (`retryInMs`): the requests wait for those leases to lapse and
// their units to come back, and ask again. A lapsed lease not given back yet
// (its holder's sweep is late: a busy machine) is waited for again, for
// GIVE_BACK_GRACE_LEASES lease times past its lapse; a holder stops waiting
// after MAX_WAIT_LEASES lease times in all, and the answer after that
// refuses. So a burst spread over several holders gets exactly the limit,
// and a refusal waits only while units may still come back, boundedly.

/** What a holder asks for one key, and what it gives back. */
export interface LeaseAsk {
  key: string;
  limit: number;
  windowMs: number;
  /** requests waiting for units now (0: a give-back only) */
  need: number;
  /** unused units of the holder's last lease of this key, given back */
  returned: number;
  /** the window those units belong to (the authority's id; '' when none) */
  window: string;
  /** how long the holder keeps spare units of this grant, ms (RATE_LIMIT_LEASE_MS) */
  holdMs: number;
}

/** What the authority granted on one ask. */
export interface LeaseGrant {
  /** units handed to the holder (0: the window's allowance is spent) */
  units: number;
  /** units handed out in the window so far, these included */
  count: number;
  /** epoch ms at which the window closes */
  resetAt: number;
  /** the window's id, to give units back to */
  window: string;
  /**
   * units fell short of the need while other holders may still give spare
   * units back: ms until the last of their leases lapses, or 1 when it has
   * lapsed and not come back yet (ask again after that and a sweep); 0 when
   * nothing is to come back
   */
  retryInMs: number;
}

/** The shared side: the cluster primary over IPC, or Redis. */
export interface LeaseAuthority {
  /**
   * One grant per ask with need > 0 (null for give-backs), in order. Rejects
   * when the authority did not answer (the holder counts in process then).
   */
  take(asks: readonly LeaseAsk[]): Promise<(LeaseGrant | null)[]>;
  /** false when a call would fail at once (not connected): the holder counts in process */
  available(): boolean;
}

/**
 * Units to grant: `need`, or 1/share of what is left when that is more — but
 * once less than share² units are left, only what is needed, so near the
 * limit no holder sits on spare units while another is refused (a burst
 * over several holders gets exactly the limit). Never more than is left.
 * Mirrored in the Redis script.
 */
export function grantSize(limit: number, handedOut: number, need: number, share: number): number {
  const left = limit - handedOut;
  if (left <= 0 || need <= 0) return 0;
  const spare = left >= share * share ? Math.floor(left / share) : 0;
  return Math.min(left, Math.max(need, spare));
}

/**
 * How long past its lapse a lease with spare units not given back yet is still
 * waited for, in lease times: its holder sweeps every quarter lease, and on a
 * loaded machine the sweep and the trip back come late. Mirrored in the Redis
 * script.
 */
export const GIVE_BACK_GRACE_LEASES = 2;

/**
 * Longest a holder's requests wait for other holders' units, in lease times
 * from their first wait: a lease to lapse, and its grace. Then the answer is final.
 */
export const MAX_WAIT_LEASES = 1 + GIVE_BACK_GRACE_LEASES;

/** How long a holder keeps a lease before giving back what it did not use. */
export const DEFAULT_LEASE_MS = 1_000;

/**
 * How often a holder looks for lapsed leases to give back: a quarter of a
 * lease, so units come back soon after the authority stops counting them as
 * held (a waiting holder asks again this much, plus a margin, after the lapse).
 */
export function sweepEveryMs(leaseMs: number): number {
  return Math.max(25, Math.floor(leaseMs / 4));
}
