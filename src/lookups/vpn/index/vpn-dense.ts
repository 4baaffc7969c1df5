// VPN-dense hosting blocks (docs/detection.md, "VPN-dense hosting blocks"):
// routed IPv4 blocks, wider than the vpn-range rule's and at most a /16, of
// hosting or VPN networks where exits of several independent providers sit
// in a good share of the /24s, and no cloud publishes any of it as its own.
// What a hoster selling to many VPN services looks like in the feeds; learned
// at each index build, never per request, and it names no provider.
// Pure: the ASN table and the classes are passed in.
import type { AsnClassTable } from '../asn-classes.js';
import { isDatacenterList, type StoredFeed } from '../feeds/feed-types.js';
import { classifyOrgName } from '../org-rules.js';
import { forEachListedVpnExitV4, packCanonicalV4 } from './prefix-events.js';
import {
  DEFAULT_VPN_RANGE_RULE,
  rangeToCidrs,
  routedBlockOf,
  type RoutedRange,
  type RoutedRangeOf,
  type VpnRangeRule,
} from './vpn-ranges.js';

export interface VpnDenseRule {
  /** distinct providers with exits in the block (0: the rule is off) */
  readonly minProviders: number;
  /** share of the block's /24s holding at least one exit */
  readonly minExitShare: number;
  /** widest block judged, in addresses (a /16 is 65 536) */
  readonly maxAddresses: number;
}

// chosen on the feeds alone by npm run calibrate-vpn-dense (docs/detection.md)
export const DEFAULT_VPN_DENSE_RULE: VpnDenseRule = {
  minProviders: 4,
  minExitShare: 0.5,
  maxAddresses: 65536,
};

export interface DenseBlock {
  readonly start: number;
  readonly end: number;
  readonly asn: number;
  readonly org: string | null;
  readonly providers: readonly string[];
  /** /24s holding exits */
  readonly exitBlocks: number;
}

interface Tally {
  readonly range: RoutedRange;
  readonly providers: Set<string>;
  readonly blocks: Set<number>;
}

export function denseBlocks(
  stored: readonly StoredFeed[],
  rangeOf: RoutedRangeOf,
  classes: AsnClassTable,
  rule: VpnDenseRule = DEFAULT_VPN_DENSE_RULE,
  rangeRule: VpnRangeRule = DEFAULT_VPN_RANGE_RULE,
): DenseBlock[] {
  if (rule.minProviders <= 0) return [];
  const tallies = new Map<number, Tally>();
  forEachListedVpnExitV4(stored, (value, provider) => {
    const row = rangeOf(value);
    if (row === null || row.asn === null) return;
    const range = routedBlockOf(row, value);
    if (range === null) return;
    const size = range.end - range.start + 1;
    // the narrower blocks are the vpn-range rule's
    if (size <= rangeRule.maxAddresses || size > rule.maxAddresses) return;
    let tally = tallies.get(range.start);
    if (tally === undefined) {
      tally = { range, providers: new Set(), blocks: new Set() };
      tallies.set(range.start, tally);
    }
    tally.providers.add(provider);
    tally.blocks.add(Math.floor(value / 256));
  });
  const clouds = cloudRanges(stored);
  const out: DenseBlock[] = [];
  for (const { range, providers, blocks } of tallies.values()) {
    const asn = range.asn!;
    const total = (range.end - range.start + 1) / 256;
    if (providers.size < rule.minProviders || blocks.size / total < rule.minExitShare) continue;
    const cls = classes.get(asn.asn)?.class ?? classifyOrgName(asn.org)?.class ?? null;
    if (cls !== 'hosting' && cls !== 'vpn') continue;
    if (overlaps(clouds, range.start, range.end)) continue;
    out.push({
      start: range.start,
      end: range.end,
      asn: asn.asn,
      org: asn.org,
      providers: [...providers].sort(),
      exitBlocks: blocks.size,
    });
  }
  return out.sort((a, b) => a.start - b.start);
}

/** The dense blocks as CIDR texts per AS (one label of the prefix index each). */
export function denseCidrsByAsn(blocks: readonly DenseBlock[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const b of blocks) {
    const list = out.get(b.asn) ?? [];
    out.set(b.asn, list);
    list.push(...rangeToCidrs(b.start, b.end));
  }
  return out;
}

/** The IPv4 ranges the clouds publish as their own, as sorted [start, end] pairs. */
function cloudRanges(stored: readonly StoredFeed[]): [number, number][] {
  const out: [number, number][] = [];
  for (const feed of stored) {
    if (feed.kind !== 'hosting' || isDatacenterList(feed.feed)) continue;
    for (const prefix of feed.prefixes) {
      const packed = packCanonicalV4(prefix);
      if (packed < 0) continue;
      const length = packed % 64;
      const start = (packed - length) / 64;
      out.push([start, start + 2 ** (32 - length) - 1]);
    }
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/** Whether [start, end] meets any of the sorted ranges (their ends need not be sorted). */
function overlaps(ranges: readonly [number, number][], start: number, end: number): boolean {
  // the last range starting at or before `end`; nested and overlapping prefixes
  // are few, so walking back while a range could still reach `start` is short
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranges[mid]![0] <= end) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo - 1; i >= 0; i--) {
    const [s, e] = ranges[i]!;
    if (e >= start) return true;
    // a /8 is the widest published range: nothing starting earlier can reach `start`
    if (s < start - 2 ** 24) return false;
  }
  return false;
}
