// What the feeds say of whole autonomous systems (docs/detection.md, "ASN
// lists" and "Learned operator knowledge"), built with the index, off the
// request path; detect() reads it with one map lookup per answer.
//   - ASN lists (community judgements): isHosting only, `asn-list:<feed>`;
//   - learned VPN networks: an AS where at least 4 routed /24s hold listed
//     exits and those are at least half of its routed IPv4 space is VPN
//     space, `vpn-asn:<n>`, naming the provider only in its own network.
// An AS the curated table classes as an access network gets nothing.
import type { AsnClassTable } from '../asn-classes.js';
import type { AsnEvidence } from '../detect.js';
import type { StoredFeed } from '../feeds/feed-types.js';
import { forEachListedVpnExitV4 } from './prefix-events.js';
import { isOwnNetwork, providerName } from '../providers.js';
import type { RoutedRangeOf } from './vpn-ranges.js';

/** The criterion committed before it first ran: E ≥ 4 /24s, E / T ≥ 0.5. */
export const MIN_EXIT_BLOCKS = 4;
export const MIN_EXIT_SHARE = 0.5;

/** AS number → its routed IPv4 addresses in the ASN table. */
export type RoutedSizes = ReadonlyMap<number, number>;

/** Walks the ASN table's IPv4 rows once: each AS's routed space. */
export function routedSizesV4(rangeOf: RoutedRangeOf): Map<number, number> {
  const sizes = new Map<number, number>();
  let at = 0;
  while (at <= 0xffffffff) {
    const row = rangeOf(at);
    if (row === null) break;
    if (row.asn !== null) {
      sizes.set(row.asn.asn, (sizes.get(row.asn.asn) ?? 0) + (row.end - row.start + 1));
    }
    at = row.end + 1;
  }
  return sizes;
}

export interface LearnedNetwork {
  readonly asn: number;
  readonly org: string | null;
  /** /24s of the AS holding at least one listed exit */
  readonly exitBlocks: number;
  /** the AS's routed IPv4 space in /24s (rounded up) */
  readonly blocks: number;
  /** provider ids whose exits are in it */
  readonly providers: readonly string[];
  /** the provider id when the AS is that provider's own network and holds only its exits */
  readonly own: string | null;
}

/** The ASes the feeds show to be mostly VPN servers, by the committed criterion. */
export function learnVpnNetworks(
  stored: readonly StoredFeed[],
  rangeOf: RoutedRangeOf,
  sizesOf: () => RoutedSizes,
  classes: AsnClassTable,
): LearnedNetwork[] {
  const byAs = new Map<
    number,
    { org: string | null; blocks: Set<number>; providers: Set<string> }
  >();
  forEachListedVpnExitV4(stored, (value, provider) => {
    const asn = rangeOf(value)?.asn;
    if (asn === null || asn === undefined) return;
    let entry = byAs.get(asn.asn);
    if (entry === undefined) {
      entry = { org: asn.org, blocks: new Set(), providers: new Set() };
      byAs.set(asn.asn, entry);
    }
    entry.blocks.add(Math.floor(value / 256));
    entry.providers.add(provider);
  });
  const out: LearnedNetwork[] = [];
  // the sizes take one walk of the whole ASN table (a second of CPU at start):
  // only when some AS has the exits to qualify
  let sizes: RoutedSizes | null = null;
  for (const [asn, { org, blocks, providers }] of byAs) {
    const cls = classes.get(asn)?.class;
    if (cls === 'isp' || cls === 'mobile' || blocks.size < MIN_EXIT_BLOCKS) continue;
    sizes ??= sizesOf();
    const total = Math.ceil((sizes.get(asn) ?? 0) / 256);
    if (blocks.size < MIN_EXIT_BLOCKS || total === 0 || blocks.size / total < MIN_EXIT_SHARE) {
      continue;
    }
    const ids = [...providers].sort();
    const only = ids.length === 1 ? ids[0]! : null;
    const own = only !== null && isOwnNetwork(org, only) ? only : null;
    out.push({ asn, org, exitBlocks: blocks.size, blocks: total, providers: ids, own });
  }
  return out.sort((a, b) => a.asn - b.asn);
}

/** The per-AS evidence detect() reads: learned VPN networks, then the ASN lists. */
export function asnEvidence(
  stored: readonly StoredFeed[],
  learned: readonly LearnedNetwork[],
  classes: AsnClassTable,
): Map<number, AsnEvidence> {
  const building = new Map<
    number,
    { isVpn: boolean; reasons: string[]; provider: string | null }
  >();
  const entry = (asn: number) => {
    let e = building.get(asn);
    if (e === undefined) {
      e = { isVpn: false, reasons: [], provider: null };
      building.set(asn, e);
    }
    return e;
  };
  for (const network of learned) {
    const e = entry(network.asn);
    e.isVpn = true;
    e.reasons.push(`vpn-asn:${network.asn}`);
    e.provider = network.own === null ? null : providerName(network.own);
  }
  for (const feed of stored) {
    for (const asn of feed.asns ?? []) {
      const cls = classes.get(asn)?.class;
      if (cls === 'isp' || cls === 'mobile') continue;
      entry(asn).reasons.push(`asn-list:${feed.feed}`);
    }
  }
  return building;
}
