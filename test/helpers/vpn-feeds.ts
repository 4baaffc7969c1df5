// A stored VPN feed of single server addresses naming one provider, as the
// provider parsers store them (`/32` for IPv4, `/128` for IPv6): the input of
// the vpn-range tests.
import type { StoredFeed } from '../../src/lookups/vpn/feed-types.js';

export function vpnHostFeed(id: string, provider: string, hosts: readonly string[]): StoredFeed {
  return {
    format: 'ipintel-feed/1',
    feed: id,
    kind: 'vpn',
    url: 'http://127.0.0.1/',
    fetchedAt: '2026-08-22T00:00:00.000Z',
    publishedAt: null,
    prefixes: hosts.map((h) => `${h}/${h.includes(':') ? 128 : 32}`),
    provider,
  };
}
