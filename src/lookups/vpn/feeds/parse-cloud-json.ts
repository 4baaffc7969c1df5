// Parsers for the clouds that publish their address space as JSON. Field names
// follow the published documents (their URLs are in default-feeds.ts); every
// parser requires the top-level arrays to exist so that a different JSON
// document (an error object, a moved API) is refused rather than read as
// "no prefixes".
import { FeedFormatError, type FeedParser } from './feed-types.js';
import {
  finishFeed,
  isRecord,
  optionalString,
  parseJsonObject,
  requireArray,
  requirePrefix,
} from './feed-validate.js';

/** Each entry of `items` must be an object carrying a prefix under one of `keys`. */
function collect(feed: string, items: unknown[], keys: readonly string[], where: string) {
  const out = new Set<string>();
  items.forEach((item, i) => {
    if (!isRecord(item)) throw new FeedFormatError(feed, `${where}[${i}] is not an object`);
    const key = keys.find((k) => item[k] !== undefined);
    if (key === undefined)
      throw new FeedFormatError(feed, `${where}[${i}] has no ${keys.join('/')}`);
    out.add(requirePrefix(feed, item[key], `${where}[${i}].${key}`));
  });
  return out;
}

/** AWS ip-ranges.json: {syncToken, createDate, prefixes[{ip_prefix}], ipv6_prefixes[{ipv6_prefix}]} */
export const parseAwsIpRanges: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const v4 = collect(feed, requireArray(feed, doc.prefixes, 'prefixes'), ['ip_prefix'], 'prefixes');
  const v6Items = requireArray(feed, doc.ipv6_prefixes, 'ipv6_prefixes');
  const v6 = collect(feed, v6Items, ['ipv6_prefix'], 'ipv6_prefixes');
  return finishFeed(feed, new Set([...v4, ...v6]), optionalString(doc.createDate));
};

/** Google cloud.json / goog.json: {syncToken, creationTime, prefixes[{ipv4Prefix|ipv6Prefix}]} */
export const parseGoogleCloud: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const items = requireArray(feed, doc.prefixes, 'prefixes');
  const prefixes = collect(feed, items, ['ipv4Prefix', 'ipv6Prefix'], 'prefixes');
  return finishFeed(feed, prefixes, optionalString(doc.creationTime));
};

/**
 * Azure Service Tags: {changeNumber, cloud, values[{name, properties{addressPrefixes[]}}]}.
 * The `AzureCloud` tag and its regional `AzureCloud.<region>` tags cover the
 * whole public cloud; the other tags are subsets of it. Only when a file lacks
 * them (a filtered download) are all tags taken.
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
    return { name: value.name, list, index: i };
  });
  const whole = tags.filter((t) => t.name === 'AzureCloud' || t.name.startsWith('AzureCloud.'));
  const out = new Set<string>();
  for (const tag of whole.length > 0 ? whole : tags) {
    tag.list.forEach((p, j) => out.add(requirePrefix(feed, p, `values[${tag.index}][${j}]`)));
  }
  return finishFeed(feed, out, optionalString(doc.changeNumber));
};

/** Oracle public_ip_ranges.json: {last_updated_timestamp, regions[{region, cidrs[{cidr, tags}]}]} */
export const parseOracleIpRanges: FeedParser = (body, feed) => {
  const doc = parseJsonObject(feed, body);
  const out = new Set<string>();
  requireArray(feed, doc.regions, 'regions').forEach((region, i) => {
    if (!isRecord(region)) throw new FeedFormatError(feed, `regions[${i}] is not an object`);
    const cidrs = requireArray(feed, region.cidrs, `regions[${i}].cidrs`);
    for (const p of collect(feed, cidrs, ['cidr'], `regions[${i}].cidrs`)) out.add(p);
  });
  return finishFeed(feed, out, optionalString(doc.last_updated_timestamp));
};
