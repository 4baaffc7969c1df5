// Fetches every configured feed, validates it with its parser and replaces the
// stored copy atomically (temp file in the same folder, then rename, which is
// atomic on one filesystem). Any failure keeps the previous file, so a bad
// day at a provider never empties the index.
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import { downloadDocument, DownloadError, type FetchLike } from './feed-download.js';
import { feedFileName, serialiseFeed } from './feed-store.js';
import { FeedFormatError, type FeedKind, type FeedParser } from './feed-types.js';
import { withResolved, type Resolution } from './resolve-hosts.js';

export interface FeedSpec {
  readonly id: string;
  readonly url: string;
  readonly kind: FeedKind;
  readonly parser: FeedParser;
  /** fewer prefixes than this means a broken publication (default 1) */
  readonly minPrefixes?: number;
  /**
   * When set, `url` is a web page and the feed is the first link in it matching
   * this pattern (Azure publishes a new file name every week).
   */
  readonly linkPattern?: RegExp;
  /** the VPN service of every address in a one-provider list (a providers.ts id) */
  readonly provider?: string;
  /**
   * More documents of the same format, fetched after `url` and read as one
   * body (lord-alfred/ipranges publishes one file per provider). An
   * overridden URL replaces all of them.
   */
  readonly moreUrls?: readonly string[];
}

export type FeedProgress =
  | { readonly feed: string; readonly phase: 'start'; readonly url: string }
  | { readonly feed: string; readonly phase: 'bytes'; readonly bytes: number }
  | {
      readonly feed: string;
      readonly phase: 'done';
      readonly bytes: number;
      readonly prefixes: number;
    }
  | {
      readonly feed: string;
      readonly phase: 'failed';
      readonly bytes: number;
      readonly error: string;
    };

export interface UpdateOptions {
  readonly dataDir: string;
  readonly feeds: readonly FeedSpec[];
  readonly fetch?: FetchLike;
  /** per feed, whole download (default 60 s) */
  readonly timeoutMs?: number;
  /** per feed (default 64 MiB; Azure's file is ~5 MB, AWS's ~2 MB) */
  readonly maxBytes?: number;
  readonly onProgress?: (event: FeedProgress) => void;
  readonly now?: () => Date;
  /**
   * Resolves a feed's server host names (gluetun's) to today's addresses, which
   * are added to it; without it names stay unresolved
   */
  readonly resolveHosts?: (names: readonly string[]) => Promise<Resolution>;
}

export interface FeedResult {
  readonly feed: string;
  readonly ok: boolean;
  readonly bytes: number;
  readonly prefixes: number | null;
  readonly error: string | null;
  /** the stored file (new on success, the previous one or null on failure) */
  readonly file: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/** Feeds run one after another: they are few, and it keeps memory at one file. */
export async function updateFeeds(options: UpdateOptions): Promise<FeedResult[]> {
  await mkdir(options.dataDir, { recursive: true });
  const results: FeedResult[] = [];
  for (const spec of options.feeds) results.push(await updateOne(spec, options));
  return results;
}

async function updateOne(spec: FeedSpec, options: UpdateOptions): Promise<FeedResult> {
  const file = join(options.dataDir, feedFileName(spec.id));
  const progress = options.onProgress ?? (() => undefined);
  const limits = {
    fetch: options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES,
    onBytes: (bytes: number) => progress({ feed: spec.id, phase: 'bytes', bytes }),
  };
  let bytes = 0;
  progress({ feed: spec.id, phase: 'start', url: spec.url });
  // one deadline and one byte budget for the feed, however many documents it
  // takes (a link page, lord-alfred's six provider files): each download gets
  // what is left of them
  const deadline = performance.now() + limits.timeoutMs;
  let fetched = 0;
  // the server's date of the feed's document (its first, after a link page)
  let lastModified: string | null = null;
  const next = async (documentUrl: string): Promise<string> => {
    const document = await downloadDocument(documentUrl, {
      ...limits,
      timeoutMs: Math.max(1, Math.ceil(deadline - performance.now())),
      maxBytes: Math.max(0, limits.maxBytes - fetched),
    });
    fetched += Buffer.byteLength(document.text);
    lastModified = document.lastModified;
    return document.text;
  };
  try {
    let url = spec.url;
    if (spec.linkPattern !== undefined) url = findLink(spec, await next(url));
    let body = await next(url);
    const modified = httpDate(lastModified);
    for (const more of spec.moreUrls ?? []) body += `\n${await next(more)}`;
    bytes = Buffer.byteLength(body);
    let parsed = spec.parser(body, spec.id);
    if (options.resolveHosts !== undefined && (parsed.hostNames?.length ?? 0) > 0) {
      parsed = withResolved(parsed, await options.resolveHosts(parsed.hostNames ?? []));
    }
    const min = spec.minPrefixes ?? 1;
    // an ASN list's entries are AS numbers, not prefixes
    const entries = parsed.prefixes.length + (parsed.asns?.length ?? 0);
    if (entries < min) {
      throw new FeedFormatError(spec.id, `only ${entries} prefixes, expected ≥ ${min}`);
    }
    const fetchedAt = (options.now ?? (() => new Date()))().toISOString();
    const stored = { format: 'ipintel-feed/1' as const, feed: spec.id, kind: spec.kind, url };
    const text = serialiseFeed({
      ...stored,
      fetchedAt,
      publishedAt: parsed.publishedAt,
      ...(modified !== null ? { lastModified: modified } : {}),
      prefixes: parsed.prefixes,
      ...(parsed.skippedRows !== undefined ? { skippedRows: parsed.skippedRows } : {}),
      ...(spec.provider !== undefined ? { provider: spec.provider } : {}),
      ...(parsed.providers !== undefined ? { providers: [...parsed.providers] } : {}),
      ...(parsed.locations !== undefined ? parsed.locations : {}),
      ...(parsed.regions !== undefined ? parsed.regions : {}),
      ...(parsed.asns !== undefined ? { asns: [...parsed.asns] } : {}),
    });
    await writeFileAtomic(file, text);
    progress({ feed: spec.id, phase: 'done', bytes, prefixes: entries });
    return { feed: spec.id, ok: true, bytes, prefixes: entries, error: null, file };
  } catch (error) {
    if (error instanceof DownloadError) bytes = error.bytes;
    const message = error instanceof Error ? error.message : String(error);
    progress({ feed: spec.id, phase: 'failed', bytes, error: message });
    return { feed: spec.id, ok: false, bytes, prefixes: null, error: message, file };
  }
}

/** An HTTP date (`Tue, 18 Aug 2026 12:04:10 GMT`) as ISO 8601 UTC; null when absent or not a date. */
function httpDate(text: string | null): string | null {
  const ms = text === null ? NaN : Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

function findLink(spec: FeedSpec, page: string): string {
  const match = spec.linkPattern?.exec(page);
  if (match === null || match === undefined) {
    throw new FeedFormatError(spec.id, 'no download link found on the page');
  }
  return new URL(match[0], spec.url).toString();
}
