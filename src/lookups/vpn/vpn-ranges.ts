// From a provider's exits to its range (the vpn-range rule, docs/detection.md).
// A server list is a snapshot; addresses rotate inside the blocks a provider
// rents. When at least `minExits` distinct IPv4 exits of ONE provider sit in
// one routed range of the ASN table, that range is at most `maxAddresses`
// wide, its AS is a hosting or VPN network (curated class, else an
// organisation-name rule), and no other provider's exit is in it, the whole
// range is taken as that provider's, with its own, weaker reason.
// Pure: the ASN table and the classes are passed in.
import { formatIpv4 } from '../../net/ip.js';
import type { AsnClassTable } from './asn-classes.js';
import type { StoredFeed } from './feed-types.js';
import { classifyOrgName } from './org-rules.js';

export interface RoutedRange {
  readonly start: number;
  readonly end: number;
  readonly asn: { readonly asn: number; readonly org: string | null };
}

/** The ASN table's row holding an IPv4 address (as uint32), null in a gap. */
export type RoutedRangeOf = (value: number) => RoutedRange | null;

export interface VpnRangeRule {
  /** distinct exits of one provider in one range before it is expanded (0: never) */
  readonly minExits: number;
  /** widest range expanded, in addresses (a /22 is 1 024) */
  readonly maxAddresses: number;
}

export const DEFAULT_VPN_RANGE_RULE: VpnRangeRule = { minExits: 3, maxAddresses: 1024 };

interface Candidate {
  readonly range: RoutedRange;
  readonly exits: Map<string, Set<number>>;
}

/** provider id → the prefixes (CIDR texts) of its expanded ranges */
export function expandVpnRanges(
  stored: readonly StoredFeed[],
  rangeOf: RoutedRangeOf,
  classes: AsnClassTable,
  rule: VpnRangeRule = DEFAULT_VPN_RANGE_RULE,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (rule.minExits <= 0) return out;
  const candidates = new Map<number, Candidate>();
  for (const feed of stored) {
    if (feed.kind !== 'vpn') continue;
    feed.prefixes.forEach((prefix, i) => {
      const provider = feed.providers?.[i] || feed.provider;
      const value = provider === undefined ? null : hostV4(prefix);
      if (value === null || provider === undefined) return;
      const range = rangeOf(value);
      if (range === null || range.end - range.start + 1 > rule.maxAddresses) return;
      let candidate = candidates.get(range.start);
      if (candidate === undefined) {
        candidate = { range, exits: new Map() };
        candidates.set(range.start, candidate);
      }
      const exits = candidate.exits.get(provider) ?? new Set<number>();
      candidate.exits.set(provider, exits.add(value));
    });
  }
  for (const { range, exits } of candidates.values()) {
    const [only, ...others] = [...exits];
    if (only === undefined || others.length > 0 || only[1].size < rule.minExits) continue;
    if (!hostingNetwork(range.asn, classes)) continue;
    const list = out.get(only[0]) ?? [];
    out.set(only[0], list);
    list.push(...rangeToCidrs(range.start, range.end));
  }
  return out;
}

function hostingNetwork(asn: RoutedRange['asn'], classes: AsnClassTable): boolean {
  const cls = classes.get(asn.asn)?.class ?? classifyOrgName(asn.org)?.class ?? null;
  return cls === 'hosting' || cls === 'vpn';
}

function hostV4(prefix: string): number | null {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)\/32$/.exec(prefix);
  if (m === null) return null;
  return ((+m[1]! << 24) | (+m[2]! << 16) | (+m[3]! << 8) | +m[4]!) >>> 0;
}

/** The fewest CIDR blocks covering [start, end] exactly. */
export function rangeToCidrs(start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    let size = 1;
    // grow while aligned and inside the range
    while (at % (size * 2) === 0 && at + size * 2 - 1 <= end) size *= 2;
    out.push(`${formatIpv4(at)}/${32 - Math.log2(size)}`);
    at += size;
  }
  return out;
}
