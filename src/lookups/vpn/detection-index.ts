// Loads every stored feed in DATA_DIR plus the ASN class table into one
// immutable DetectionIndex, and holds the current one for the server. A
// reload builds a complete new index beside the old one and swaps a single
// reference: a request that already took the old snapshot finishes on it,
// and no request ever sees half of an update.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Ip } from '../../net/ip.js';
import { loadAsnClasses, type AsnClassTable } from './asn-classes.js';
import type { DetectionIndex, FeedHit } from './detect.js';
import { deserialiseFeed, FEED_FILE_SUFFIX } from './feed-store.js';
import type { FeedKind, StoredFeed } from './feed-types.js';
import { PrefixIndex } from './prefix-index.js';

export interface LoadedFeedInfo {
  readonly feed: string;
  readonly kind: FeedKind;
  readonly fetchedAt: string;
  readonly publishedAt: string | null;
  readonly prefixes: number;
  readonly ranges: number;
  /** malformed rows the parser skipped (geofeeds) */
  readonly skippedRows: number;
}

export class FeedIndex implements DetectionIndex {
  readonly asnClasses: AsnClassTable;
  readonly feeds: readonly LoadedFeedInfo[];
  /** stored files that were present but unreadable; the server should log them */
  readonly problems: readonly string[];
  private readonly prefixes: PrefixIndex;
  private readonly kinds: ReadonlyMap<string, FeedKind>;

  constructor(stored: readonly StoredFeed[], asnClasses: AsnClassTable, problems: string[] = []) {
    this.prefixes = PrefixIndex.build(stored.map((s) => ({ label: s.feed, prefixes: s.prefixes })));
    const ranges = this.prefixes.rangeCounts();
    this.kinds = new Map(stored.map((s) => [s.feed, s.kind]));
    this.feeds = stored.map((s) => ({
      feed: s.feed,
      kind: s.kind,
      fetchedAt: s.fetchedAt,
      publishedAt: s.publishedAt,
      prefixes: s.prefixes.length,
      ranges: ranges[s.feed] ?? 0,
      skippedRows: s.skippedRows ?? 0,
    }));
    this.asnClasses = asnClasses;
    this.problems = problems;
  }

  /** matchFeeds(ip).length > 0, allocating nothing */
  inAnyFeed(ip: Ip): boolean {
    return this.prefixes.matchesAny(ip);
  }

  matchFeeds(ip: Ip): FeedHit[] {
    return this.prefixes
      .lookup(ip)
      .map((feed) => ({ feed, kind: this.kinds.get(feed) ?? 'hosting' }));
  }
}

export interface DetectionIndexOptions {
  /** folder holding `<id>.feed.json` files; missing folder = no feeds */
  readonly dataDir: string;
  /** defaults to the committed resources/asn-classes.csv */
  readonly asnClassesPath?: string;
}

/** Reads what is there. A damaged feed file is reported and skipped, never fatal. */
export async function loadDetectionIndex(options: DetectionIndexOptions): Promise<FeedIndex> {
  const asnClasses = await (options.asnClassesPath === undefined
    ? loadAsnClasses()
    : loadAsnClasses(options.asnClassesPath));
  const stored: StoredFeed[] = [];
  const problems: string[] = [];
  for (const name of await feedFiles(options.dataDir)) {
    try {
      stored.push(deserialiseFeed(await readFile(join(options.dataDir, name), 'utf8'), name));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return new FeedIndex(stored, asnClasses, problems);
}

async function feedFiles(dataDir: string): Promise<string[]> {
  try {
    const names = await readdir(dataDir);
    return names.filter((n) => n.endsWith(FEED_FILE_SUFFIX)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Names, sizes and mtimes of the feed files: changes whenever the updater renames one in. */
async function feedStamp(dataDir: string): Promise<string> {
  const parts: string[] = [];
  for (const name of await feedFiles(dataDir)) {
    const s = await stat(join(dataDir, name)).catch(() => null);
    if (s !== null) parts.push(`${name}:${s.size}:${s.mtimeMs}`);
  }
  return parts.join('|');
}

export class DetectionIndexHolder {
  private index: FeedIndex;
  private stamp: string;
  private pending: Promise<FeedIndex> | null = null;
  private readonly options: DetectionIndexOptions;

  private constructor(options: DetectionIndexOptions, index: FeedIndex, stamp: string) {
    this.options = options;
    this.index = index;
    this.stamp = stamp;
  }

  static async open(options: DetectionIndexOptions): Promise<DetectionIndexHolder> {
    const stamp = await feedStamp(options.dataDir);
    return new DetectionIndexHolder(options, await loadDetectionIndex(options), stamp);
  }

  /** The snapshot to use for one request: take it once, then use only it. */
  current(): FeedIndex {
    return this.index;
  }

  /**
   * Builds a new index and swaps it in. Concurrent calls share one build.
   * With `ifChanged`, nothing is rebuilt when no feed file changed (cheap
   * enough to call on a timer). On failure the old index stays and the error
   * is thrown to the caller.
   */
  async reload(options: { ifChanged?: boolean } = {}): Promise<FeedIndex> {
    if (this.pending !== null) return this.pending;
    this.pending = (async () => {
      const stamp = await feedStamp(this.options.dataDir);
      if (options.ifChanged === true && stamp === this.stamp) return this.index;
      const next = await loadDetectionIndex(this.options);
      this.index = next;
      this.stamp = stamp;
      return next;
    })();
    try {
      return await this.pending;
    } finally {
      this.pending = null;
    }
  }
}
