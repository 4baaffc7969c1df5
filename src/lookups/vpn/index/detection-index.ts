// Loads every stored feed in DATA_DIR plus the ASN class table into one
// immutable DetectionIndex, and holds the current one for the server. A
// reload builds a complete new index beside the old one and swaps a single
// reference: a request that already took the old snapshot finishes on it,
// and no request ever sees half of an update.
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  deriveOrOpen,
  jsonSection,
  readJsonSection,
  readSourceTexts,
  type DerivedLog,
  type DerivedManifest,
  type SourceText,
} from '../../../data/derived-tables.js';
import { fileSignature } from '../../../data/file-signature.js';
import type { Ip } from '../../../net/ip.js';
import { defaultAsnClassesPath, loadAsnClasses, type AsnClassTable } from '../asn-classes.js';
import {
  nameProvider,
  type AsnEvidence,
  type DetectionIndex,
  type FeedHit,
  type FeedMatch,
} from '../detect.js';
import {
  asnEvidence,
  learnVpnNetworks,
  type LearnedNetwork,
  type RoutedSizes,
} from './asn-evidence.js';
import { deserialiseFeed, FEED_FILE_SUFFIX } from '../feeds/feed-store.js';
import type { FeedKind, StoredFeed } from '../feeds/feed-types.js';
import { PrefixIndex, type PrefixIndexParts } from './prefix-index.js';
import type { TableFile } from '../../../data/table-file.js';
import { denseLabels, feedLabels, rangeLabels } from './feed-labels.js';
import type { VpnDenseRule } from './vpn-dense.js';
import type { RoutedRangeOf, VpnRangeRule } from './vpn-ranges.js';
import type { NetworkOfV6 } from './vpn-ranges-v6.js';

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

/** A stored network geofeed, told by its head (the updater writes `format`, `feed`, `kind` first). */
const GEOFEED_FILE = /"kind":"geofeed"/;

/** How long a proxy list's entries count after the list was fetched, unless configured. */
export const DEFAULT_PROXY_MAX_AGE_MS = 48 * 3600_000;

export interface FeedIndexOptions {
  /** a proxy list's entries stop counting this long after its fetch */
  readonly proxyMaxAgeMs?: number;
  readonly now?: () => number;
  /** the ASN table's routed IPv4 ranges; without it no range is expanded */
  readonly routedRange?: RoutedRangeOf;
  /** the ASN table's AS of an IPv6 address; without it no IPv6 /48 is expanded */
  readonly networkOfV6?: NetworkOfV6;
  readonly vpnRangeRule?: VpnRangeRule;
  /** the VPN-dense block rule; without it (or without routedRange) no block is marked */
  readonly vpnDenseRule?: VpnDenseRule;
  /** each AS's routed IPv4 space; without it no AS is learned to be a VPN network */
  readonly routedSizes?: () => RoutedSizes;
}

export class FeedIndex implements DetectionIndex {
  readonly asnClasses: AsnClassTable;
  readonly asnEvidence: ReadonlyMap<number, AsnEvidence>;
  /** the ASes the feeds show to be mostly VPN servers (vpn-asn:<n>) */
  readonly learned: readonly LearnedNetwork[];
  readonly feeds: readonly LoadedFeedInfo[];
  /** stored files that were present but unreadable; the server should log them */
  readonly problems: readonly string[];
  private readonly prefixes: PrefixIndex;
  /** per label set of the prefix index, its answer (precomputed: a lookup allocates nothing) */
  private readonly matches: readonly SetMatch[];
  /** proxy feed → when its entries stop counting (ms since the epoch) */
  private readonly proxyExpiry: ReadonlyMap<string, number>;
  private readonly now: () => number;
  private readonly compiled: CompiledDetection;
  /** opened from a compiled detection file, not built from the feeds */
  readonly opened: boolean;

  /**
   * Built from the stored feeds, or opened from what a build made
   * (toCompiled: the compiled detection file, saveDetection and openDetectionFile below).
   */
  constructor(
    source: readonly StoredFeed[] | CompiledDetection,
    asnClasses: AsnClassTable,
    problems: readonly string[] = [],
    options: FeedIndexOptions = {},
  ) {
    this.opened = isCompiled(source);
    const parts = isCompiled(source) ? source : compileDetection(source, asnClasses, options);
    this.compiled = parts;
    this.learned = parts.learned;
    this.asnEvidence = new Map(parts.asnEvidence);
    this.prefixes = PrefixIndex.fromParts(parts.prefixes);
    const maxAge = options.proxyMaxAgeMs ?? DEFAULT_PROXY_MAX_AGE_MS;
    this.proxyExpiry = new Map(
      parts.proxyFetchedAt.map(([feed, fetchedAt]) => [
        feed,
        (Date.parse(fetchedAt) || 0) + maxAge,
      ]),
    );
    const hitOf = new Map(Object.entries(parts.hits));
    this.matches = this.prefixes.labelSets().map((set) => {
      const hits = set.map((key) => hitOf.get(key)!);
      const proxyUntil = Math.min(
        ...hits.map((h) => (h.kind === 'proxy' ? (this.proxyExpiry.get(h.feed) ?? 0) : Infinity)),
      );
      return { hits, provider: nameProvider(hits), proxyUntil };
    });
    this.now = options.now ?? Date.now;
    this.feeds = parts.feeds;
    this.asnClasses = asnClasses;
    this.problems = problems;
  }

  /** What this index was built from the feeds into: enough to open it again without them. */
  toCompiled(): CompiledDetection {
    return this.compiled;
  }

  /**
   * The id of the set of feeds holding ip (0: none) while its answer is
   * fixed, -1 once a proxy list of it has gone stale (its answer then
   * depends on the time): what record-json.ts keeps verdicts by. One search.
   */
  settledSetOf(ip: Ip): number {
    const set = this.prefixes.setOf(ip);
    const until = this.matches[set]!.proxyUntil;
    return until === Infinity || this.now() <= until ? set : -1;
  }

  /** Where the set of feeds holding an address changes (PrefixIndex.boundaries). */
  boundaries(): { v4: Uint32Array; v6: Uint32Array } {
    return this.prefixes.boundaries();
  }

  /** The match of a set settledSetOf gave (not -1): no search. */
  matchOfSet(set: number): FeedMatch {
    return this.matches[set]!;
  }

  /** The feeds holding ip; a proxy list older than the maximum age no longer counts. */
  matchFeeds(ip: Ip): FeedMatch {
    const match = this.matches[this.prefixes.setOf(ip)]!;
    if (match.proxyUntil === Infinity) return match;
    const now = this.now();
    if (now <= match.proxyUntil) return match;
    // a proxy list of this set is stale: its hits go (they never name a provider)
    const hits = match.hits.filter(
      (h) => h.kind !== 'proxy' || now <= (this.proxyExpiry.get(h.feed) ?? 0),
    );
    return { hits, provider: match.provider };
  }
}

/**
 * A built index in JSON-able parts and typed arrays: what a compiled
 * detection file holds. The proxy lists' expiry is not in it (the age limit
 * is configuration): their fetch times are.
 */
export interface CompiledDetection {
  readonly prefixes: PrefixIndexParts;
  /** each label of the prefix index: what its membership says */
  readonly hits: Readonly<Record<string, FeedHit>>;
  readonly learned: readonly LearnedNetwork[];
  readonly asnEvidence: readonly (readonly [number, AsnEvidence])[];
  readonly feeds: readonly LoadedFeedInfo[];
  readonly proxyFetchedAt: readonly (readonly [string, string])[];
}

function isCompiled(
  source: readonly StoredFeed[] | CompiledDetection,
): source is CompiledDetection {
  return !Array.isArray(source);
}

/** Everything a verdict needs, computed from the stored feeds (the build). */
function compileDetection(
  allStored: readonly StoredFeed[],
  asnClasses: AsnClassTable,
  options: FeedIndexOptions,
): CompiledDetection {
  // a network's geofeed says where its addresses are, nothing detection
  // reads (src/lookups/geofeed/); relay lists stay: they set isRelay
  const stored = allStored.filter((s) => s.kind !== 'geofeed');
  const ranges =
    options.routedRange === undefined
      ? []
      : rangeLabels(
          stored,
          asnClasses,
          options.routedRange,
          options.vpnRangeRule,
          options.networkOfV6,
        );
  const dense =
    options.routedRange === undefined || options.vpnDenseRule === undefined
      ? []
      : denseLabels(
          stored,
          asnClasses,
          options.routedRange,
          options.vpnDenseRule,
          options.vpnRangeRule,
        );
  const labels = [...feedLabels(stored), ...ranges, ...dense];
  const learned =
    options.routedRange === undefined || options.routedSizes === undefined
      ? []
      : learnVpnNetworks(stored, options.routedRange, options.routedSizes, asnClasses);
  const evidence = asnEvidence(stored, learned, asnClasses);
  const prefixes = PrefixIndex.build(labels.map((l) => ({ label: l.key, prefixes: l.prefixes })));
  const runs = prefixes.rangeCounts();
  // a feed's ranges are its labels' (one per provider of a mixed list, one per expanded range)
  const rangesOf = new Map<string, number>();
  for (const l of labels) {
    rangesOf.set(l.hit.feed, (rangesOf.get(l.hit.feed) ?? 0) + (runs[l.key] ?? 0));
  }
  return {
    prefixes: prefixes.toParts(),
    hits: Object.fromEntries(labels.map((l) => [l.key, l.hit])),
    learned,
    asnEvidence: [...evidence],
    feeds: stored.map((s) => ({
      feed: s.feed,
      kind: s.kind,
      fetchedAt: s.fetchedAt,
      publishedAt: s.publishedAt,
      prefixes: s.prefixes.length,
      ranges: rangesOf.get(s.feed) ?? 0,
      skippedRows: s.skippedRows ?? 0,
    })),
    proxyFetchedAt: stored.filter((s) => s.kind === 'proxy').map((s) => [s.feed, s.fetchedAt]),
  };
}

interface SetMatch extends FeedMatch {
  /** when the first of the set's proxy lists stops counting; Infinity: it holds none */
  readonly proxyUntil: number;
}

export interface DetectionIndexOptions {
  /** folder holding `<id>.feed.json` files; missing folder = no feeds */
  readonly dataDir: string;
  /** defaults to the committed resources/asn-classes.csv */
  readonly asnClassesPath?: string;
  /** how long a proxy list's entries count after its fetch (default 48 h) */
  readonly proxyMaxAgeMs?: number;
  /** the ASN table's routed IPv4 ranges, for the vpn-range expansion (none without) */
  readonly routedRange?: RoutedRangeOf;
  /** the ASN table's AS of an IPv6 address, for the IPv6 /48s of the expansion */
  readonly networkOfV6?: NetworkOfV6;
  readonly vpnRangeRule?: VpnRangeRule;
  /** the VPN-dense block rule (vpn-dense.ts); none without */
  readonly vpnDenseRule?: VpnDenseRule;
  readonly routedSizes?: () => RoutedSizes;
  /**
   * Where the built index is kept (DATA_DIR/tables/detection.tables), and
   * what else it was built from that is not a file here (the ASN tables'
   * identity); absent: built at every load, kept nowhere
   */
  readonly compiled?: {
    readonly path: string;
    readonly inputs: () => unknown;
    /** told when the file cannot be written */
    readonly log: DerivedLog;
  };
}

/**
 * Bumped whenever a build would make another index from the same feeds,
 * ASN classes, ASN tables and rules: compiled detection files of another
 * version are built again.
 */
export const DETECTION_COMPILER = 1;

/** The compiled detection index's file name in DATA_DIR/tables. */
export const DETECTION_TABLES = 'detection.tables';

interface DetectionManifest extends DerivedManifest {
  readonly kind: 'detection';
  readonly compiledAt: string;
  readonly problems: readonly string[];
  /** the JSON section's parts (CompiledDetection but its typed arrays) */
  readonly counts: { readonly sets: number; readonly v4: number; readonly v6: number };
}

/**
 * Reads what is there. A damaged feed file is reported and skipped, never
 * fatal. With `compiled`, the index is opened from its file when the file's
 * key is the one the feed files, the ASN classes and `compiled.inputs` give
 * now (no feed is parsed), else built and the file written for next time.
 */
export async function loadDetectionIndex(options: DetectionIndexOptions): Promise<FeedIndex> {
  const { proxyMaxAgeMs, routedRange, networkOfV6, vpnRangeRule, vpnDenseRule, routedSizes } =
    options;
  const indexOptions: FeedIndexOptions = {
    ...(proxyMaxAgeMs === undefined ? {} : { proxyMaxAgeMs }),
    ...(routedSizes === undefined ? {} : { routedSizes }),
    ...(routedRange === undefined ? {} : { routedRange }),
    ...(networkOfV6 === undefined ? {} : { networkOfV6 }),
    ...(vpnRangeRule === undefined ? {} : { vpnRangeRule }),
    ...(vpnDenseRule === undefined ? {} : { vpnDenseRule }),
  };
  const classesPath = options.asnClassesPath ?? defaultAsnClassesPath();
  const asnClasses = await loadAsnClasses(classesPath);
  const feedPaths = (await feedFiles(options.dataDir)).map((n) => join(options.dataDir, n));
  // no feed: nothing worth keeping (and nothing written to a fresh DATA_DIR)
  const compiled = feedPaths.length === 0 ? undefined : options.compiled;
  const feedNames = new Set(feedPaths.map((path) => basename(path)));
  const { value } = await deriveOrOpen({
    file: compiled,
    // the ASN classes are a source too (their name is no feed's)
    sources: [classesPath, ...feedPaths],
    inputs: () => ({
      compiler: DETECTION_COMPILER,
      inputs: compiled?.inputs(),
      rules: { vpnRangeRule, vpnDenseRule, ranges: routedRange !== undefined },
    }),
    open: (file: TableFile<DetectionManifest>) => openDetectionFile(file, asnClasses, indexOptions),
    derive: (texts) => {
      // the feeds' texts (the ASN classes are parsed above)
      const { stored, problems } = parseStoredFeeds(
        texts.filter(({ name }) => feedNames.has(name)),
      );
      return new FeedIndex(stored, asnClasses, problems, indexOptions);
    },
    keep: keptDetection,
  });
  return value;
}

/** What the compiled detection file keeps of an index. */
function keptDetection(index: FeedIndex) {
  const { prefixes, ...rest } = index.toCompiled();
  const { v4Starts, v4Sets, v6Starts, v6Sets, sets, runs } = prefixes;
  const manifest: Omit<DetectionManifest, keyof DerivedManifest> = {
    kind: 'detection',
    compiledAt: new Date().toISOString(),
    problems: index.problems,
    counts: { sets: sets.length, v4: v4Starts.length, v6: v6Starts.length / 4 },
  };
  const sections = {
    v4Starts,
    v4Sets,
    v6Starts,
    v6Sets,
    index: jsonSection({ ...rest, sets, runs }),
  };
  return { manifest, sections };
}

/** A compiled detection file's index (throws on a damaged one). */
function openDetectionFile(
  file: TableFile<DetectionManifest>,
  asnClasses: AsnClassTable,
  options: FeedIndexOptions,
): FeedIndex {
  const { sets, runs, ...rest } = readJsonSection<
    Omit<CompiledDetection, 'prefixes'> & Pick<PrefixIndexParts, 'sets' | 'runs'>
  >(file, 'index');
  const prefixes = {
    v4Starts: file.u32('v4Starts'),
    v4Sets: file.u32('v4Sets'),
    v6Starts: file.u32('v6Starts'),
    v6Sets: file.u32('v6Sets'),
    sets,
    runs,
  };
  return new FeedIndex({ ...rest, prefixes }, asnClasses, file.manifest.problems, options);
}

/** The feed files detection reads among `texts`: all but networks' geofeeds (told by their head), parsed. */
function parseStoredFeeds(texts: readonly SourceText[]): {
  stored: StoredFeed[];
  problems: string[];
} {
  const stored: StoredFeed[] = [];
  const problems: string[] = [];
  for (const { name, text } of texts) {
    // a network's geofeed is read by src/lookups/geofeed/ alone: nothing here uses it
    if (GEOFEED_FILE.test(text.slice(0, 400))) continue;
    try {
      stored.push(deserialiseFeed(text, name));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  return { stored, problems };
}

/** The feed files of a folder, parsed; a damaged one is a problem, not an error. */
export async function readStoredFeeds(
  dataDir: string,
): Promise<{ stored: StoredFeed[]; problems: string[] }> {
  const paths = (await feedFiles(dataDir)).map((n) => join(dataDir, n));
  return parseStoredFeeds(await readSourceTexts(paths));
}

export async function feedFiles(dataDir: string): Promise<string[]> {
  try {
    const names = await readdir(dataDir);
    return names.filter((n) => n.endsWith(FEED_FILE_SUFFIX)).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Names and file signatures of the feed files: changes whenever the updater renames one in. */
export async function feedStamp(dataDir: string): Promise<string> {
  const parts: string[] = [];
  for (const name of await feedFiles(dataDir)) {
    const s = await stat(join(dataDir, name)).catch(() => null);
    if (s !== null) parts.push(`${name}:${fileSignature(s)}`);
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
