// From VPN exits to their range (the vpn-range rule, docs/detection.md).
// A server list is a snapshot; addresses rotate inside the blocks a provider
// rents. When at least `minExits` distinct IPv4 exits of VPN services sit in
// one routed block of the ASN table (a row, or where a row merges adjacent
// prefixes, one of its aligned CIDR blocks), that block is at most `maxAddresses`
// wide and its AS is a hosting or VPN network (curated class, else an
// organisation-name rule) — or an AS nobody classed, or none (a gap of the
// table), and the block is no wider than `maxUnclassifiedAddresses` (a /24;
// in a gap, the /24 around the exits) — the whole block is VPN space, with its own,
// weaker reason: the provider's when all its exits are one provider's, no
// provider (shared) when they are several providers'.
// Pure: the ASN table and the classes are passed in.
import { formatIpv4 } from '../../../net/ip.js';
import type { AsnClass, AsnClassTable } from '../asn-classes.js';
import type { StoredFeed } from '../feeds/feed-types.js';
import { classifyOrgName } from '../org-rules.js';
import { packCanonicalV4 } from './prefix-events.js';
import { collectV6Blocks, type NetworkOfV6 } from './vpn-ranges-v6.js';
import { isOwnNetwork } from '../providers.js';

export interface RoutedRange {
  readonly start: number;
  readonly end: number;
  /** null: a gap of the ASN table (no AS is known to route it) */
  readonly asn: { readonly asn: number; readonly org: string | null } | null;
}

/** The ASN table's row holding an IPv4 address (as uint32); a gap has no AS. */
export type RoutedRangeOf = (value: number) => RoutedRange | null;

export interface VpnRangeRule {
  /** distinct VPN exits in one range before it is expanded (0: never) */
  readonly minExits: number;
  /** widest range expanded, in addresses (a /21 is 2 048) */
  readonly maxAddresses: number;
  /**
   * widest range expanded in an AS with no class (neither curated nor by its
   * name): a /24, the smallest block routed on its own (default)
   */
  readonly maxUnclassifiedAddresses?: number;
}

// chosen on the feeds alone by npm run calibrate-vpn-range (docs/detection.md)
export const DEFAULT_VPN_RANGE_RULE: VpnRangeRule = { minExits: 3, maxAddresses: 2048 };
const DEFAULT_MAX_UNCLASSIFIED = 256;

/** The ranges the rule expands, as CIDR texts. */
export interface ExpandedRanges {
  /** provider id → the ranges holding only that provider's exits (naming nobody) */
  readonly byProvider: Map<string, string[]>;
  /**
   * provider id → those of its ranges in a network verifiably its own (the
   * ASN table's organisation is the provider): these name it
   */
  readonly ownNetwork: Map<string, string[]>;
  /** ranges holding exits of several providers: VPN space, no provider named */
  readonly shared: string[];
}

interface Candidate {
  readonly range: RoutedRange;
  readonly exits: Map<string, Set<number>>;
}

export function expandVpnRanges(
  stored: readonly StoredFeed[],
  rangeOf: RoutedRangeOf,
  classes: AsnClassTable,
  rule: VpnRangeRule = DEFAULT_VPN_RANGE_RULE,
  networkOfV6?: NetworkOfV6,
): ExpandedRanges {
  const out: ExpandedRanges = { byProvider: new Map(), ownNetwork: new Map(), shared: [] };
  if (rule.minExits <= 0) return out;
  for (const { range, exits } of collectCandidates(stored, rangeOf, rule).values()) {
    if (distinctExits(exits) < rule.minExits || !expandable(range, classes, rule)) continue;
    place(out, exits, rangeToCidrs(range.start, range.end), range.asn?.org ?? null);
  }
  if (networkOfV6 === undefined) return out;
  for (const block of collectV6Blocks(stored).values()) {
    if (distinctExits(block.exits) < rule.minExits) continue;
    const network = networkOfV6(block.sample);
    const cls = classOf(network, classes);
    // a /48 is judged as the smallest routed IPv4 block: anything but an access network
    if (cls !== 'isp' && cls !== 'mobile') {
      place(out, block.exits, [block.cidr], network?.org ?? null);
    }
  }
  return out;
}

function distinctExits(exits: Map<string, Set<number | string>>): number {
  return new Set([...exits.values()].flatMap((set) => [...set])).size;
}

/**
 * One provider's exits → its ranges (its own network's apart); several
 * providers' → shared, naming none.
 */
function place(
  out: ExpandedRanges,
  exits: Map<string, unknown>,
  cidrs: string[],
  org: string | null,
): void {
  const [only, ...others] = exits.keys();
  if (only === undefined || others.length > 0) {
    out.shared.push(...cidrs);
    return;
  }
  const into = isOwnNetwork(org, only) ? out.ownNetwork : out.byProvider;
  const list = into.get(only) ?? [];
  into.set(only, list);
  list.push(...cidrs);
}

/** Routed blocks no wider than the rule's limit, with the exits of each provider in them. */
function collectCandidates(
  stored: readonly StoredFeed[],
  rangeOf: RoutedRangeOf,
  rule: VpnRangeRule,
): Map<number, Candidate> {
  const candidates = new Map<number, Candidate>();
  for (const feed of stored) {
    if (feed.kind !== 'vpn') continue;
    feed.prefixes.forEach((prefix, i) => {
      const provider = feed.providers?.[i] || feed.provider;
      const value = provider === undefined ? null : hostV4(prefix);
      if (value === null || provider === undefined) return;
      const row = rangeOf(value);
      const range = row === null ? null : blockFor(row, value, rule);
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
  return candidates;
}

/**
 * The routed block holding an exit. In a gap of the ASN table nothing routes
 * a block as one; as for an AS nobody classed, the block is then at most the
 * unclassed width (a /24) around the exit.
 */
function blockFor(row: RoutedRange, value: number, rule: VpnRangeRule): RoutedRange | null {
  const block = routedBlockOf(row, value);
  if (block === null || row.asn !== null) return block;
  const size = rule.maxUnclassifiedAddresses ?? DEFAULT_MAX_UNCLASSIFIED;
  if (block.end - block.start + 1 <= size) return block;
  if (size < 1) return null;
  const start = Math.floor(value / size) * size;
  return { start, end: start + size - 1, asn: null };
}

/**
 * A hosting or VPN network (curated class, else organisation name) up to the
 * rule's width; an AS with no class at all, or no AS (a gap), only up to a /24
 * (by default); an access network (isp, mobile) never.
 */
function expandable(range: RoutedRange, classes: AsnClassTable, rule: VpnRangeRule): boolean {
  const cls = classOf(range.asn, classes);
  if (cls === 'hosting' || cls === 'vpn') return true;
  const widest = rule.maxUnclassifiedAddresses ?? DEFAULT_MAX_UNCLASSIFIED;
  return cls === null && range.end - range.start + 1 <= widest;
}

/** The curated class of an AS, else its organisation-name class; null: unclassed or no AS. */
function classOf(asn: RoutedRange['asn'], classes: AsnClassTable): AsnClass | null {
  if (asn === null) return null;
  return classes.get(asn.asn)?.class ?? classifyOrgName(asn.org)?.class ?? null;
}

/** A stored /32's address as uint32 (stored prefixes are canonical: prefix-events.ts), else null. */
function hostV4(prefix: string): number | null {
  const packed = packCanonicalV4(prefix);
  return packed >= 0 && packed % 64 === 32 ? (packed - 32) / 64 : null;
}

/**
 * The block of a row of the ASN table that holds `value`. A row is one routed
 * prefix, or adjacent prefixes of one AS merged; cut into its fewest aligned
 * CIDR blocks, each block holds whole routed prefixes (a prefix is aligned, so
 * it never straddles two such blocks), and the block is the widest range that
 * can be said to be routed as one.
 */
export function routedBlockOf(row: RoutedRange, value: number): RoutedRange | null {
  for (const [start, end] of cidrBlocks(row.start, row.end)) {
    if (start <= value && value <= end) return { start, end, asn: row.asn };
  }
  return null;
}

/** The fewest aligned blocks covering [start, end] exactly, as [first, last]. */
function cidrBlocks(start: number, end: number): [number, number][] {
  const out: [number, number][] = [];
  let at = start;
  while (at <= end) {
    let size = 1;
    // grow while aligned and inside the range
    while (at % (size * 2) === 0 && at + size * 2 - 1 <= end) size *= 2;
    out.push([at, at + size - 1]);
    at += size;
  }
  return out;
}

/** The fewest CIDR blocks covering [start, end] exactly. */
export function rangeToCidrs(start: number, end: number): string[] {
  return cidrBlocks(start, end).map(([first, last]) => {
    return `${formatIpv4(first)}/${32 - Math.log2(last - first + 1)}`;
  });
}
