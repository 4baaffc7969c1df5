// The compiler: a source data set (MMDB files, or the ASN CSV's ranges) in,
// a range table and its record fragments out. Pure apart from the readers it
// is given; the callers (compile-sources.ts) hash, name and save the result.
import type { Reader } from 'maxmind';
import type { AsnRange } from '../asn-csv.js';
import { locationJson, maxmindAsn, networkJson, placeJson, type Mapper } from '../record-map.js';
import type { Ip } from '../../../net/ip.js';
import { GrowableU32 } from '../../../data/range-table-builder.js';
import {
  COORDINATE_SCALE,
  Locations,
  NO_COORDINATE,
  RecordCollector,
  type CompiledSet,
} from '../compiled-set.js';
import { WHOLE } from '../../../data/table-file.js';
import { walkMmdb } from './mmdb-walk.js';
import { ALIAS, MAX_RECORDS, NONE, RangeTable } from '../../../data/range-table.js';
import { V4Builder, V6Builder } from '../../../data/range-table-builder.js';

export type Compiled = Omit<CompiledSet, 'manifest'>;

interface DecodingReader {
  resolveDataPointer(pointer: number): unknown;
}

/**
 * Collects the distinct records of a data set: `intern` takes a decoded MMDB
 * record and answers its index (NONE when it contributes nothing).
 */
export interface RecordSink {
  intern(record: unknown): number;
  finish(): Pick<CompiledSet, 'records' | 'locations'>;
}

/** ASN/ISP records: the network fragment; a record without an AS number is no record. */
export class NetworkSink implements RecordSink {
  private readonly texts = new RecordCollector();

  intern(record: unknown): number {
    const info = maxmindAsn((record ?? null) as Record<string, unknown> | null);
    return info === null ? NONE : this.texts.intern(networkJson(info));
  }

  internNetwork(asn: number, org: string | null): number {
    return this.texts.intern(networkJson({ asn, org, isp: null }));
  }

  finish(): Pick<CompiledSet, 'records' | 'locations'> {
    return { records: this.texts.finish(), locations: null };
  }
}

/**
 * City/country records, mapped to the API's location (docs/api.md, "Records"): equal locations are
 * one record, which keeps its place text (shared) and its coordinates.
 */
export class LocationSink implements RecordSink {
  private readonly byLocation = new Map<string, number>();
  private readonly places = new RecordCollector();
  private readonly placeOf = new GrowableU32();
  private readonly coordinates = new GrowableU32();

  constructor(private readonly map: Mapper) {}

  intern(record: unknown): number {
    const location = this.map((record ?? {}) as Record<string, unknown>);
    const key = locationJson(location);
    let index = this.byLocation.get(key);
    if (index === undefined) {
      index = this.placeOf.length;
      this.byLocation.set(key, index);
      this.placeOf.push(this.places.intern(placeJson(location)));
      this.coordinates.push(scaled(location.latitude));
      this.coordinates.push(scaled(location.longitude));
    }
    return index;
  }

  finish(): Pick<CompiledSet, 'records' | 'locations'> {
    return finishLocations(this.places, this.placeOf, this.coordinates, null);
  }
}

/** Collected locations as a set's records and locations; `info` a reconciled table's (Locations.info). */
export function finishLocations(
  places: RecordCollector,
  placeOf: GrowableU32,
  scaledCoordinates: GrowableU32,
  info: GrowableU32 | null,
): Pick<CompiledSet, 'records' | 'locations'> {
  const coordinates = scaledCoordinates.toArray();
  return {
    records: places.finish(),
    locations: new Locations(
      placeOf.toArray(),
      new Int32Array(coordinates.buffer, coordinates.byteOffset, coordinates.length),
      WHOLE,
      info?.toArray() ?? null,
    ),
  };
}

/** A coordinate rounded to 4 decimals (record-map.ts) as an integer; exact, since |value| ≤ 180. */
export function scaled(value: number | null): number {
  return value === null ? NO_COORDINATE >>> 0 : Math.round(value * COORDINATE_SCALE) >>> 0;
}

/** Record indexes by data pointer, for one reader. */
function recordIndexer(reader: Reader<object>, sink: RecordSink): (pointer: number) => number {
  const byPointer = new Map<number, number>();
  const decoder = reader as unknown as DecodingReader;
  const nodeCount = reader.metadata.nodeCount;
  return (pointer) => {
    if (pointer <= nodeCount) return NONE;
    let index = byPointer.get(pointer);
    if (index === undefined) {
      index = sink.intern(decoder.resolveDataPointer(pointer));
      if (index !== NONE && index > MAX_RECORDS) throw new Error('too many distinct records');
      byPointer.set(pointer, index);
    }
    return index;
  };
}

function addV4(builder: V4Builder, reader: Reader<object>, indexOf: (p: number) => number): void {
  walkMmdb(reader, 4, (leaf) => builder.add(leaf.start[0]!, indexOf(leaf.pointer)));
}

function addV6(builder: V6Builder, reader: Reader<object>, indexOf: (p: number) => number): void {
  walkMmdb(reader, 6, (leaf) => {
    const value = leaf.alias ? (ALIAS | leaf.depth) >>> 0 : indexOf(leaf.pointer);
    const s = leaf.start;
    builder.add(s[0]!, s[1]!, s[2]!, s[3]!, value);
  });
}

/**
 * One or two MMDB files into one table: `v4` answers IPv4 (from its IPv4
 * subtree), `v6` answers IPv6; they may be the same reader (MaxMind's one
 * file for both) or two (DB-IP's per-family files). An IPv4-only file
 * answers no IPv6.
 */
export function compileMmdb(v4: Reader<object>, v6: Reader<object>, sink: RecordSink): Compiled {
  const v4Index = recordIndexer(v4, sink);
  const v6Index = v6 === v4 ? v4Index : recordIndexer(v6, sink);
  const b4 = new V4Builder();
  const b6 = new V6Builder();
  addV4(b4, v4, v4Index);
  if (v6.metadata.ipVersion === 6) addV6(b6, v6, v6Index);
  return { table: new RangeTable(b4.finish(), b6.finish()), ...sink.finish(), pager: WHOLE };
}

/** An address as one number: IPv4 in 32 bits, IPv6 in 128. */
function big(ip: Ip): bigint {
  if (ip.version === 4) return BigInt(ip.value);
  let value = 0n;
  for (const group of ip.groups) value = (value << 16n) | BigInt(group);
  return value;
}

interface OpenRange {
  end: bigint;
  value: number;
}

/**
 * The ASN CSV's ranges (start, end inclusive) into a table. Where ranges
 * overlap, an address belongs to the range that starts last among those
 * holding it (the more specific one; of equal starts, the later row), and an
 * enclosing range resumes where the ranges inside it end: one sweep in order
 * of start with a stack of the ranges still open.
 */
export function compileAsnRanges(rows: readonly AsnRange[]): Compiled {
  const records = new NetworkSink();
  const b4 = new V4Builder();
  const b6 = new V6Builder();
  for (const version of [4, 6] as const) {
    const limit = version === 4 ? 1n << 32n : 1n << 128n;
    const mine = rows
      .map((row, order) => ({ row, order, start: big(row.start) }))
      .filter((r) => r.row.start.version === version && r.row.end.version === version)
      .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.order - b.order));
    // range starts in order; a later value at the same position replaces an earlier one
    const starts: { at: bigint; value: number }[] = [];
    const set = (at: bigint, value: number): void => {
      const last = starts[starts.length - 1];
      if (last !== undefined && last.at === at) last.value = value;
      else starts.push({ at, value });
    };
    const open: OpenRange[] = [];
    let at = 0n;
    /** settles the addresses from `at` up to `until` (exclusive) from the open ranges */
    const advance = (until: bigint): void => {
      while (at < until) {
        while (open.length > 0 && open[open.length - 1]!.end < at) open.pop();
        const top = open[open.length - 1];
        if (top === undefined) {
          set(at, NONE);
          at = until;
          return;
        }
        set(at, top.value);
        at = top.end + 1n < until ? top.end + 1n : until;
      }
    };
    for (const { row, start } of mine) {
      const end = big(row.end);
      if (end < start) continue;
      advance(start);
      open.push({ end, value: records.internNetwork(row.asn, row.org) });
      set(start, open[open.length - 1]!.value);
      at = start;
    }
    advance(limit);
    for (const { at: position, value } of starts) {
      if (version === 4) b4.add(Number(position), value);
      else {
        const w = (shift: bigint) => Number((position >> shift) & 0xffffffffn);
        b6.add(w(96n), w(64n), w(32n), w(0n), value);
      }
    }
  }
  return { table: new RangeTable(b4.finish(), b6.finish()), ...records.finish(), pager: WHOLE };
}
