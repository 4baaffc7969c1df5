// Parsers for the plain-text and CSV feeds: CIDR-per-line lists (Cloudflare,
// X4BNet), RFC 8805 geofeeds (DigitalOcean, Linode), Vultr's JSON geofeed and
// the two Tor exit-list formats.
import { FeedFormatError, type FeedParser, type ParsedFeed } from './feed-types.js';
import {
  contentLines,
  isRecord,
  optionalString,
  parseJsonObject,
  requireArray,
  requireNonEmpty,
  requirePrefix,
} from './feed-validate.js';
import { parseIp } from '../../net/ip.js';

function finish(feed: string, prefixes: Iterable<string>, publishedAt: string | null): ParsedFeed {
  const list = [...new Set(prefixes)];
  requireNonEmpty(feed, list);
  return { feed, prefixes: list, publishedAt };
}

/** One CIDR (or bare address) per line: Cloudflare ips-v4/ips-v6, X4BNet output/vpn/ipv4.txt. */
export const parseCidrList: FeedParser = (body, feed) => {
  const lines = contentLines(body);
  return finish(
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
    return finish(feed, prefixes, optionalString(doc.updated));
  }
  const prefixes = contentLines(body).map(({ line, number }) => {
    const fields = line.split(',');
    // RFC 8805 §2.1.1.1: five fields; fewer means a cut line or another format
    if (fields.length < 5) throw new FeedFormatError(feed, `line ${number}: not a geofeed row`);
    return requirePrefix(feed, fields[0], `line ${number}`);
  });
  return finish(feed, prefixes, null);
};

function requireHost(feed: string, text: string | undefined, where: string): string {
  const ip = text === undefined ? null : parseIp(text);
  if (ip === null) throw new FeedFormatError(feed, `${where}: not an IP address`);
  return ip.version === 4 ? `${ip.text}/32` : `${ip.text}/128`;
}

/** check.torproject.org/torbulkexitlist: one exit address per line. */
export const parseTorBulkExitList: FeedParser = (body, feed) => {
  const lines = contentLines(body);
  return finish(
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
  return finish(feed, prefixes, latest);
};
