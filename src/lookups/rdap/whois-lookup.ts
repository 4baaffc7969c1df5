// The port-43 fallback: ask the registry's whois server (or WHOIS_SERVER, or
// IANA when no registry is known), follow at most one referral, and parse.
// The whole exchange, referral included, shares one time budget.
import { isIP } from 'node:net';
import { AppError } from '../../kit/errors.js';
import type { Ip } from '../../net/ip.js';
import { IANA_WHOIS_HOST, rirFromHost } from './registries.js';
import type { ParsedNetwork, Rir } from './types.js';
import { parseWhois } from './whois-parse.js';
import { findReferral, type WhoisTarget } from './whois-referral.js';
import { queryWhois, type ConnectFn } from './whois-transport.js';

export interface Port43Options {
  connect: ConnectFn;
  /** WHOIS_SERVER: replaces the registry's host, not its query dialect */
  server: WhoisTarget | null;
  /** the registry's whois host (RDAP `port43` or the RIR table); null → IANA */
  registryHost: string | null;
  /** the RIR the bootstrap names for the address, for the query dialect */
  expectedRir: Rir | null;
  timeoutMs: number;
  now: () => number;
}

export interface Port43Result {
  network: ParsedNetwork;
  registry: Rir | null;
}

// whois answers for one network are a few KB; 256 KiB bounds a hostile server
const MAX_ANSWER_BYTES = 256 * 1024;

/**
 * ARIN needs `n + <ip>`: `n` restricts the search to networks, `+` adds the
 * org block (the query the `whois` client sends, https://github.com/rfc1036/whois). RIPE gets `-r` so contact objects are not
 * returned: they count against its 1,000 personal-data sets a day.
 */
export function queryFor(ip: Ip, rir: Rir | null): string {
  if (rir === 'arin') return `n + ${ip.text}`;
  if (rir === 'ripe') return `-r ${ip.text}`;
  return ip.text;
}

export async function lookupPort43(ip: Ip, options: Port43Options): Promise<Port43Result> {
  const deadline = options.now() + options.timeoutMs;
  const target = options.server ?? { host: options.registryHost ?? IANA_WHOIS_HOST, port: 43 };
  const dialect = rirFromHost(target.host) ?? (options.server ? options.expectedRir : null);
  const answer = await ask(target, queryFor(ip, dialect), deadline, options);
  const referral = followable(findReferral(answer), target, options.server !== null);
  if (referral !== null) {
    try {
      const referred = await ask(
        referral,
        queryFor(ip, rirFromHost(referral.host)),
        deadline,
        options,
      );
      return { network: parseWhois(referred, referral.host), registry: rirFromHost(referral.host) };
    } catch (error) {
      // the referring answer (ARIN's parent block) is still a true answer
      const own = tryParse(answer, target.host);
      if (own === null) throw error;
      return { network: own, registry: dialect };
    }
  }
  if (target.host === IANA_WHOIS_HOST && options.server === null) {
    throw new AppError('NOT_FOUND', `IANA refers ${ip.text} to no registry.`);
  }
  return { network: parseWhois(answer, target.host), registry: dialect };
}

async function ask(
  target: WhoisTarget,
  query: string,
  deadline: number,
  options: Port43Options,
): Promise<string> {
  const remaining = deadline - options.now();
  if (remaining <= 0) {
    throw new AppError('UPSTREAM_TIMEOUT', `No time was left to ask ${target.host}.`);
  }
  return queryWhois({
    connect: options.connect,
    host: target.host,
    port: target.port,
    query,
    timeoutMs: remaining,
    maxBytes: MAX_ANSWER_BYTES,
  });
}

function tryParse(answer: string, host: string): ParsedNetwork | null {
  try {
    return parseWhois(answer, host);
  } catch {
    return null;
  }
}

/**
 * A referral back to the server just asked is a loop. Real registries refer
 * to each other by host name on port 43, so unless WHOIS_SERVER points at a
 * server of the operator's choosing, an answer cannot send us to an IP
 * literal or another port (a step towards internal services).
 */
function followable(
  referral: WhoisTarget | null,
  asked: WhoisTarget,
  operatorServer: boolean,
): WhoisTarget | null {
  if (referral === null) return null;
  if (referral.host === asked.host.toLowerCase() && referral.port === asked.port) return null;
  if (!operatorServer && (isIP(referral.host) !== 0 || referral.port !== 43)) return null;
  return referral;
}
