// Choosing the VPN-dense block rule's two numbers (docs/detection.md,
// "VPN-dense hosting blocks"), by the criterion committed before it first
// ran: admissible when the blocks claim at most 1 % of each group of servers
// that are not VPN exits; scored by leave-one-provider-out on the feeds,
// pooled; among the admissible within one point of the best, the strictest.
// Pure: scripts/calibrate-vpn-dense.ts builds the indexes and asks the detector.
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import type { Ip } from '../../src/net/ip.js';
import {
  DEFAULT_VPN_DENSE_RULE,
  type VpnDenseRule,
} from '../../src/lookups/vpn/index/vpn-dense.js';
import type { NegativeGroup } from './range-calibration.js';
import { recallOf, type HeldOutScore } from './range-choice.js';

export const MAX_DENSE_CLAIMED_SHARE = 0.01;
/** how far below the best LOPO recall a stricter rule may score and still be chosen */
export const DENSE_TOLERANCE = 0.01;

/** p ∈ {2, 3, 4} × s ∈ {0.05, 0.1, 0.25, 0.5}: the 12 candidates. */
export function denseCandidates(): VpnDenseRule[] {
  const out: VpnDenseRule[] = [];
  for (const minProviders of [2, 3, 4]) {
    for (const minExitShare of [0.05, 0.1, 0.25, 0.5]) {
      out.push({ minProviders, minExitShare, maxAddresses: DEFAULT_VPN_DENSE_RULE.maxAddresses });
    }
  }
  return out;
}

export interface DenseClaimed {
  readonly group: string;
  readonly addresses: number;
  readonly claimed: number;
}

/** How many of each group's addresses a `vpn-dense:` reason claims. */
export function denseClaimedIn(
  groups: readonly NegativeGroup[],
  detect: (ip: Ip) => VpnDetection,
): DenseClaimed[] {
  return groups.map((g) => ({
    group: g.name,
    addresses: g.addresses.length,
    claimed: g.addresses.filter((ip) => detect(ip).reasons.some((r) => r.startsWith('vpn-dense:')))
      .length,
  }));
}

export interface DenseResult {
  readonly rule: VpnDenseRule;
  readonly claimed: readonly DenseClaimed[];
  /** leave-one-provider-out, pooled */
  readonly lopo: HeldOutScore;
}

export function denseAdmissible(result: DenseResult): boolean {
  return result.claimed.every((c) => c.claimed <= MAX_DENSE_CLAIMED_SHARE * c.addresses);
}

/** The strictest admissible rule within the tolerance of the best LOPO recall; null: none admissible. */
export function chooseDenseRule(results: readonly DenseResult[]): DenseResult | null {
  const ok = results.filter(denseAdmissible);
  if (ok.length === 0) return null;
  const best = Math.max(...ok.map((r) => recallOf(r.lopo)));
  const near = ok.filter((r) => recallOf(r.lopo) >= best - DENSE_TOLERANCE);
  return near.reduce((a, b) => (stricter(b.rule, a.rule) ? b : a));
}

/** More providers needed, then a higher share. */
function stricter(a: VpnDenseRule, b: VpnDenseRule): boolean {
  if (a.minProviders !== b.minProviders) return a.minProviders > b.minProviders;
  return a.minExitShare > b.minExitShare;
}
