// The published feeds used by default, in one table. Every URL can be replaced
// (a mirror, a proxy cache, a loopback server in tests) and every feed
// disabled through FeedOverrides, which the composition root fills from the
// environment: FEED_URL_<ID> (id upper-cased, "-" → "_"), FEEDS_DISABLED.
import type { FeedSpec } from './feed-updater.js';
import {
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseGoogleCloud,
  parseOracleIpRanges,
} from './parse-cloud-json.js';
import {
  parseCidrList,
  parseGeofeed,
  parseTorBulkExitList,
  parseTorExitAddresses,
} from './parse-text-lists.js';
import { PROVIDER_FEEDS } from './provider-feeds.js';
import { GEOFEED_FEEDS } from '../../geofeed/geofeed-feeds.js';

const X4B = 'https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/vpn';

/**
 * minPrefixes sits well under today's size of each list (AWS ~9k v4 + ~3k v6,
 * Tor ~1k exits, X4BNet ~10.8k) so that normal churn passes and a gutted
 * publication does not.
 */
export const DEFAULT_FEEDS: readonly FeedSpec[] = [
  {
    id: 'aws',
    url: 'https://ip-ranges.amazonaws.com/ip-ranges.json',
    kind: 'hosting',
    parser: parseAwsIpRanges,
    minPrefixes: 1000,
  },
  {
    id: 'gcp',
    url: 'https://www.gstatic.com/ipranges/cloud.json',
    kind: 'hosting',
    parser: parseGoogleCloud,
    minPrefixes: 100,
  },
  {
    id: 'azure',
    // the download page; the weekly file's name changes (ServiceTags_Public_YYYYMMDD.json)
    url: 'https://www.microsoft.com/en-us/download/details.aspx?id=56519',
    linkPattern:
      /https:\/\/download\.microsoft\.com\/download\/[^"'\s<>]+\/ServiceTags_Public_\d{8}\.json/,
    kind: 'hosting',
    parser: parseAzureServiceTags,
    minPrefixes: 1000,
  },
  {
    id: 'oracle',
    url: 'https://docs.oracle.com/iaas/tools/public_ip_ranges.json',
    kind: 'hosting',
    parser: parseOracleIpRanges,
    minPrefixes: 50,
  },
  {
    id: 'cloudflare-v4',
    url: 'https://www.cloudflare.com/ips-v4',
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 5,
  },
  {
    id: 'cloudflare-v6',
    url: 'https://www.cloudflare.com/ips-v6',
    kind: 'hosting',
    parser: parseCidrList,
    minPrefixes: 3,
  },
  {
    id: 'digitalocean',
    url: 'https://digitalocean.com/geo/google.csv',
    kind: 'hosting',
    parser: parseGeofeed,
    minPrefixes: 100,
  },
  {
    id: 'linode',
    url: 'https://geoip.linode.com/',
    kind: 'hosting',
    parser: parseGeofeed,
    minPrefixes: 50,
  },
  {
    id: 'vultr',
    url: 'https://geofeed.constant.com/?json',
    kind: 'hosting',
    parser: parseGeofeed,
    minPrefixes: 50,
  },
  {
    id: 'tor-exits',
    url: 'https://check.torproject.org/torbulkexitlist',
    kind: 'tor',
    parser: parseTorBulkExitList,
    minPrefixes: 300,
  },
  {
    id: 'tor-exit-addresses',
    url: 'https://check.torproject.org/exit-addresses',
    kind: 'tor',
    parser: parseTorExitAddresses,
    minPrefixes: 300,
  },
  { id: 'x4b-vpn', url: `${X4B}/ipv4.txt`, kind: 'vpn', parser: parseCidrList, minPrefixes: 1000 },
  { id: 'x4b-vpn-v6', url: `${X4B}/ipv6.txt`, kind: 'vpn', parser: parseCidrList, minPrefixes: 50 },
  ...PROVIDER_FEEDS,
  // privacy relays' egress lists and networks' RFC 8805 geofeeds (src/lookups/geofeed/)
  ...GEOFEED_FEEDS,
];

export interface FeedOverrides {
  /** feed id → URL; an empty string disables the feed */
  readonly urls?: Readonly<Record<string, string>>;
  readonly disabled?: readonly string[];
}

/** The environment variable that overrides a feed's URL (a proposal for config.ts). */
export function feedUrlVariable(id: string): string {
  return `FEED_URL_${id.toUpperCase().replace(/-/g, '_')}`;
}

/** DEFAULT_FEEDS with overrides applied; unknown ids in overrides are an error (a typo). */
export function resolveFeeds(
  overrides: FeedOverrides = {},
  base: readonly FeedSpec[] = DEFAULT_FEEDS,
): FeedSpec[] {
  const known = new Set(base.map((f) => f.id));
  const unknown = [...Object.keys(overrides.urls ?? {}), ...(overrides.disabled ?? [])].filter(
    (id) => !known.has(id),
  );
  if (unknown.length > 0) throw new Error(`unknown feed id(s): ${unknown.join(', ')}`);
  const disabled = new Set(overrides.disabled ?? []);
  const out: FeedSpec[] = [];
  for (const feed of base) {
    const url = overrides.urls?.[feed.id];
    if (disabled.has(feed.id) || url === '') continue;
    if (url === undefined) {
      // a known feed without a default source is on only when its URL is given
      if (feed.url !== '') out.push(feed);
    } else {
      assertHttpUrl(feed.id, url);
      // an overridden Azure URL points at the JSON file itself, not at the page,
      // and one overriding URL stands for all of a feed's documents
      out.push({ ...withoutExtraDocuments(feed), url });
    }
  }
  return out;
}

/**
 * Pure reading of the proposed variables, for config.ts to call with its env:
 * FEED_URL_<ID> per feed (empty = disabled) and FEEDS_DISABLED=id,id.
 */
export function feedOverridesFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  base: readonly FeedSpec[] = DEFAULT_FEEDS,
): FeedOverrides {
  const urls: Record<string, string> = {};
  for (const feed of base) {
    const value = env[feedUrlVariable(feed.id)];
    if (value !== undefined) urls[feed.id] = value.trim();
  }
  const disabled = (env.FEEDS_DISABLED ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  return { urls, disabled };
}

function assertHttpUrl(id: string, url: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  if (parsed === null || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new Error(`${feedUrlVariable(id)}: not an http(s) URL: ${url}`);
  }
}

/** A feed's spec without the page link and the further documents an override replaces. */
function withoutExtraDocuments(feed: FeedSpec): FeedSpec {
  const kept = { ...feed };
  delete kept.linkPattern;
  delete kept.moreUrls;
  return kept;
}
