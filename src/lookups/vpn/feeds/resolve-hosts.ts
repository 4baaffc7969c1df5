// Resolves VPN server host names at update time (never per request), through
// the service's own DNS client: several providers publish names, not
// addresses, and gluetun's stored list carries each server's name, so a list
// years old still yields today's addresses. Bounded: at most `concurrency`
// names in flight, each name given `perNameTimeoutMs`, the whole run
// `deadlineMs`; a name that does not resolve in time keeps nothing. A
// resolver that answers nothing at all (a closed network, a wrong
// DNS_SERVERS) is given up on after the first names rather than waited for
// until the deadline: when none of the first `2 × concurrency` names got any
// answer (not even NXDOMAIN), the rest are not asked.
import type { QueryFn } from '../../dns/resolver.js';
import { relevantAnswers } from '../../dns/present.js';
import { parseIp } from '../../../net/ip.js';
import { isBogon } from '../../geoip/bogons.js';
import type { ParsedFeed } from './feed-types.js';

export interface ResolveLimits {
  readonly concurrency: number;
  readonly perNameTimeoutMs: number;
  readonly deadlineMs: number;
}

export const DEFAULT_RESOLVE_LIMITS: ResolveLimits = {
  concurrency: 16,
  perNameTimeoutMs: 3000,
  deadlineMs: 120_000,
};

export interface Resolution {
  /** name → its IPv4 and IPv6 addresses (names that resolved to at least one) */
  readonly addresses: Map<string, string[]>;
  /** names asked that gave nothing (NXDOMAIN, no record, timeout, error) */
  readonly failed: number;
  /** names not asked (the whole run's deadline, or a resolver that answers nothing) */
  readonly skipped: number;
  /** the first names asked got no answer at all: the resolver was given up on */
  readonly unreachable: boolean;
}

export async function resolveHostNames(
  names: readonly string[],
  query: QueryFn,
  limits: ResolveLimits = DEFAULT_RESOLVE_LIMITS,
): Promise<Resolution> {
  const unique = [...new Set(names.map((n) => n.toLowerCase()))];
  const addresses = new Map<string, string[]>();
  const run = new AbortController();
  const timer = setTimeout(() => run.abort(), limits.deadlineMs);
  let next = 0;
  let failed = 0;
  // names whose queries all went unanswered (timeouts, unreachable), and all names settled
  let silent = 0;
  let settled = 0;
  const probe = 2 * Math.max(1, limits.concurrency);
  const one = async (name: string): Promise<void> => {
    const signal = AbortSignal.any([run.signal, AbortSignal.timeout(limits.perNameTimeoutMs)]);
    const ask = async (type: 'A' | 'AAAA') => {
      const response = await query(name, type, { signal, maxTries: 1 });
      const out: string[] = [];
      for (const a of relevantAnswers(response.answers, name, type)) {
        if ((a.type === 'A' || a.type === 'AAAA') && parseIp(a.data) !== null) out.push(a.data);
      }
      return out;
    };
    const got = await Promise.allSettled([ask('A'), ask('AAAA')]);
    settled++;
    if (got.every((r) => r.status === 'rejected')) silent++;
    if (settled >= probe && silent === settled) run.abort();
    const found = got.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
    // an answer that came after the deadline is not taken
    if (found.length === 0 || run.signal.aborted) failed++;
    else addresses.set(name, [...new Set(found)]);
  };
  const worker = async (): Promise<void> => {
    while (next < unique.length && !run.signal.aborted) await one(unique[next++]!);
  };
  try {
    const workers = Math.max(1, Math.min(limits.concurrency, unique.length));
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    clearTimeout(timer);
  }
  const unreachable = settled >= probe && silent === settled;
  return { addresses, failed, skipped: unique.length - next, unreachable };
}

/** Resolves a feed's host names (when it has any) and adds what they gave, with their provider. */
export function withResolved(parsed: ParsedFeed, resolution: Resolution): ParsedFeed {
  const names = parsed.hostNames ?? [];
  if (names.length === 0) return parsed;
  const prefixes = [...parsed.prefixes];
  const providers = parsed.providers === undefined ? undefined : [...parsed.providers];
  const have = new Set(prefixes);
  names.forEach((name, i) => {
    for (const text of resolution.addresses.get(name.toLowerCase()) ?? []) {
      const ip = parseIp(text);
      if (ip === null || isBogon(ip)) continue;
      const prefix = `${ip.text}/${ip.version === 4 ? 32 : 128}`;
      if (have.has(prefix)) continue;
      have.add(prefix);
      prefixes.push(prefix);
      providers?.push(parsed.hostProviders?.[i] ?? '');
    }
  });
  return { ...parsed, prefixes, ...(providers === undefined ? {} : { providers }) };
}
