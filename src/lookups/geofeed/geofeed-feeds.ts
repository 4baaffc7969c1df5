// The RFC 8805 feeds of the registry: privacy relays' egress lists (kind
// `relay`: they set isRelay and locate their addresses) and networks' own
// geofeeds (kind `geofeed`: location only). Ids are the names the feeds are
// published under here (`geofeed-<publisher>` for networks, so AWS's geofeed
// never collides with the AWS cloud ranges feed `aws`); FEED_URL_<ID> points
// one elsewhere, GEOFEED_URLS adds the operator's own (docs/data.md).
//
// GitHub-hosted feeds are read through `HEAD`, the repository's default
// branch, so a renamed branch does not break them.
import type { FeedSpec } from '../vpn/feeds/feed-updater.js';
import { assertFeedId } from '../vpn/feeds/feed-store.js';
import { parseGeofeedLocations } from './parse-geofeed.js';

const GITHUB = 'https://raw.githubusercontent.com';

/** The operator a relay list belongs to, as `provider` names it. */
export const RELAY_OPERATORS: Readonly<Record<string, string>> = {
  'apple-icloud-private-relay': 'iCloud Private Relay',
  'cloudflare-warp': 'Cloudflare WARP',
};

function relay(id: string, url: string, minPrefixes: number): FeedSpec {
  return { id, url, kind: 'relay', parser: parseGeofeedLocations, minPrefixes };
}

function geofeed(id: string, url: string, minPrefixes = 1): FeedSpec {
  return { id, url, kind: 'geofeed', parser: parseGeofeedLocations, minPrefixes };
}

/**
 * minPrefixes: under a tenth of each list's size today (Apple ~287k rows,
 * Cloudflare's ~138k), over a list shrunk to almost nothing. Small feeds: 1
 * (an empty one is refused by the parser).
 */
export const GEOFEED_FEEDS: readonly FeedSpec[] = [
  relay('apple-icloud-private-relay', 'https://mask-api.icloud.com/egress-ip-ranges.csv', 10_000),
  // the fixture copy is a 100-row sample of the 138k-row list: 50 passes both
  relay('cloudflare-warp', 'https://api.cloudflare.com/local-ip-ranges.csv', 50),
  geofeed('geofeed-starlink', 'https://geoip.starlinkisp.net/feed.csv', 50),
  // a second copy of Starlink's feed (a sample of a later day): no default
  // source, on only when FEED_URL_GEOFEED_STARLINK_SAMPLE_2026 names one
  geofeed('geofeed-starlink-sample-2026', ''),
  geofeed('geofeed-aws', 'https://ip-ranges.amazonaws.com/geo-ip-feed.csv', 100),
  geofeed('geofeed-netflix', `${GITHUB}/Netflix/nflx-geofeed/HEAD/geofeed.csv`, 50),
  geofeed('geofeed-t-mobile-us', `${GITHUB}/tmobile/tmus-geofeed/HEAD/tmus-geo-ip.txt`, 100),
  geofeed('geofeed-verizon', `${GITHUB}/Verizon/verizon-geofeed/HEAD/feed.csv`, 1000),
  geofeed('geofeed-eastlink', `${GITHUB}/Eastlink-intcore/geofeed/HEAD/geofeed.csv`, 1000),
  geofeed('geofeed-bigleaf-networks', `${GITHUB}/BigleafNetworks/bigleaf-geofeed/HEAD/geofeed.csv`),
  geofeed('geofeed-airnity', `${GITHUB}/airnity/geofeed/HEAD/geofeed.csv`),
  geofeed('geofeed-american-cloud', `${GITHUB}/American-Cloud/geofeed/HEAD/geofeed.csv`),
  geofeed('geofeed-bytenya', `${GITHUB}/ByteNya-LLC/GeoFeed/HEAD/local-ip-ranges.csv`),
  geofeed('geofeed-apnic', `${GITHUB}/APNIC-net/geofeed/HEAD/geofeed.csv`),
  geofeed('geofeed-kubbur', `${GITHUB}/kubburdotcom/geofeed/HEAD/rfc8805.txt`),
  geofeed('geofeed-as213151', `${GITHUB}/AS213151/rfc8805-geofeed/HEAD/as213151-geo-ip.txt`),
  geofeed('geofeed-oxio', `${GITHUB}/oxiocorp/oxio-geofeed/HEAD/geofeed.csv`),
  geofeed('geofeed-galaxy-digital', `${GITHUB}/GalaxyDigitalPublic/glxy-geofeed/HEAD/geofeed.csv`),
];

/**
 * The operator's own geofeeds (GEOFEED_URLS: whitespace- or comma-separated
 * http(s) URLs), each a feed of kind `geofeed` whose id is `geofeed-` and
 * its host name (`geofeed-geo-example-net`), `-2`, `-3`… when a host serves
 * several. Throws on a URL that is not http(s).
 */
export function operatorGeofeeds(list: string, taken: ReadonlySet<string>): FeedSpec[] {
  const out: FeedSpec[] = [];
  const ids = new Set(taken);
  for (const url of list.split(/[\s,]+/).filter((u) => u !== '')) {
    let host: string;
    try {
      const parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('scheme');
      host = parsed.hostname;
    } catch {
      throw new Error(`GEOFEED_URLS: not an http(s) URL: ${url}`);
    }
    const base = `geofeed-${host.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`
      .replace(/-+$/, '')
      .slice(0, 56);
    let id = base;
    for (let n = 2; ids.has(id); n++) id = `${base}-${n}`;
    assertFeedId(id);
    ids.add(id);
    out.push(geofeed(id, url));
  }
  return out;
}

/** The relay operator named for a relay feed's addresses; an operator's own relay list: its id. */
export function relayOperator(feed: string): string {
  return RELAY_OPERATORS[feed] ?? feed;
}
