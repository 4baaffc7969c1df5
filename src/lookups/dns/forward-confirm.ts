// Forward-confirmed reverse DNS (FCrDNS): a PTR name proves nothing, since
// whoever controls the reverse zone may write any name there; a name is
// confirmed when its own A (IPv4) or AAAA (IPv6) records contain the address
// (RFC 8499 §7 calls the reverse-then-forward check "forward-confirmed").
// Bounded: at most MAX_CONFIRMED_NAMES names, one try each, all within one
// deadline; a name whose lookup fails or runs out of time is not confirmed.
import { parseIp, type Ip } from '../../net/ip.js';
import { relevantAnswers } from './present.js';
import type { QueryFn } from './resolver.js';

/** names checked per address: a PTR set longer than this is unusual, and each costs a query */
export const MAX_CONFIRMED_NAMES = 8;

export interface Confirmation {
  /** the hostnames (in their order) whose forward records hold the address */
  confirmed: string[];
  /** the smallest TTL of the confirming records, null when none confirmed */
  minTtl: number | null;
}

/**
 * Which of `hostnames` resolve back to `ip`. Never throws: a failed, refused
 * or late forward lookup leaves its name unconfirmed. `deadlineMs` bounds the
 * whole check (the lookups run in parallel and are aborted at the deadline).
 */
export async function confirmHostnames(
  query: QueryFn,
  ip: Ip,
  hostnames: readonly string[],
  deadlineMs: number,
): Promise<Confirmation> {
  const names = hostnames.slice(0, MAX_CONFIRMED_NAMES);
  if (names.length === 0) return { confirmed: [], minTtl: null };
  const type = ip.version === 4 ? 'A' : 'AAAA';
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), deadlineMs);
  try {
    const checks = await Promise.all(
      names.map(async (name) => {
        try {
          const response = await query(name, type, { signal: abort.signal, maxTries: 1 });
          if (response.rcode !== 'NOERROR') return null;
          const match = relevantAnswers(response.answers, name, type).find(
            (a) =>
              a.type === type && typeof a.data === 'string' && parseIp(a.data)?.text === ip.text,
          );
          return match === undefined ? null : (match.ttl ?? 0);
        } catch {
          return null;
        }
      }),
    );
    const confirmed = names.filter((_, i) => checks[i] !== null);
    const ttls = checks.filter((t): t is number => t !== null);
    return { confirmed, minTtl: ttls.length === 0 ? null : Math.min(...ttls) };
  } finally {
    clearTimeout(timer);
  }
}
