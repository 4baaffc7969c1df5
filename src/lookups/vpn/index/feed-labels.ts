// The labels of the compiled prefix index: what a lookup of each label set
// answers. One label per feed; one per feed and provider for a list mixing
// services (gluetun), so the index says which service, not only which list;
// one per provider for the ranges the vpn-range rule expands, and one for
// the ranges it expands that several providers share.
import type { AsnClassTable } from '../asn-classes.js';
import type { FeedHit } from '../detect.js';
import type { StoredFeed } from '../feeds/feed-types.js';
import { expandVpnRanges, type RoutedRangeOf, type VpnRangeRule } from './vpn-ranges.js';
import type { NetworkOfV6 } from './vpn-ranges-v6.js';
import { denseBlocks, denseCidrsByAsn, type VpnDenseRule } from './vpn-dense.js';

/** The pseudo-feed of the VPN-dense hosting blocks (vpn-dense.ts). */
const VPN_DENSE_FEED = 'vpn-dense';

/** One label per AS for its VPN-dense hosting blocks; they name no provider. */
export function denseLabels(
  stored: readonly StoredFeed[],
  classes: AsnClassTable,
  routedRange: RoutedRangeOf,
  rule: VpnDenseRule,
  rangeRule?: VpnRangeRule,
): FeedLabel[] {
  const blocks = denseBlocks(stored, routedRange, classes, rule, rangeRule);
  return [...denseCidrsByAsn(blocks)].map(([asn, prefixes]) => ({
    key: `${VPN_DENSE_FEED}|${asn}`,
    hit: { feed: VPN_DENSE_FEED, kind: 'vpn', provider: null, source: 'dense', asn },
    prefixes,
  }));
}

/** The pseudo-feed of the ranges expanded from providers' exits (vpn-ranges.ts). */
const VPN_RANGE_FEED = 'vpn-range';

/**
 * One label per provider for the ranges the vpn-range rule expands from its
 * exits, and one, naming no provider, for the ranges several providers share.
 */
export function rangeLabels(
  stored: readonly StoredFeed[],
  classes: AsnClassTable,
  routedRange: RoutedRangeOf,
  rule?: VpnRangeRule,
  networkOfV6?: NetworkOfV6,
): FeedLabel[] {
  const expanded = expandVpnRanges(stored, routedRange, classes, rule, networkOfV6);
  const { byProvider, ownNetwork, shared } = expanded;
  const out: FeedLabel[] = [...byProvider].map(([provider, prefixes]) => ({
    key: `${VPN_RANGE_FEED}|${provider}`,
    hit: { feed: VPN_RANGE_FEED, kind: 'vpn', provider, source: 'range' },
    prefixes,
  }));
  for (const [provider, prefixes] of ownNetwork) {
    out.push({
      key: `${VPN_RANGE_FEED}|${provider}|own`,
      hit: { feed: VPN_RANGE_FEED, kind: 'vpn', provider, source: 'range', ownNetwork: true },
      prefixes,
    });
  }
  if (shared.length > 0) {
    out.push({
      key: `${VPN_RANGE_FEED}|`,
      hit: { feed: VPN_RANGE_FEED, kind: 'vpn', provider: null, source: 'range' },
      prefixes: shared,
    });
  }
  return out;
}

export interface FeedLabel {
  readonly key: string;
  readonly hit: FeedHit;
  readonly prefixes: string[];
}

/**
 * One label per feed, or per feed and provider when a list mixes services
 * (gluetun): the prefix index then answers which service, not only which list.
 */
export function feedLabels(stored: readonly StoredFeed[]): FeedLabel[] {
  const out: FeedLabel[] = [];
  for (const s of stored) {
    // an ASN list has no prefixes: the index reads it per AS (asn-evidence.ts)
    if (s.prefixes.length === 0) continue;
    if (s.providers === undefined) {
      const provider = s.provider ?? null;
      out.push({
        key: s.feed,
        hit: { feed: s.feed, kind: s.kind, provider, source: 'own' },
        prefixes: s.prefixes,
      });
      continue;
    }
    const byProvider = new Map<string, string[]>();
    s.prefixes.forEach((prefix, i) => {
      const id = s.providers?.[i] ?? '';
      const list = byProvider.get(id) ?? [];
      if (list.length === 0) byProvider.set(id, list);
      list.push(prefix);
    });
    for (const [id, prefixes] of byProvider) {
      const hit: FeedHit = {
        feed: s.feed,
        kind: s.kind,
        provider: id === '' ? null : id,
        source: 'aggregate',
      };
      out.push({ key: `${s.feed}|${id}`, hit, prefixes });
    }
  }
  return out;
}
