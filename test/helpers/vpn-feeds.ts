// A stored VPN feed of single server addresses naming one provider, as the
// provider parsers store them (`/32` for IPv4, `/128` for IPv6): the input of
// the vpn-range tests.
import type { FeedKind, StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';

/** A stored feed of any kind, fetched 2026-08-22, with whatever else `extra` sets. */
export function storedFeed(
  id: string,
  kind: FeedKind,
  prefixes: string[],
  extra: Partial<StoredFeed> = {},
): StoredFeed {
  return {
    format: 'ipintel-feed/1',
    feed: id,
    kind,
    url: 'http://127.0.0.1/',
    fetchedAt: '2026-08-22T00:00:00.000Z',
    publishedAt: null,
    prefixes,
    ...extra,
  };
}

export function vpnHostFeed(id: string, provider: string, hosts: readonly string[]): StoredFeed {
  const prefixes = hosts.map((h) => `${h}/${h.includes(':') ? 128 : 32}`);
  return storedFeed(id, 'vpn', prefixes, { provider });
}
