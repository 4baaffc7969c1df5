// Validation shared by every feed parser. A feed is all-or-nothing: one
// unreadable entry means the document is not what we think it is (an HTML
// error page, a truncated download, a changed format), so the whole file is
// refused and the previous copy stays in use.
import { parseCidr } from '../../../net/cidr-match.js';
import { FeedFormatError, type ParsedFeed } from './feed-types.js';
import { normalisePublished } from './published-date.js';
import { packCanonicalV4 } from '../index/prefix-events.js';

/**
 * Normalises one prefix or throws, naming the feed and the offending entry.
 * Two extra checks catch a text line cut short that still parses: host bits
 * set ("104.16.0.0/1" from "104.16.0.0/13") and implausibly wide prefixes
 * (nobody publishes shorter than /8 or /16; one would mark a continent).
 */
export function requirePrefix(feed: string, text: unknown, where: string): string {
  if (typeof text !== 'string') throw new FeedFormatError(feed, `${where}: prefix is not a string`);
  // the canonical IPv4 form (what the updater stores, what most lists publish)
  // passes without parsing: a load reads tens of thousands of them
  const packed = packCanonicalV4(text);
  if (packed >= 0 && packed % 64 >= MIN_V4) return text;
  const trimmed = text.trim();
  const cidr = parseCidr(trimmed);
  if (cidr === null) throw new FeedFormatError(feed, `${where}: not a CIDR: ${quote(text)}`);
  const slash = trimmed.indexOf('/');
  const host = parseCidr(slash === -1 ? trimmed : trimmed.slice(0, slash));
  if (host === null || host.network.some((part, i) => part !== cidr.network[i])) {
    throw new FeedFormatError(feed, `${where}: host bits set: ${quote(text)}`);
  }
  if (cidr.prefixLength < (cidr.version === 4 ? MIN_V4 : MIN_V6)) {
    throw new FeedFormatError(feed, `${where}: implausibly wide prefix: ${quote(text)}`);
  }
  return cidr.text;
}

const MIN_V4 = 8;
const MIN_V6 = 16;

/** An empty feed is refused: every published list we use has at least one entry. */
export function requireNonEmpty(feed: string, prefixes: readonly string[]): void {
  if (prefixes.length === 0) throw new FeedFormatError(feed, 'no prefixes found');
}

/** A parser's result: its prefixes once each (refused when there are none), its date normalised. */
export function finishFeed(
  feed: string,
  prefixes: Iterable<string>,
  publishedAt: string | null,
): ParsedFeed {
  const list = [...new Set(prefixes)];
  requireNonEmpty(feed, list);
  return { feed, prefixes: list, publishedAt: normalisePublished(publishedAt) };
}

export function parseJsonObject(feed: string, body: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    // a download cut short almost always ends up here
    throw new FeedFormatError(feed, 'not valid JSON (truncated or not JSON)', { cause: error });
  }
  if (!isRecord(value)) throw new FeedFormatError(feed, 'JSON document is not an object');
  return value;
}

/** A JSON document that must be an array (NordVPN, Mullvad's website list, monosans). */
export function parseJsonArray(feed: string, body: string): unknown[] {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    throw new FeedFormatError(feed, 'not valid JSON (truncated or not JSON)', { cause: error });
  }
  return requireArray(feed, value, 'the document');
}

export function requireRecord(
  feed: string,
  value: unknown,
  where: string,
): Record<string, unknown> {
  if (!isRecord(value)) throw new FeedFormatError(feed, `${where} is not an object`);
  return value;
}

export function requireArray(feed: string, value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new FeedFormatError(feed, `${where} is missing or not an array`);
  return value as unknown[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function optionalString(value: unknown): string | null {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : null;
}

/**
 * Non-blank, non-comment lines with their 1-based line numbers. A text feed
 * whose last line has no newline is normal (Cloudflare's lists end so), so
 * truncation is caught by the entry check, not by the missing newline.
 */
export function contentLines(body: string): { line: string; number: number }[] {
  const out: { line: string; number: number }[] = [];
  const lines = body.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('#')) out.push({ line, number: index + 1 });
  });
  return out;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text);
}
