// Shared shapes of the feed pipeline: a parser turns one downloaded document
// into a validated prefix list, the updater stores it, the index loads it.

/**
 * What membership in a feed says about an address: a cloud or datacenter
 * range (hosting), a VPN server (vpn), a Tor exit (tor), an open proxy seen
 * recently (proxy), a privacy relay's egress (relay: an RFC 8805 list, its
 * rows' locations kept), a network's own RFC 8805 geofeed (geofeed: location
 * only, no detection flag).
 */
export type FeedKind = 'hosting' | 'vpn' | 'tor' | 'proxy' | 'relay' | 'geofeed';

/**
 * Where a geofeed says its prefixes are (src/lookups/geofeed/): the distinct
 * places (country, ISO 3166-2 region code or '', city or ''), and per prefix
 * the index of its place, parallel to `prefixes` (-1: the row gives no country).
 */
export interface FeedPlaces {
  readonly places: readonly (readonly [string, string, string])[];
  readonly placeOf: readonly number[];
}

/**
 * The region a cloud's range file names for each prefix (`us-east-1`,
 * `europe-west3`): the distinct names, and per prefix the index of its name
 * (-1: none), parallel to `prefixes`. Placed by src/lookups/geofeed/cloud-regions.ts.
 */
export interface FeedRegions {
  readonly regions: readonly string[];
  readonly regionOf: readonly number[];
}

export interface ParsedFeed {
  readonly feed: string;
  /** CIDR texts, normalised by parseCidr (host bits cleared); both families mixed */
  readonly prefixes: string[];
  /** the publisher's own time (ISO 8601 UTC, see published-date.ts) or serial when the format has one */
  readonly publishedAt: string | null;
  /** malformed rows skipped (geofeeds only; bounded, see parseGeofeed) */
  readonly skippedRows?: number;
  /**
   * The VPN service of each prefix (a provider id of providers.ts), parallel
   * to `prefixes`; only for lists that mix services (gluetun's).
   */
  readonly providers?: readonly string[];
  /** the location of each prefix (relay and geofeed feeds) */
  readonly locations?: FeedPlaces;
  /** the cloud region of each prefix, as the provider names it (AWS, GCP, Azure, Oracle) */
  readonly regions?: FeedRegions;
  /**
   * The autonomous systems a list of operators names (ASN lists carry no
   * prefixes; the index maps an address to its AS instead)
   */
  readonly asns?: readonly number[];
  /**
   * Server host names to resolve at update time (gluetun's), each with the
   * provider its addresses belong to (parallel arrays)
   */
  readonly hostNames?: readonly string[];
  readonly hostProviders?: readonly string[];
}

/** A parser sees the whole body; it throws FeedFormatError rather than return part of it. */
export type FeedParser = (body: string, feed: string) => ParsedFeed;

/** The file the updater writes to `${dataDir}/${id}.json` and the index loader reads. */
export interface StoredFeed {
  readonly format: 'ipintel-feed/1';
  readonly feed: string;
  readonly kind: FeedKind;
  readonly url: string;
  readonly fetchedAt: string;
  readonly publishedAt: string | null;
  /** the server's Last-Modified of the document, ISO 8601 UTC, when it sent one */
  readonly lastModified?: string;
  readonly prefixes: string[];
  readonly skippedRows?: number;
  /** the VPN service every prefix belongs to (a provider id), for one-provider lists */
  readonly provider?: string;
  /** the service of each prefix, parallel to `prefixes` (lists mixing services) */
  readonly providers?: string[];
  /** relay and geofeed feeds: where each prefix is (see FeedPlaces) */
  readonly places?: FeedPlaces['places'];
  readonly placeOf?: FeedPlaces['placeOf'];
  /** cloud feeds: the region of each prefix (see FeedRegions) */
  readonly regions?: FeedRegions['regions'];
  readonly regionOf?: FeedRegions['regionOf'];
  /** the AS numbers of an ASN list (then `prefixes` is empty) */
  readonly asns?: number[];
}

/**
 * Whether a hosting feed is a datacenter list (re-published or built from
 * ASNs: `datacenter-<list>`) rather than a cloud's own published ranges.
 */
export function isDatacenterList(feed: string): boolean {
  return feed.startsWith('datacenter-');
}

export class FeedFormatError extends Error {
  readonly feed: string;

  constructor(feed: string, message: string, options?: { cause?: unknown }) {
    super(`${feed}: ${message}`, options);
    this.name = 'FeedFormatError';
    this.feed = feed;
  }
}
