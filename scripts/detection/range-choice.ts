// Scoring one candidate vpn-range rule and choosing among them, by the
// criterion docs/detection.md fixed before the calibration first ran: held-out
// recall (mean of the splits), admissible only within the bounds on servers
// that are not VPN exits (1 %) and on a provider the rule names (98 % right),
// and among the rules within one standard error of the best, the one that
// expands the least address space. Pure: the detector is passed in.
import type { Ip } from '../../src/net/ip.js';
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import type { HeldOutExit, NegativeGroup } from './range-calibration.js';
import { providerName } from '../../src/lookups/vpn/providers.js';
import type { VpnRangeRule } from '../../src/lookups/vpn/index/vpn-ranges.js';

export const MAX_CLAIMED_SHARE = 0.01;
export const MIN_NAMED_RIGHT = 0.98;

type Detector = (ip: Ip) => VpnDetection;

export interface HeldOutScore {
  readonly exits: number;
  readonly caught: number;
  /** held-out exits whose provider only the rule named, and of those the right one */
  readonly namedByRule: number;
  readonly namedByRuleRight: number;
  /** held-out exits answered with another provider, by any evidence (LOPO's bound) */
  readonly namedOther?: number;
}

export interface Claimed {
  readonly group: string;
  readonly addresses: number;
  /** answered isVpn with a vpn-range reason */
  readonly claimed: number;
}

export interface RuleResult {
  readonly rule: VpnRangeRule;
  /** one per split */
  readonly splits: readonly HeldOutScore[];
  readonly claimed: readonly Claimed[];
  /** IPv4 addresses the rule expands on the whole feed set */
  readonly expandedV4: number;
  /** the older-snapshot check (reported, not scored) */
  readonly older: HeldOutScore;
  /** leave-one-provider-out on the feeds, pooled over the providers (issue 33) */
  readonly lopo?: HeldOutScore;
  /** the time split inside the feeds: watcher copies as the lists (issue 33) */
  readonly time?: HeldOutScore;
}

/** The LOPO bound: another provider named on at most 2 % of its exits. */
export const MAX_OTHER_NAMED = 0.02;

export function scoreHeldOut(heldOut: readonly HeldOutExit[], detect: Detector): HeldOutScore {
  let caught = 0;
  let namedByRule = 0;
  let namedByRuleRight = 0;
  let namedOther = 0;
  for (const { ip, provider } of heldOut) {
    const d = detect(ip);
    if (d.isVpn) caught++;
    if (d.provider !== null && d.provider !== providerName(provider)) namedOther++;
    const byRule = ruleProvider(d);
    if (byRule === null) continue;
    namedByRule++;
    if (byRule === providerName(provider)) namedByRuleRight++;
  }
  return { exits: heldOut.length, caught, namedByRule, namedByRuleRight, namedOther };
}

/** Sums of scores (LOPO pooled over its providers). */
export function pooled(scores: readonly HeldOutScore[]): HeldOutScore {
  const sum = (f: (s: HeldOutScore) => number) => scores.reduce((n, s) => n + f(s), 0);
  return {
    exits: sum((s) => s.exits),
    caught: sum((s) => s.caught),
    namedByRule: sum((s) => s.namedByRule),
    namedByRuleRight: sum((s) => s.namedByRuleRight),
    namedOther: sum((s) => s.namedOther ?? 0),
  };
}

/** The provider a range or a learned network names when no list names one; else null. */
function ruleProvider(d: VpnDetection): string | null {
  if (d.provider === null || d.reasons.some((r) => r.startsWith('vpn-provider:'))) return null;
  return d.reasons.some((r) => r.startsWith('vpn-range:') || r.startsWith('vpn-asn:'))
    ? d.provider
    : null;
}

export function claimedIn(groups: readonly NegativeGroup[], detect: Detector): Claimed[] {
  return groups.map((g) => ({
    group: g.name,
    addresses: g.addresses.length,
    claimed: g.addresses.filter((ip) => {
      const d = detect(ip);
      return d.isVpn && d.reasons.some((r) => r.startsWith('vpn-range:'));
    }).length,
  }));
}

export function recallOf(s: HeldOutScore): number {
  return s.exits === 0 ? 0 : s.caught / s.exits;
}

/** Mean of the splits' recall and its standard error. */
export function meanAndError(splits: readonly HeldOutScore[]): { mean: number; error: number } {
  const values = splits.map(recallOf);
  const n = values.length;
  if (n === 0) return { mean: 0, error: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, error: 0 };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { mean, error: Math.sqrt(variance / n) };
}

/** The rule's named providers over all splits, right share (1 when it names none). */
export function namedRightShare(splits: readonly HeldOutScore[]): number {
  const named = splits.reduce((n, s) => n + s.namedByRule, 0);
  const right = splits.reduce((n, s) => n + s.namedByRuleRight, 0);
  return named === 0 ? 1 : right / named;
}

export function admissible(result: RuleResult): boolean {
  const withinBound = result.claimed.every((c) => c.claimed <= MAX_CLAIMED_SHARE * c.addresses);
  const { lopo, time } = result;
  const named = [...result.splits, ...(lopo ? [lopo] : []), ...(time ? [time] : [])];
  const others = lopo === undefined || (lopo.namedOther ?? 0) <= MAX_OTHER_NAMED * lopo.exits;
  return withinBound && others && namedRightShare(named) >= MIN_NAMED_RIGHT;
}

/**
 * The score: the held-out mean, or with LOPO and the time split (issue 33)
 * the mean of the three recalls; the error is the held-out splits' alone.
 */
export function scoreOf(result: RuleResult): { mean: number; error: number } {
  const held = meanAndError(result.splits);
  const { lopo, time } = result;
  if (lopo === undefined || time === undefined) return held;
  return { mean: (held.mean + recallOf(lopo) + recallOf(time)) / 3, error: held.error };
}

/**
 * The one-standard-error rule: among admissible rules scoring within one
 * standard error of the best admissible score, the one expanding the least
 * space (on a tie, the stricter rule). null: no rule is admissible.
 */
export function chooseRule(results: readonly RuleResult[]): RuleResult | null {
  const scored = results.filter(admissible).map((r) => ({ r, ...scoreOf(r) }));
  if (scored.length === 0) return null;
  const best = scored.reduce((a, b) => (b.mean > a.mean ? b : a));
  const near = scored.filter((s) => s.mean >= best.mean - best.error).map((s) => s.r);
  return near.reduce((a, b) => (stricter(b, a) ? b : a));
}

/** Less space expanded; on a tie, more exits needed, then the narrower block. */
function stricter(a: RuleResult, b: RuleResult): boolean {
  if (a.expandedV4 !== b.expandedV4) return a.expandedV4 < b.expandedV4;
  if (a.rule.minExits !== b.rule.minExits) return a.rule.minExits > b.rule.minExits;
  return a.rule.maxAddresses < b.rule.maxAddresses;
}
