// Parsers for the plain-text and CSV feeds: CIDR-per-line lists (Cloudflare,
// X4BNet), RFC 8805 geofeeds (DigitalOcean, Linode), Vultr's JSON geofeed and
// the two Tor exit-list formats.
import { FeedFormatError, type FeedParser } from './feed-types.js';
import {
  contentLines,
  finishFeed,
  isRecord,
  optionalString,
  parseJsonObject,
  requireArray,
  requirePrefix,
} from './feed-validate.js';
import { parseIp } from '../../../net/ip.js';

/**
 * Bad geofeed rows tolerated before the whole document is refused: 1 % of
 * the rows (at least one, at most 1 000). A few are a publisher's slip (RFC
 * 8805 rows with a field dropped); many mean a different document. A download
 * cut short is caught before parsing, by its Content-Length.
 */
export function geofeedSkipBound(rows: number): number {
  return Math.min(1000, Math.max(1, Math.floor(rows / 100)));
}

/** One CIDR (or bare address) per line: Cloudflare ips-v4/ips-v6, X4BNet output/vpn/ipv4.txt. */
export const parseCidrList: FeedParser = (body, feed) => {
  const lines = contentLines(body);
  return finishFeed(
    feed,
    lines.map(({ line, number }) => requirePrefix(feed, line, `line ${number}`)),
    null,
  );
};

/**
 * RFC 8805 geofeed: `ip_prefix,alpha2code,region,city,postal_code`, `#` comments
 * (RFC 8805 §2.1.1). Only the first column matters here. Vultr publishes the
 * same data as JSON (`{updated, subnets[{ip_prefix,…}]}`), accepted as well.
 */
export const parseGeofeed: FeedParser = (body, feed) => {
  if (body.trimStart().startsWith('{')) {
    const doc = parseJsonObject(feed, body);
    const subnets = requireArray(feed, doc.subnets, 'subnets');
    const prefixes = subnets.map((s, i) => {
      if (!isRecord(s)) throw new FeedFormatError(feed, `subnets[${i}] is not an object`);
      return requirePrefix(feed, s.ip_prefix, `subnets[${i}].ip_prefix`);
    });
    return finishFeed(feed, prefixes, optionalString(doc.updated));
  }
  const rows = contentLines(body);
  const prefixes: string[] = [];
  const bad: string[] = [];
  for (const { line, number } of rows) {
    // RFC 8805 §2.1.1.1: five fields, trailing ones possibly empty; a row
    // with fewer (a publisher dropping the postal code) or a prefix that does
    // not parse is skipped and counted
    const fields = line.split(',');
    try {
      if (fields.length < 5) throw new FeedFormatError(feed, `line ${number}: not a geofeed row`);
      prefixes.push(requirePrefix(feed, fields[0], `line ${number}`));
    } catch (error) {
      if (!(error instanceof FeedFormatError)) throw error;
      bad.push(error.message);
    }
  }
  if (bad.length > geofeedSkipBound(rows.length)) {
    throw new FeedFormatError(
      feed,
      `${bad.length} of ${rows.length} rows are not geofeed rows (first: ${bad[0] ?? ''})`,
    );
  }
  const parsed = finishFeed(feed, prefixes, lastModified(body));
  return bad.length > 0 ? { ...parsed, skippedRows: bad.length } : parsed;
};

/** Linode's geofeed opens with `# Last modified: 2025-07-24 10:00:06`. */
function lastModified(body: string): string | null {
  return /^#\s*Last modified:\s*(.+?)\s*$/im.exec(body.slice(0, 2048))?.[1] ?? null;
}

function requireHost(feed: string, text: string | undefined, where: string): string {
  const ip = text === undefined ? null : parseIp(text);
  if (ip === null) throw new FeedFormatError(feed, `${where}: not an IP address`);
  return ip.version === 4 ? `${ip.text}/32` : `${ip.text}/128`;
}

/** check.torproject.org/torbulkexitlist: one exit address per line. */
export const parseTorBulkExitList: FeedParser = (body, feed) => {
  const lines = contentLines(body);
  return finishFeed(
    feed,
    lines.map(({ line, number }) => requireHost(feed, line, `line ${number}`)),
    null,
  );
};

const TORDNSEL_KEYWORDS = new Set(['ExitNode', 'Published', 'LastStatus', 'ExitAddress']);

/**
 * TorDNSEL exit-addresses (tor webwml tordnsel/exitlist-spec.txt): blocks of
 * `ExitNode <fingerprint>`, `Published`, `LastStatus`, then one or more
 * `ExitAddress <ip> <date> <time>`. Any other keyword means a different
 * document, and an ExitAddress before the first ExitNode means a cut head.
 */
export const parseTorExitAddresses: FeedParser = (body, feed) => {
  const prefixes: string[] = [];
  let inNode = false;
  let latest: string | null = null;
  for (const { line, number } of contentLines(body)) {
    const [keyword, ...rest] = line.split(/\s+/);
    if (keyword === undefined || !TORDNSEL_KEYWORDS.has(keyword)) {
      throw new FeedFormatError(feed, `line ${number}: unknown keyword`);
    }
    if (keyword === 'ExitNode') {
      if (!/^[0-9A-F]{40}$/i.test(rest[0] ?? '')) {
        throw new FeedFormatError(feed, `line ${number}: bad fingerprint`);
      }
      inNode = true;
    } else if (!inNode) {
      throw new FeedFormatError(feed, `line ${number}: ${keyword} outside an ExitNode block`);
    } else if (keyword === 'ExitAddress') {
      // a line cut after the address would lose its date: refuse it too
      if (rest.length < 3)
        throw new FeedFormatError(feed, `line ${number}: incomplete ExitAddress`);
      prefixes.push(requireHost(feed, rest[0], `line ${number}`));
      const seen = `${rest[1]} ${rest[2]}`;
      if (latest === null || seen > latest) latest = seen;
    }
  }
  return finishFeed(feed, prefixes, latest);
};
