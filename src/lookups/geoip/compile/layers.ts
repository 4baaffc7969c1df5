// A location source as the reconciling compiler reads it: for each family,
// its gapless ranges in address order (starts as 1 or 4 words, values
// indexing its distinct answers, NONE for none), and those answers. Built
// from an MMDB file's leaves or from a list of IPv4 ranges; merged with the
// other sources' in merge.ts.
import type { Reader } from 'maxmind';
import { GrowableU32 } from '../../../data/range-table-builder.js';
import { ALIAS, NONE } from '../../../data/range-table.js';
import type { GeoLocation, Mapper } from '../record-map.js';
import type { SourceAnswer } from '../reconcile/reconcile.js';
import { walkMmdb } from './mmdb-walk.js';

export interface Segments {
  /** 1 (IPv4) or 4 (IPv6) words a start */
  words: 1 | 4;
  starts: Uint32Array;
  values: Uint32Array;
}

export interface SourceLayer {
  /** the source's id (X-Location-Source, GET /) */
  id: string;
  kind: SourceAnswer['kind'];
  v4: Segments;
  /** null: the source answers no IPv6 */
  v6: Segments | null;
  /** the distinct answers the values index */
  answers: GeoLocation[];
  /** the radius the source states for each answer (SourceAnswer.statedKm); absent: none stated */
  stated?: (number | null)[];
  /**
   * false for an opt-in source no calibration has seen (IPinfo Lite): it
   * never votes, never moves the point or the radius, only fills in where
   * no calibrated source answers and is named where it agrees
   * (reconciled.ts, withUncalibrated); true unless said
   */
  calibrated?: boolean;
}

/** What a source states of its own record's precision (record-map.ts, maxmindStatedRadius). */
export type StatedRadius = (record: Record<string, unknown>) => number | null;

interface DecodingReader {
  resolveDataPointer(pointer: number): unknown;
}

/** Distinct answers of one source (with the radius it states), interned by their text. */
export class AnswerSet {
  readonly answers: GeoLocation[] = [];
  readonly stated: (number | null)[] = [];
  private readonly byKey = new Map<string, number>();

  intern(location: GeoLocation | null, statedKm: number | null = null): number {
    if (location === null || (location.country === null && location.latitude === null)) return NONE;
    const key = `${JSON.stringify(location)}|${statedKm}`;
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.answers.length;
      this.answers.push(location);
      this.stated.push(statedKm);
      this.byKey.set(key, index);
    }
    return index;
  }
}

/** a country source answers a country only, whatever else its records hold */
function keepFor(kind: SourceAnswer['kind'], location: GeoLocation): GeoLocation {
  return kind === 'city'
    ? location
    : { ...location, city: null, region: null, latitude: null, longitude: null, timezone: null };
}

function mmdbSegments(
  reader: Reader<object>,
  family: 4 | 6,
  indexOf: (pointer: number) => number,
  keepAliases: boolean,
): Segments {
  const words = family === 4 ? 1 : 4;
  const starts = new GrowableU32(1 << 16);
  const values = new GrowableU32(1 << 14);
  walkMmdb(reader, family, (leaf) => {
    for (let w = 0; w < words; w++) starts.push(leaf.start[w]!);
    values.push(
      leaf.alias ? (keepAliases ? (ALIAS | leaf.depth) >>> 0 : NONE) : indexOf(leaf.pointer),
    );
  });
  return { words, starts: starts.toArray(), values: values.toArray() };
}

/**
 * One MMDB source: `v4` answers IPv4, `v6` IPv6 (the same reader for a file
 * holding both). Only the first city source keeps the file's IPv6 aliases of
 * its IPv4 subtree (they answer what its IPv4 table answers, as the plain
 * compiler does); another source reads as no answer there.
 */
export function mmdbLayer(
  id: string,
  kind: SourceAnswer['kind'],
  v4: Reader<object>,
  v6: Reader<object> | null,
  map: Mapper,
  keepAliases = false,
  statedOf: StatedRadius | null = null,
): SourceLayer {
  const set = new AnswerSet();
  const indexer = (reader: Reader<object>) => {
    const byPointer = new Map<number, number>();
    const decoder = reader as unknown as DecodingReader;
    const { nodeCount } = reader.metadata;
    return (pointer: number): number => {
      if (pointer <= nodeCount) return NONE;
      let index = byPointer.get(pointer);
      if (index === undefined) {
        const record = (decoder.resolveDataPointer(pointer) ?? {}) as Record<string, unknown>;
        index = set.intern(keepFor(kind, map(record)), statedOf?.(record) ?? null);
        byPointer.set(pointer, index);
      }
      return index;
    };
  };
  const v4Index = indexer(v4);
  const v6Index = v6 === v4 ? v4Index : v6 === null ? null : indexer(v6);
  return {
    id,
    kind,
    v4: mmdbSegments(v4, 4, v4Index, keepAliases),
    v6:
      v6 === null || v6Index === null || v6.metadata.ipVersion !== 6
        ? null
        : mmdbSegments(v6, 6, v6Index, keepAliases),
    answers: set.answers,
    ...(statedOf === null ? {} : { stated: set.stated }),
  };
}

/**
 * A country source given as IPv4 ranges: `ends[i]` is where range i ends
 * (exclusive; ascending), `countries[i]` its country (null: none); range 0
 * starts at 0.0.0.0 and the last one runs to the end of the space.
 */
export function countryRangesLayer(
  id: string,
  ends: readonly number[],
  countries: readonly (string | null)[],
): SourceLayer {
  const set = new AnswerSet();
  const starts = new GrowableU32();
  const values = new GrowableU32();
  let start = 0;
  for (let i = 0; i < ends.length && start <= 0xffffffff; i++) {
    const end = ends[i]!;
    // an empty range (a publisher's repeated end) starts nothing; the last one runs on
    if (end <= start && i < ends.length - 1) continue;
    const country = countries[i] ?? null;
    const value = set.intern(
      country === null
        ? null
        : { country, city: null, region: null, timezone: null, latitude: null, longitude: null },
    );
    if (starts.length === 0 || values.at(values.length - 1) !== value) {
      starts.push(start);
      values.push(value);
    }
    start = end;
  }
  if (starts.length === 0) {
    starts.push(0);
    values.push(NONE);
  }
  return {
    id,
    kind: 'country',
    v4: { words: 1, starts: starts.toArray(), values: values.toArray() },
    v6: null,
    answers: set.answers,
  };
}
