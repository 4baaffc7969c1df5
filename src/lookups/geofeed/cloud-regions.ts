// The clouds' own regions as places (docs/data.md, "Cloud regions"). AWS,
// Google Cloud, Azure and Oracle name the region of every prefix in the
// range files the detection feeds load; resources/cloud-regions.csv says
// where each region is, as the provider's documentation names it, one row
// per region (never per prefix). A stored cloud feed becomes a feed of rows
// like a geofeed's (country, ISO 3166-2 subdivision, city), resolved to a
// point and time zone by the same PlaceResolver and compiled into the same
// table, answering only where no geofeed does (geofeed-index.ts).
//
// The table is ours and committed: a malformed row throws at the build,
// naming its line. A region the table does not list is not placed and is
// reported as a problem (a provider opened a region since the table was
// written); a global or anycast scope (a row without a country) is skipped
// silently.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../kit/project-root.js';
import { eachTableRow } from '../geoip/asn-csv.js';

/** The cloud feeds whose prefixes carry a region, by feed id (default-feeds.ts). */
export const CLOUD_REGION_FEEDS: ReadonlySet<string> = new Set(['aws', 'gcp', 'azure', 'oracle']);

/** The providers' names, for GET /'s locationSources. */
export const CLOUD_PROVIDER_NAMES: Readonly<Record<string, string>> = {
  aws: 'Amazon Web Services',
  gcp: 'Google Cloud',
  azure: 'Microsoft Azure',
  oracle: 'Oracle Cloud Infrastructure',
};

/** One region of the table: where the provider's documentation says it is. */
export interface CloudRegion {
  readonly provider: string;
  readonly region: string;
  /** ISO 3166-1 alpha-2; '' for a global or anycast scope (never placed) */
  readonly country: string;
  /** ISO 3166-2, or '' where the documentation names only the country */
  readonly subdivision: string;
  /** the metro's principal city, or '' where the documentation names none */
  readonly city: string;
  /** the location as the documentation writes it */
  readonly documented: string;
  /** the documentation page */
  readonly source: string;
}

/** provider → region code → row */
export type CloudRegionTable = ReadonlyMap<string, ReadonlyMap<string, CloudRegion>>;

const HEADER = 'provider,region,country,subdivision,city,documented,source';

/** The committed table, in the installation (src/, dist/src/ and dist/bundle/ alike). */
export function defaultCloudRegionsPath(): string {
  return join(PROJECT_ROOT, 'resources', 'cloud-regions.csv');
}

/** Parses the table's text; throws naming the line on the first bad or repeated row. */
export function parseCloudRegions(text: string): CloudRegionTable {
  const table = new Map<string, Map<string, CloudRegion>>();
  eachTableRow(text, 'cloud-regions.csv', HEADER, 7, (fields, where) => {
    const [provider, region, country, subdivision, city, documented, source] = fields as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const problem = rowProblem({ provider, region, country, subdivision, city, source });
    if (problem !== null) throw new Error(`${where}: ${problem}`);
    const regions = table.get(provider) ?? new Map<string, CloudRegion>();
    if (regions.has(region)) throw new Error(`${where}: ${provider} ${region} listed twice`);
    regions.set(region, { provider, region, country, subdivision, city, documented, source });
    table.set(provider, regions);
  });
  return table;
}

function rowProblem(row: Omit<CloudRegion, 'documented'>): string | null {
  const { provider, region, country, subdivision, city, source } = row;
  if (!CLOUD_REGION_FEEDS.has(provider)) return `unknown provider ${JSON.stringify(provider)}`;
  if (!/^[A-Za-z0-9-]+$/.test(region)) return `bad region ${JSON.stringify(region)}`;
  if (country !== '' && !/^[A-Z]{2}$/.test(country)) return `bad country ${country}`;
  if (subdivision !== '' && !new RegExp(`^${country}-[A-Z0-9]{1,3}$`).test(subdivision)) {
    return `subdivision ${subdivision} is not one of ${country || 'no country'}`;
  }
  if (country === '' && city !== '') return 'a city without a country';
  if (!/^https:\/\/\S+$/.test(source)) return 'the source is not an https URL';
  return null;
}

export function loadCloudRegions(path = defaultCloudRegionsPath()): CloudRegionTable {
  return parseCloudRegions(readFileSync(path, 'utf8'));
}

/** A stored cloud feed's prefixes with their regions (feed-types.ts, StoredFeed.regions). */
export interface RegionedFeed {
  readonly feed: string;
  readonly fetchedAt: string;
  readonly publishedAt: string | null;
  readonly prefixes: readonly string[];
  readonly regions: readonly string[];
  /** per prefix, an index in `regions`; -1: the file names no region for it */
  readonly regionOf: readonly number[];
}

/** A cloud feed as geofeed rows: its placed prefixes, each with its region's place. */
export interface CloudPlacedFeed {
  readonly feed: string;
  readonly kind: 'cloud-region';
  readonly fetchedAt: string;
  readonly publishedAt: string | null;
  readonly prefixes: string[];
  readonly places: (readonly [string, string, string])[];
  readonly placeOf: number[];
  /** prefixes left unplaced: a global scope or a region the table lacks */
  readonly skippedRows: number;
}

/**
 * The feed's prefixes placed by the table. Problems: one line per region the
 * table does not list (with its prefix count), for the log.
 */
export function placeCloudFeed(
  feed: RegionedFeed,
  table: CloudRegionTable,
): { placed: CloudPlacedFeed; problems: string[] } {
  const rows = table.get(feed.feed) ?? new Map<string, CloudRegion>();
  const places: (readonly [string, string, string])[] = [];
  const placeIndex = new Map<string, number>();
  // per region index: its place index (regions in one place share it), or -1 (not placed)
  const placeOfRegion = feed.regions.map((name) => {
    const row = rows.get(name);
    if (row === undefined || row.country === '') return -1;
    const key = `${row.country}|${row.subdivision}|${row.city}`;
    let at = placeIndex.get(key);
    if (at === undefined) {
      at = places.push([row.country, row.subdivision, row.city]) - 1;
      placeIndex.set(key, at);
    }
    return at;
  });
  const unknown = new Map<string, number>();
  const prefixes: string[] = [];
  const placeOf: number[] = [];
  feed.prefixes.forEach((prefix, i) => {
    const region = feed.regionOf[i] ?? -1;
    const place = region === -1 ? -1 : (placeOfRegion[region] ?? -1);
    if (place !== -1) {
      prefixes.push(prefix);
      placeOf.push(place);
      return;
    }
    const name = feed.regions[region];
    if (name !== undefined && !rows.has(name)) unknown.set(name, (unknown.get(name) ?? 0) + 1);
  });
  const problems = [...unknown].map(
    ([name, count]) =>
      `${feed.feed}: region ${name} (${count} prefixes) is not in resources/cloud-regions.csv; its prefixes are not placed`,
  );
  const placed: CloudPlacedFeed = {
    feed: feed.feed,
    kind: 'cloud-region',
    fetchedAt: feed.fetchedAt,
    publishedAt: feed.publishedAt,
    prefixes,
    places,
    placeOf,
    skippedRows: feed.prefixes.length - prefixes.length,
  };
  return { placed, problems };
}
