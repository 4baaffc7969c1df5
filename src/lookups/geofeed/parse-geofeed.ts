// The RFC 8805 reader: `ip_prefix,alpha2code,region,city,postal_code` per
// line, `#` comments, UTF-8 (a BOM tolerated), LF or CRLF, empty trailing
// fields. Unlike the hosting lists, a geofeed is read row by row: a bad row
// (a prefix that does not parse, a country that is not ISO 3166-1) is
// skipped and counted, and the rest of the feed answers. Only a document
// that is not a geofeed at all (no good row, or more bad rows than good: an
// HTML error page, another format) is refused, and the stored copy stays.
import { parseCidr } from '../../net/cidr-match.js';
import { parseIp } from '../../net/ip.js';
import { isCountryCode } from '../overrides/rows.js';
import { FeedFormatError, type FeedParser } from '../vpn/feeds/feed-types.js';
import { contentLines, requirePrefix } from '../vpn/feeds/feed-validate.js';
import { normalisePublished } from '../vpn/feeds/published-date.js';

/** One row as the feed gives it, its fields trimmed; '' for an empty field. */
export interface GeofeedRow {
  /** normalised CIDR (host bits cleared, bare addresses as /32 or /128) */
  readonly prefix: string;
  readonly country: string;
  /** an ISO 3166-2 shaped code of the row's country (`US-CA`), else '' */
  readonly region: string;
  readonly city: string;
  readonly postal: string;
}

export interface ParsedGeofeed {
  readonly rows: GeofeedRow[];
  /** rows skipped, with the first few reasons */
  readonly skipped: number;
  readonly problems: string[];
  readonly publishedAt: string | null;
}

const TEXT_LIMIT = 200;
const KEPT_PROBLEMS = 10;
/**
 * ISO 3166-1 reserves `UK` for the United Kingdom ("exceptionally
 * reserved"); publishers write it (geofeed-airnity.csv). Read as `GB`.
 */
const COUNTRY_ALIASES: Readonly<Record<string, string>> = { UK: 'GB' };
const REGION = /^([A-Z]{2})-[A-Z0-9]{1,3}$/;

class RowError extends Error {}

/** Reads every row; throws FeedFormatError only when the document is not a geofeed. */
export function readGeofeed(body: string, feed: string): ParsedGeofeed {
  const rows: GeofeedRow[] = [];
  const problems: string[] = [];
  let skipped = 0;
  const lines = contentLines(body);
  for (const { line, number } of lines) {
    try {
      rows.push(readRow(line, feed, number));
    } catch (error) {
      if (!(error instanceof RowError) && !(error instanceof FeedFormatError)) throw error;
      skipped++;
      if (problems.length < KEPT_PROBLEMS) problems.push(`line ${number}: ${error.message}`);
    }
  }
  if (rows.length === 0) {
    throw new FeedFormatError(feed, `no geofeed row (${skipped} bad: ${problems[0] ?? 'empty'})`);
  }
  if (skipped > rows.length) {
    throw new FeedFormatError(
      feed,
      `${skipped} of ${lines.length} rows are not geofeed rows: not an RFC 8805 feed (first: ${problems[0] ?? ''})`,
    );
  }
  return { rows, skipped, problems, publishedAt: lastUpdated(body) };
}

function readRow(line: string, feed: string, number: number): GeofeedRow {
  const fields = line.split(',').map((f) => f.trim());
  const prefix = readPrefix(feed, fields[0] ?? '', number);
  const given = (fields[1] ?? '').toUpperCase();
  const country = COUNTRY_ALIASES[given] ?? given;
  if (country !== '' && !isCountryCode(country)) {
    throw new RowError(`"${clip(fields[1] ?? '')}" is not an ISO 3166-1 alpha-2 country code`);
  }
  const regionText = (fields[2] ?? '').toUpperCase();
  // a region of another shape or of another country is dropped, not the row:
  // the country and the city still stand
  const regionCountry = REGION.exec(regionText)?.[1];
  const region = regionCountry !== undefined && regionCountry === country ? regionText : '';
  const city = text(fields[3] ?? '');
  const postal = text(fields[4] ?? '');
  return { prefix, country, region, city, postal };
}

/** A prefix, or a bare address as the host it names (RFC 8805 §2.1.1.1 asks for a prefix). */
function readPrefix(feed: string, text: string, number: number): string {
  if (!text.includes('/')) {
    const ip = parseIp(text);
    if (ip === null) throw new RowError(`not a prefix: "${clip(text)}"`);
    return ip.version === 4 ? `${ip.text}/32` : `${ip.text}/128`;
  }
  // upper-case IPv6 (`2606:FA40::/32`) is read as lower case by parseCidr
  const cidr = parseCidr(text);
  if (cidr === null) throw new RowError(`not a prefix: "${clip(text)}"`);
  return requirePrefix(feed, text, `line ${number}`);
}

function text(value: string): string {
  if (value.length > TEXT_LIMIT) throw new RowError(`a field longer than ${TEXT_LIMIT} characters`);
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new RowError('a control character');
  return value;
}

function clip(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value;
}

/**
 * The publisher's date from a comment of the head: `# T-Mobile US
 * Geofeed,lastupdated (rfc3339): 2026-01-02T01:11:28-08:00` (T-Mobile,
 * AS213151), `# Airnity Geofeed, last updated  2025-11-14`, Linode's
 * `# Last modified: …`.
 */
function lastUpdated(body: string): string | null {
  const head = body.slice(0, 4096).replace(/^\uFEFF/, '');
  return (
    /^#.*?last\s*(?:updated|modified)(?:\s*\(rfc3339\))?:?\s+(\d{4}-\d{2}-\d{2}[^\s,]*)/im.exec(
      head,
    )?.[1] ?? null
  );
}

/**
 * The feed parser of the registry (kinds `relay` and `geofeed`): every row's
 * prefix, and where the row says it is. A prefix given twice keeps its first
 * row (RFC 8805 §3: a consumer picks one; the first is the publisher's own order).
 */
export const parseGeofeedLocations: FeedParser = (body, feed) => {
  const parsed = readGeofeed(body, feed);
  const prefixes: string[] = [];
  const placeOf: number[] = [];
  const places: [string, string, string][] = [];
  const placeIds = new Map<string, number>();
  const seen = new Set<string>();
  for (const row of parsed.rows) {
    if (seen.has(row.prefix)) continue;
    seen.add(row.prefix);
    prefixes.push(row.prefix);
    if (row.country === '') {
      placeOf.push(-1);
      continue;
    }
    const key = `${row.country}\u0000${row.region}\u0000${row.city}`;
    let id = placeIds.get(key);
    if (id === undefined) {
      id = places.length;
      places.push([row.country, row.region, row.city]);
      placeIds.set(key, id);
    }
    placeOf.push(id);
  }
  return {
    feed,
    prefixes,
    publishedAt: normalisePublished(parsed.publishedAt),
    ...(parsed.skipped > 0 ? { skippedRows: parsed.skipped } : {}),
    locations: { places, placeOf },
  };
};
