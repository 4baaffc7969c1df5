// A stored VPN feed of single server addresses naming one provider, as the
// provider parsers store them (`/32` for IPv4, `/128` for IPv6): the input of
// the vpn-range tests.
import type { FeedKind, StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';
import type { RoutedRangeOf } from '../../src/lookups/vpn/index/vpn-ranges.js';
import { parseIp } from '../../src/net/ip.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { feedFileName, feedsDir, serialiseFeed } from '../../src/lookups/vpn/feeds/feed-store.js';

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

/** An IPv4 text as uint32 (throws on anything else: a typo in a test table). */
export function v4Value(text: string): number {
  const ip = parseIp(text);
  if (ip?.version !== 4) throw new Error(text);
  return ip.value;
}

/** A small ASN table: routed rows [first, last, asn, org], and gaps no AS routes. */
export function routedTable(
  rows: readonly (readonly [string, string, number, string | null])[],
  gaps: readonly (readonly [string, string])[] = [],
): RoutedRangeOf {
  return (value) => {
    for (const [first, last, asn, org] of rows) {
      if (v4Value(first) <= value && value <= v4Value(last))
        return { start: v4Value(first), end: v4Value(last), asn: { asn, org } };
    }
    for (const [first, last] of gaps) {
      if (v4Value(first) <= value && value <= v4Value(last))
        return { start: v4Value(first), end: v4Value(last), asn: null };
    }
    return null;
  };
}

/** Stores `feeds` in DATA_DIR `dataDir` as the updater does (its feeds folder made if missing). */
export async function writeFeeds(dataDir: string, feeds: readonly StoredFeed[]): Promise<void> {
  await mkdir(feedsDir(dataDir), { recursive: true });
  for (const feed of feeds) {
    await writeFile(join(feedsDir(dataDir), feedFileName(feed.feed)), serialiseFeed(feed));
  }
}
