// The on-disk form of a feed in DATA_DIR: `<id>.feed.json`, written by the
// updater after validation and read back by the index loader. Storing the
// normalised prefix list (not the raw download) means start-up never re-parses
// a provider's format, and a file here is known to have passed validation.
import { join } from 'node:path';
import { FeedFormatError, type FeedKind, type FeedPlaces, type StoredFeed } from './feed-types.js';
import { isRecord, requirePrefix } from './feed-validate.js';
import { normalisePublished } from './published-date.js';
import { isProviderId } from '../providers.js';

export const FEED_FILE_SUFFIX = '.feed.json';

/** Where the feed files of a DATA_DIR live: the updater writes there, the service and the CLI read. */
export function feedsDir(dataDir: string): string {
  return join(dataDir, 'feeds');
}
const FEED_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
const KINDS: ReadonlySet<string> = new Set(['hosting', 'vpn', 'tor', 'proxy', 'relay', 'geofeed']);

/** Feed ids become file names, so they are held to a safe alphabet. */
export function assertFeedId(id: string): void {
  if (!FEED_ID.test(id)) throw new Error(`bad feed id ${JSON.stringify(id)}: use a-z, 0-9, -`);
}

export function feedFileName(id: string): string {
  assertFeedId(id);
  return `${id}${FEED_FILE_SUFFIX}`;
}

export function serialiseFeed(feed: StoredFeed): string {
  return `${JSON.stringify(feed)}\n`;
}

/** Reads a stored feed back, re-checking it: the file may have been edited or damaged. */
export function deserialiseFeed(text: string, fileName: string): StoredFeed {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new FeedFormatError(fileName, 'stored feed is not valid JSON', { cause: error });
  }
  if (!isRecord(doc) || doc.format !== 'ipintel-feed/1') {
    throw new FeedFormatError(fileName, 'not an ipintel-feed/1 document');
  }
  const { feed, kind, url, fetchedAt, publishedAt, prefixes, skippedRows, provider, providers } =
    doc;
  const asns = storedAsns(fileName, doc.asns);
  if (typeof feed !== 'string' || !FEED_ID.test(feed)) {
    throw new FeedFormatError(fileName, 'bad feed id');
  }
  if (typeof kind !== 'string' || !KINDS.has(kind)) throw new FeedFormatError(fileName, 'bad kind');
  // an ASN list has AS numbers and no prefixes; every other feed has prefixes
  if (!Array.isArray(prefixes) || (prefixes.length === 0 && asns === undefined)) {
    throw new FeedFormatError(fileName, 'no prefixes');
  }
  return {
    format: 'ipintel-feed/1',
    feed,
    kind: kind as FeedKind,
    url: typeof url === 'string' ? url : '',
    fetchedAt: typeof fetchedAt === 'string' ? fetchedAt : '',
    // files written before the dates were normalised hold them as published
    publishedAt: typeof publishedAt === 'string' ? normalisePublished(publishedAt) : null,
    prefixes: (prefixes as unknown[]).map((p, i) => requirePrefix(fileName, p, `prefixes[${i}]`)),
    ...(typeof skippedRows === 'number' && skippedRows > 0 ? { skippedRows } : {}),
    ...storedProviders(fileName, provider, providers, prefixes.length),
    ...(asns === undefined ? {} : { asns }),
    ...storedPlaces(fileName, doc.places, doc.placeOf, prefixes.length),
  };
}

/** The optional locations of a relay or geofeed feed: distinct places, one index per prefix. */
function storedPlaces(
  fileName: string,
  places: unknown,
  placeOf: unknown,
  count: number,
): Partial<FeedPlaces> {
  if (places === undefined && placeOf === undefined) return {};
  const placesOk =
    Array.isArray(places) &&
    places.every(
      (p) => Array.isArray(p) && p.length === 3 && p.every((part) => typeof part === 'string'),
    );
  const n = placesOk ? places.length : 0;
  const indexesOk =
    Array.isArray(placeOf) &&
    placeOf.length === count &&
    placeOf.every((i) => Number.isInteger(i) && (i as number) >= -1 && (i as number) < n);
  if (!placesOk || !indexesOk) {
    throw new FeedFormatError(fileName, 'bad places: one place index per prefix expected');
  }
  return {
    places: places as [string, string, string][],
    placeOf: placeOf as number[],
  };
}

/** An ASN list's numbers: absent, or a non-empty array of AS numbers. */
function storedAsns(fileName: string, asns: unknown): number[] | undefined {
  if (asns === undefined) return undefined;
  const ok =
    Array.isArray(asns) &&
    asns.length > 0 &&
    asns.every((a) => Number.isInteger(a) && (a as number) >= 1 && (a as number) <= 4_294_967_295);
  if (!ok) throw new FeedFormatError(fileName, 'bad asns: AS numbers expected');
  return asns as number[];
}

/** The optional provider fields: one id for the whole list, or one per prefix. */
function storedProviders(
  fileName: string,
  provider: unknown,
  providers: unknown,
  count: number,
): { provider?: string; providers?: string[] } {
  if (provider !== undefined && (typeof provider !== 'string' || !isProviderId(provider))) {
    throw new FeedFormatError(fileName, 'bad provider');
  }
  if (providers !== undefined) {
    const ok =
      Array.isArray(providers) &&
      providers.length === count &&
      providers.every((p) => typeof p === 'string' && (p === '' || isProviderId(p)));
    if (!ok) throw new FeedFormatError(fileName, 'bad providers: one id per prefix expected');
  }
  return {
    ...(provider !== undefined ? { provider } : {}),
    ...(providers !== undefined ? { providers: providers as string[] } : {}),
  };
}
