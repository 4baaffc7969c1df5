// GET /blacklist/:ip: every configured DNSBL asked in parallel through the
// stub resolver, under one deadline, so a slow or dead list costs at most the
// budget of a single DNS lookup and never fails the whole check.
import { AppError } from '../../kit/errors.js';
import { parseIp, type Ip, type Ipv4 } from '../../net/ip.js';
import { relevantAnswers, txtText } from '../dns/present.js';
import { MAX_TRIES, type QueryFn } from '../dns/resolver.js';
import { interpretAnswer } from './interpret.js';
import { dnsblQueryName } from './query-name.js';
import { zoneInfo, type ZoneInfo } from './zones.js';

export { dnsblQueryName } from './query-name.js';
export { interpretAnswer, type Interpretation } from './interpret.js';
export { UNKNOWN_ZONE_WEIGHT, zoneInfo, type ZoneInfo } from './zones.js';

/**
 * isListed rule: true when at least one source lists the address with a
 * confidence of at least this. A policy listing alone (Spamhaus PBL, 0.3:
 * "dynamic/residential, should not send mail directly") or an aggressive list
 * alone (UCEPROTECT, s5h: 0.4) does not make an address "listed"; every
 * listing still shows in `sources` and in `listedCount`.
 */
export const LISTED_THRESHOLD = 0.5;

/** Longest `reason` kept from a list's TXT record. */
const MAX_REASON = 300;

export interface BlacklistSource {
  /** the list's name (docs/api.md, "Records": Blacklist) */
  readonly name: string;
  readonly zone: string;
  readonly listed: boolean;
  /** 0–1: the zone's weight for the returned code when listed, else 0 */
  readonly confidence: number;
  /** the 127.0.0.x codes answered, [] when not listed */
  readonly codes: readonly string[];
  /** the list's TXT explanation when listed and it gave one, else null */
  readonly reason: string | null;
  /** why this source could not be checked (timeout, refusal…), else null */
  readonly error: string | null;
  /** where to look the address up or ask for removal, null when unknown */
  readonly url: string | null;
}

export interface BlacklistResult {
  readonly ip: string;
  readonly isListed: boolean;
  /** sources listing the address at any confidence */
  readonly listedCount: number;
  readonly sources: readonly BlacklistSource[];
}

export interface BlacklistCheckerOptions {
  /** DnsClient.query: the stub resolver */
  readonly query: QueryFn;
  /** Config.dnsblZones: lower case, no trailing dot */
  readonly zones: readonly string[];
  /** Config.dnsTimeoutMs; the whole check ends within MAX_TRIES × this */
  readonly timeoutMs: number;
}

export interface BlacklistChecker {
  /** IPv6 → AppError IPV4_ONLY; a string that is no address → INVALID_IP. */
  checkBlacklist(ip: Ip | string): Promise<BlacklistResult>;
}

function clean(text: string): string | null {
  // the reason is the list's free text: no control characters, bounded length
  const flat = text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();
  if (flat === '') return null;
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON - 1)}…` : flat;
}

export function createBlacklistChecker(options: BlacklistCheckerOptions): BlacklistChecker {
  const { query } = options;
  const zones = [...new Set(options.zones)].map(zoneInfo);
  const budgetMs = MAX_TRIES * options.timeoutMs;

  /** The TXT record at the query name (RFC 5782 §2.2), best effort: one try, same deadline. */
  async function reasonFor(name: string, signal: AbortSignal): Promise<string | null> {
    try {
      const response = await query(name, 'TXT', { signal, maxTries: 1 });
      const texts = relevantAnswers(response.answers, name, 'TXT').flatMap((a) =>
        a.type === 'TXT' ? [txtText(a.data)] : [],
      );
      return clean(texts.join(' | '));
    } catch (error) {
      if (error instanceof AppError) return null;
      throw error;
    }
  }

  async function checkZone(
    ip: Ipv4,
    info: ZoneInfo,
    signal: AbortSignal,
  ): Promise<BlacklistSource> {
    const base = { name: info.name, zone: info.zone, url: info.url };
    const none = { listed: false, confidence: 0, codes: [], reason: null };
    const name = dnsblQueryName(ip, info.zone);
    let verdict;
    try {
      const response = await query(name, 'A', { signal });
      const addresses = relevantAnswers(response.answers, name, 'A').flatMap((a) =>
        a.type === 'A' ? [a.data] : [],
      );
      verdict = interpretAnswer(info, response.rcode, addresses);
    } catch (error) {
      // a failed list is reported, and left out of isListed; a bug is not hidden
      if (!(error instanceof AppError)) throw error;
      const message =
        error.code === 'UPSTREAM_TIMEOUT' ? 'the list did not answer in time' : error.message;
      return { ...base, ...none, error: message };
    }
    if (verdict.kind === 'error') return { ...base, ...none, error: verdict.message };
    if (verdict.kind === 'clean') return { ...base, ...none, error: null };
    const reason = await reasonFor(name, signal);
    const { codes, confidence } = verdict;
    return { ...base, listed: true, confidence, codes, reason, error: null };
  }

  async function checkBlacklist(input: Ip | string): Promise<BlacklistResult> {
    const ip = typeof input === 'string' ? parseIp(input) : input;
    if (ip === null)
      throw new AppError(
        'INVALID_IP',
        `"${typeof input === 'string' ? input : input.text}" is not an IP address`,
      );
    if (ip.version !== 4) {
      throw new AppError('IPV4_ONLY', 'Blacklist checks are available for IPv4 addresses only');
    }
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), budgetMs);
    try {
      const sources = await Promise.all(zones.map((info) => checkZone(ip, info, deadline.signal)));
      const listed = sources.filter((s) => s.listed);
      return {
        ip: ip.text,
        isListed: listed.some((s) => s.confidence >= LISTED_THRESHOLD),
        listedCount: listed.length,
        sources,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  return { checkBlacklist };
}
