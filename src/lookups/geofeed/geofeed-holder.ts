// Holds the compiled geofeeds of DATA_DIR/feeds and rebuilds them off the
// request path when a feed file changes (the updater renamed one in) or the
// GeoIP data is replaced (the places are resolved against it). A rebuild
// makes a whole new index beside the one answering and swaps one reference.
//
// What a build makes is kept in DATA_DIR/tables/geofeeds.tables
// (derived-tables.ts), keyed by the SHA-256 of every relay and geofeed file,
// the GeoIP tables' identity and GEOFEED_COMPILER: a start or reload whose
// sources give the same key opens that file and parses no feed.
//
// The clouds' range files (aws, gcp, azure, oracle: kind `hosting`, with the
// region of each prefix) are placed by resources/cloud-regions.csv
// (cloud-regions.ts) into the same index, under the geofeeds; the table's
// file is one of the key's sources.
import { basename, join } from 'node:path';
import { tablesIdentity, type CompiledSet } from '../geoip/compiled-set.js';
import {
  deriveOrOpen,
  rangeTableOf,
  rangeTableSections,
  readSourceTexts,
  type DerivedLog,
  type DerivedManifest,
  type SourceText,
} from '../../data/derived-tables.js';
import type { TableFile } from '../../data/table-file.js';
import { feedFiles, feedStamp } from '../vpn/index/detection-index.js';
import { assertFeedId, feedsDir } from '../vpn/feeds/feed-store.js';
import { FeedFormatError, type StoredFeed } from '../vpn/feeds/feed-types.js';
import {
  CLOUD_REGION_FEEDS,
  defaultCloudRegionsPath,
  parseCloudRegions,
  placeCloudFeed,
  type RegionedFeed,
} from './cloud-regions.js';
import {
  GeofeedIndex,
  type GeofeedInfo,
  type GeofeedParts,
  type PlacedFeed,
} from './geofeed-index.js';
import { PlaceResolver } from './place-resolve.js';
import { subdivisionNames, type SubdivisionNames } from './subdivision-names.js';

/** The stored file's kind, read from its head: the updater writes `format`, `feed`, `kind` first. */
const GEOFEED_KIND = /"kind":"(relay|geofeed)"/;
/** A cloud range file whose prefixes name their region, told by its head the same way. */
const CLOUD_FEED = new RegExp(`"feed":"(${[...CLOUD_REGION_FEEDS].join('|')})","kind":"hosting"`);

/**
 * Bumped whenever a build would make other answers from the same feeds and
 * GeoIP tables (place-resolve.ts's rules, subdivision-names.ts's tables):
 * compiled geofeeds of another version are built again.
 */
export const GEOFEED_COMPILER = 2;

/** The compiled geofeeds' file name in DATA_DIR/tables. */
export const GEOFEEDS_TABLES = 'geofeeds.tables';

export interface GeofeedSources {
  /** folder of `<id>.feed.json` files; a missing folder means no geofeeds */
  readonly feedsDir: string;
  /** the GeoIP data set answering now (places are resolved against its locations) */
  readonly geoip: () => CompiledSet | null;
  /**
   * where the compiled geofeeds are kept, and where to say the file cannot be
   * written; absent: built at every load, kept nowhere
   */
  readonly compiled?: { readonly path: string; readonly log: DerivedLog };
  /** the cloud regions table (default: the committed resources/cloud-regions.csv) */
  readonly cloudRegions?: string;
}

interface GeofeedManifest extends DerivedManifest {
  readonly kind: 'geofeeds';
  readonly compiledAt: string;
  readonly feeds: readonly GeofeedInfo[];
  /** the feeds the answers name (GeofeedParts.sources) */
  readonly sources: GeofeedParts['sources'];
  /** the stored files that could not be read (reported again at each load) */
  readonly problems: readonly string[];
}

export class GeofeedHolder {
  current: GeofeedIndex;
  /** whether the last load built the index from the feeds (not opened from the compiled file) */
  built = false;
  /** stored geofeed files that could not be read (logged by the caller) */
  problems: readonly string[] = [];
  private stamp = '';
  private builtFor: CompiledSet | null = null;
  private pending: Promise<GeofeedIndex> | null = null;

  private constructor(private readonly sources: GeofeedSources) {
    this.current = GeofeedIndex.empty();
  }

  static async open(sources: GeofeedSources): Promise<GeofeedHolder> {
    const holder = new GeofeedHolder(sources);
    await holder.reload();
    return holder;
  }

  /** A holder with nothing loaded (tests, the CLI without DATA_DIR feeds). */
  static none(): GeofeedHolder {
    return new GeofeedHolder({ feedsDir: '', geoip: () => null });
  }

  /**
   * Rebuilds and swaps in; with `ifChanged`, only when a feed file or the
   * GeoIP data changed. Concurrent calls share one build; on failure the
   * index answering stays and the error goes to the caller.
   */
  async reload(options: { ifChanged?: boolean } = {}): Promise<GeofeedIndex> {
    if (this.pending !== null) return this.pending;
    this.pending = (async () => {
      const stamp = await feedStamp(this.sources.feedsDir);
      const geoip = this.sources.geoip();
      if (options.ifChanged === true && stamp === this.stamp && geoip === this.builtFor) {
        return this.current;
      }
      const { next, problems, built } = await compiledGeofeeds(this.sources, geoip);
      this.current = next;
      this.built = built;
      this.problems = problems;
      this.stamp = stamp;
      this.builtFor = geoip;
      return next;
    })();
    try {
      return await this.pending;
    } finally {
      this.pending = null;
    }
  }
}

/**
 * The geofeeds of the sources: the compiled file when its key is the one the
 * feed files and the GeoIP tables give now, else built (and the file written
 * for the next load).
 */
async function compiledGeofeeds(
  sources: GeofeedSources,
  geoip: CompiledSet | null,
): Promise<{ next: GeofeedIndex; problems: readonly string[]; built: boolean }> {
  const dir = sources.feedsDir;
  const names = await feedFiles(dir);
  // no feed: nothing to resolve, nothing to keep
  if (names.length === 0) return { next: GeofeedIndex.empty(), problems: [], built: false };
  const regionsFile = sources.cloudRegions ?? defaultCloudRegionsPath();
  const { value, derived } = await deriveOrOpen({
    // every feed file counts (one read of each head would cost what it saves)
    file: sources.compiled,
    sources: [...names.map((n) => join(dir, n)), regionsFile],
    inputs: () => ({ compiler: GEOFEED_COMPILER, geoip: tablesIdentity(geoip) }),
    open: openGeofeedsFile,
    derive: async (texts) => {
      const { stored, problems } = parseGeofeeds(texts, regionsFile);
      const next =
        stored.length === 0
          ? GeofeedIndex.empty()
          : GeofeedIndex.build(stored, placeResolver(geoip, await subdivisionNames()));
      return { next, problems };
    },
    keep: keptGeofeeds,
  });
  return { ...value, built: derived };
}

/** What the compiled geofeeds file keeps of an index. */
function keptGeofeeds({ next, problems }: { next: GeofeedIndex; problems: readonly string[] }) {
  const parts = next.toParts();
  const manifest: Omit<GeofeedManifest, keyof DerivedManifest> = {
    kind: 'geofeeds',
    compiledAt: new Date().toISOString(),
    feeds: parts.feeds,
    sources: parts.sources,
    problems,
  };
  const { coordinates } = parts;
  const sections = {
    ...rangeTableSections(parts.table),
    placeAt: parts.placeAt,
    placeBytes: parts.placeBytes,
    coordinates: new Uint32Array(coordinates.buffer, coordinates.byteOffset, coordinates.length),
    sourceOf: parts.sourceOf,
  };
  return { manifest, sections };
}

function placeResolver(geoip: CompiledSet | null, names: SubdivisionNames) {
  return (places: readonly (readonly [string, string, string])[]) =>
    new PlaceResolver(geoip, places, names);
}

/** A compiled geofeeds file's index (throws on a damaged one). */
function openGeofeedsFile(file: TableFile<GeofeedManifest>): {
  next: GeofeedIndex;
  problems: readonly string[];
} {
  const { feeds, problems, sources } = file.manifest;
  const coordinates = file.u32('coordinates');
  const next = GeofeedIndex.fromParts({
    table: rangeTableOf(file),
    placeAt: file.u32('placeAt'),
    placeBytes: file.u8('placeBytes'),
    coordinates: new Int32Array(coordinates.buffer, coordinates.byteOffset, coordinates.length),
    sourceOf: file.u32('sourceOf'),
    sources,
    feeds,
  });
  return { next, problems };
}

/**
 * The relay and geofeed files among `texts` (told by their head), parsed,
 * and the cloud range files placed by the regions table (the text named
 * `regionsFile`, when one is among them); a damaged file or a region the
 * table lacks is a problem.
 */
function parseGeofeeds(
  texts: readonly SourceText[],
  regionsFile?: string,
): {
  stored: PlacedFeed[];
  problems: string[];
} {
  const stored: PlacedFeed[] = [];
  const problems: string[] = [];
  const clouds: RegionedFeed[] = [];
  for (const { name, text } of texts) {
    const head = text.slice(0, 400);
    const cloud = regionsFile !== undefined && CLOUD_FEED.test(head);
    if (!cloud && !GEOFEED_KIND.test(head)) continue;
    try {
      if (!cloud) stored.push(readGeofeedFile(text, name));
      else clouds.push(readRegionedFile(text, name));
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  // texts are named by their file's name; no feed file is named like the table
  const table =
    regionsFile === undefined ? undefined : texts.find((t) => t.name === basename(regionsFile));
  if (table !== undefined && clouds.length > 0) {
    // the table is committed with the code: a bad row is a bug, thrown
    const regions = parseCloudRegions(table.text);
    for (const feed of clouds) {
      const { placed, problems: unknown } = placeCloudFeed(feed, regions);
      if (placed.prefixes.length > 0) stored.push(placed);
      problems.push(...unknown);
    }
  }
  return { stored, problems };
}

/** A stored feed file's JSON, its fields unchecked (a damaged file: FeedFormatError). */
function storedDoc(text: string, name: string): Partial<Record<keyof StoredFeed, unknown>> {
  try {
    return JSON.parse(text) as Partial<Record<keyof StoredFeed, unknown>>;
  } catch (error) {
    throw new FeedFormatError(name, 'stored feed is not valid JSON', { cause: error });
  }
}

const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A stored cloud range file's prefixes and regions (none: a file stored before regions were kept). */
function readRegionedFile(text: string, name: string): RegionedFeed {
  const doc = storedDoc(text, name);
  const { feed, prefixes, regions, regionOf } = doc;
  if (typeof feed !== 'string' || !strings(prefixes)) {
    throw new FeedFormatError(name, 'not a stored cloud feed');
  }
  const none = regions === undefined && regionOf === undefined;
  const ok =
    none ||
    (strings(regions) &&
      Array.isArray(regionOf) &&
      regionOf.length === prefixes.length &&
      regionOf.every(
        (i) => Number.isInteger(i) && (i as number) >= -1 && (i as number) < regions.length,
      ));
  if (!ok) throw new FeedFormatError(name, 'bad regions: one region index per prefix expected');
  return {
    feed,
    fetchedAt: typeof doc.fetchedAt === 'string' ? doc.fetchedAt : '',
    publishedAt: typeof doc.publishedAt === 'string' ? doc.publishedAt : null,
    prefixes,
    regions: none ? [] : (regions as string[]),
    regionOf: none ? prefixes.map(() => -1) : (regionOf as number[]),
  };
}

/** The relay and geofeed files of a folder, parsed; a damaged one is a problem, not an error. */
export async function readGeofeeds(
  dir: string,
): Promise<{ stored: StoredFeed[]; problems: string[] }> {
  const texts = await readSourceTexts((await feedFiles(dir)).map((n) => join(dir, n)));
  const { stored, problems } = parseGeofeeds(texts);
  // no regions table given: no cloud feed is placed
  return { stored: stored.filter((s): s is StoredFeed => s.kind !== 'cloud-region'), problems };
}

/**
 * The geofeeds the service and the CLI answer with: DATA_DIR's, resolved
 * against the GeoIP data, kept compiled in DATA_DIR/tables.
 */
export function openGeofeeds(
  config: { readonly dataDir: string },
  geo: { readonly tables: { readonly geoip: CompiledSet } },
  log: DerivedLog,
): Promise<GeofeedHolder> {
  return GeofeedHolder.open({
    feedsDir: feedsDir(config.dataDir),
    geoip: () => geo.tables.geoip,
    compiled: { path: join(config.dataDir, 'tables', GEOFEEDS_TABLES), log },
  });
}

/**
 * A stored relay or geofeed file, its shape checked. Its prefixes are not
 * parsed here: the index parses each once as it compiles it (and drops one
 * that does not parse), where feed-store's reader would parse every IPv6
 * prefix twice more (Apple's list holds ~250,000).
 */
function readGeofeedFile(text: string, name: string): StoredFeed {
  const doc = storedDoc(text, name);
  const { feed, kind, prefixes, places, placeOf } = doc;
  const ok =
    doc.format === 'ipintel-feed/1' &&
    typeof feed === 'string' &&
    (kind === 'relay' || kind === 'geofeed') &&
    strings(prefixes) &&
    Array.isArray(places) &&
    places.every((p) => strings(p) && p.length === 3) &&
    Array.isArray(placeOf) &&
    placeOf.length === prefixes.length &&
    placeOf.every(
      (i) => Number.isInteger(i) && (i as number) >= -1 && (i as number) < places.length,
    );
  if (!ok) throw new FeedFormatError(name, 'not a stored relay or geofeed feed');
  assertFeedId(feed);
  return {
    format: 'ipintel-feed/1',
    feed,
    kind,
    url: typeof doc.url === 'string' ? doc.url : '',
    fetchedAt: typeof doc.fetchedAt === 'string' ? doc.fetchedAt : '',
    publishedAt: typeof doc.publishedAt === 'string' ? doc.publishedAt : null,
    ...(typeof doc.lastModified === 'string' ? { lastModified: doc.lastModified } : {}),
    prefixes,
    ...(typeof doc.skippedRows === 'number' ? { skippedRows: doc.skippedRows } : {}),
    places: places as [string, string, string][],
    placeOf: placeOf as number[],
  };
}
