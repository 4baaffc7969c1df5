// Parsers for the clouds that publish their address space as JSON. Field names
// follow the published documents (their URLs are in default-feeds.ts); every
// parser requires the top-level arrays to exist so that a different JSON
// document (an error object, a moved API) is refused rather than read as
// "no prefixes". Each keeps the region the document names for a prefix
// (FeedRegions): the clouds' regions place their prefixes (docs/data.md,
// "Cloud regions").
import { FeedFormatError, type FeedParser, type ParsedFeed } from './feed-types.js';
import {
  finishFeed,
  isRecord,
  optionalString,
  parseJsonObject,
  requireArray,
  requirePrefix,
} from './feed-validate.js';

/**
 * The prefixes in first-seen order, each with the first region named for it
 * ('' none: a prefix listed under a global tag and a regional one takes the
 * region).
 */
type Regioned = Map<string, string>;

function addPrefix(out: Regioned, prefix: string, region: unknown): void {
  const name = typeof region === 'string' ? region : '';
  if (!out.has(prefix) || (out.get(prefix) === '' && name !== '')) out.set(prefix, name);
}

/** The parsed feed of `out`, with its regions (none when the document names none). */
function finishRegioned(feed: string, out: Regioned, publishedAt: string | null): ParsedFeed {
  const parsed = finishFeed(feed, out.keys(), publishedAt);
  const regions: string[] = [];
  const indexOf = new Map<string, number>();
  const regionOf = parsed.prefixes.map((prefix) => {
    const name = out.get(prefix) ?? '';
    if (name === '') return -1;
    let at = indexOf.get(name);
    if (at === undefined) indexOf.set(name, (at = regions.push(name) - 1));
    return at;
  });
  return regions.length === 0 ? parsed : { ...parsed, regions: { regions, regionOf } };
}

/**
 * Each entry of `items` must be an object carrying a prefix under one of
 * `keys`; its region is its `regionKey` member, else `region`.
 */
function collect(
  feed: string,
  items: unknown[],
  keys: readonly string[],
  where: string,
  into: { out: Regioned; regionKey?: string; region?: unknown },
): void {
  items.forEach((item, i) => {
    if (!isRecord(item)) throw new FeedFormatError(feed, `${where}[${i}] is not an object`);
    const key = keys.find((k) => item[k] !== undefined);
    if (key === undefined)
      throw new FeedFormatError(feed, `${where}[${i}] has no ${keys.join('/')}`);
    const prefix = requirePrefix(feed, item[key], `${where}[${i}].${key}`);
    addPrefix(into.out, prefix, into.regionKey === undefined ? into.region : item[into.regionKey]);
  });
}

/**
 * AWS ip-ranges.json: {syncToken, createDate, prefixes[{ip_prefix, region}],
 * ipv6_prefixes[{ipv6_prefix, region}]}
 */
export const parseAwsIpRanges: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const out: Regioned = new Map();
  const v4Items = requireArray(feed, doc.prefixes, 'prefixes');
  collect(feed, v4Items, ['ip_prefix'], 'prefixes', { out, regionKey: 'region' });
  const v6Items = requireArray(feed, doc.ipv6_prefixes, 'ipv6_prefixes');
  collect(feed, v6Items, ['ipv6_prefix'], 'ipv6_prefixes', { out, regionKey: 'region' });
  return finishRegioned(feed, out, optionalString(doc.createDate));
};

/**
 * Google cloud.json / goog.json: {syncToken, creationTime,
 * prefixes[{ipv4Prefix|ipv6Prefix, scope}]} (goog.json's have no scope)
 */
export const parseGoogleCloud: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const items = requireArray(feed, doc.prefixes, 'prefixes');
  const out: Regioned = new Map();
  collect(feed, items, ['ipv4Prefix', 'ipv6Prefix'], 'prefixes', { out, regionKey: 'scope' });
  return finishRegioned(feed, out, optionalString(doc.creationTime));
};

/**
 * Azure Service Tags: {changeNumber, cloud, values[{name, properties{region,
 * addressPrefixes[]}}]}. The `AzureCloud` tag and its regional
 * `AzureCloud.<region>` tags cover the whole public cloud; the other tags are
 * subsets of it. Only when a file lacks them (a filtered download) are all
 * tags taken. A prefix's region: its regional tag's `region` ('' on global tags).
 */
export const parseAzureServiceTags: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const values = requireArray(feed, doc.values, 'values');
  const tags = values.map((value, i) => {
    if (!isRecord(value) || typeof value.name !== 'string' || !isRecord(value.properties)) {
      throw new FeedFormatError(feed, `values[${i}] is not a service tag`);
    }
    const list = requireArray(
      feed,
      value.properties.addressPrefixes,
      `values[${i}].addressPrefixes`,
    );
    return { name: value.name, region: value.properties.region, list, index: i };
  });
  const whole = tags.filter((t) => t.name === 'AzureCloud' || t.name.startsWith('AzureCloud.'));
  const out: Regioned = new Map();
  for (const tag of whole.length > 0 ? whole : tags) {
    tag.list.forEach((p, j) =>
      addPrefix(out, requirePrefix(feed, p, `values[${tag.index}][${j}]`), tag.region),
    );
  }
  return finishRegioned(feed, out, optionalString(doc.changeNumber));
};

/** Oracle public_ip_ranges.json: {last_updated_timestamp, regions[{region, cidrs[{cidr, tags}]}]} */
export const parseOracleIpRanges: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const out: Regioned = new Map();
  requireArray(feed, doc.regions, 'regions').forEach((region, i) => {
    if (!isRecord(region)) throw new FeedFormatError(feed, `regions[${i}] is not an object`);
    const cidrs = requireArray(feed, region.cidrs, `regions[${i}].cidrs`);
    collect(feed, cidrs, ['cidr'], `regions[${i}].cidrs`, { out, region: region.region });
  });
  return finishRegioned(feed, out, optionalString(doc.last_updated_timestamp));
};
