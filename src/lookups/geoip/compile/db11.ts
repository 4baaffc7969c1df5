// IP2Location LITE DB11 (the operator's download with IP2LOCATION_TOKEN) as
// a city source layer. Its CSV rows, each quoted:
//   "ip_from","ip_to","country_code","country_name","region_name",
//   "city_name","latitude","longitude","zip_code","time_zone"
// ip_from/ip_to are the range's first and last address as decimal integers
// (the IPv6 file: 128-bit, IPv4 inside as ::ffff:a.b.c.d), "-" is unknown,
// and time_zone is a UTC offset ("-07:00"), not a zone: the zone is resolved
// from the coordinates, as for DB-IP. Rows come in address order, gapless;
// a gap or an overlap reads as no answer or as an error. Pure apart from the
// line source the caller passes.
import { csvRecords } from '../../../data/csv.js';
import { GrowableU32 } from '../../../data/range-table-builder.js';
import { NONE } from '../../../data/range-table.js';
import type { TimezoneResolver } from '../timezone.js';
import type { GeoLocation } from '../record-map.js';
import { AnswerSet, type Segments, type SourceLayer } from './layers.js';

/** The CSV each ZIP holds. */
export const DB11_ENTRIES = {
  v4: 'IP2LOCATION-LITE-DB11.CSV',
  v6: 'IP2LOCATION-LITE-DB11.IPV6.CSV',
} as const;

export interface Db11Row {
  from: bigint;
  to: bigint;
  location: GeoLocation | null;
}

const known = (text: string | undefined): string | null =>
  text === undefined || text === '' || text === '-' ? null : text;

/** One CSV line as a row, or why it is not one. */
export function db11Row(line: string, resolve: TimezoneResolver): Db11Row | string {
  const record = csvRecords(line).next().value;
  if (record === undefined || 'reason' in record) return record?.reason ?? 'an empty line';
  const f = record.fields;
  if (f.length !== 10) return `${f.length} fields, not DB11's 10`;
  if (!/^\d{1,39}$/.test(f[0]!) || !/^\d{1,39}$/.test(f[1]!)) return 'ip_from/ip_to not decimal';
  const from = BigInt(f[0]!);
  const to = BigInt(f[1]!);
  if (to < from) return 'ip_to before ip_from';
  const country = known(f[2]);
  if (country === null || !/^[A-Z]{2}$/.test(country)) return { from, to, location: null };
  const latitude = Number(f[6]);
  const longitude = Number(f[7]);
  // 0,0 is where DB11 puts a row without coordinates
  const point =
    Number.isFinite(latitude) && Number.isFinite(longitude) && (latitude !== 0 || longitude !== 0);
  const location = {
    country,
    region: known(f[4]),
    city: known(f[5]),
    latitude: point ? Math.round(latitude * 1e4) / 1e4 : null,
    longitude: point ? Math.round(longitude * 1e4) / 1e4 : null,
  };
  const timezone = point ? resolve(location.latitude!, location.longitude!) : null;
  return { from, to, location: { ...location, timezone } };
}

/** A row's two bounds, quoted, and the comma after them. */
const BOUNDS = /^"(\d{1,39})","(\d{1,39})",/;

/** The IPv4-mapped block ::ffff:0:0/96, which the IPv4 file answers. */
const MAPPED_FROM = 0xffffn << 32n;
const MAPPED_TO = MAPPED_FROM + 0xffffffffn;
const isMapped = (from: bigint, to: bigint) => from >= MAPPED_FROM && to <= MAPPED_TO;

/** Gapless segments of one family from rows in address order. */
export class SegmentsBuilder {
  private readonly starts = new GrowableU32(1 << 16);
  private readonly values = new GrowableU32(1 << 14);
  /** where the next row should start */
  private next = 0n;
  private readonly end: bigint;

  constructor(private readonly words: 1 | 4) {
    this.end = words === 1 ? 1n << 32n : 1n << 128n;
  }

  private push(start: bigint, value: number): void {
    const n = this.values.length;
    if (n > 0 && this.values.at(n - 1) === value) return;
    for (let w = this.words - 1; w >= 0; w--)
      this.starts.push(Number((start >> BigInt(32 * w)) & 0xffffffffn));
    this.values.push(value);
  }

  /** Throws when the row overlaps the one before (not in address order). */
  add(from: bigint, to: bigint, value: number): void {
    if (from < this.next) throw new Error(`a range at ${from} overlaps the one before`);
    if (to >= this.end) throw new Error(`a range ending at ${to} is past the address space`);
    if (from > this.next) this.push(this.next, NONE);
    this.push(from, value);
    this.next = to + 1n;
  }

  finish(): Segments {
    if (this.next < this.end) this.push(this.next, NONE);
    return { words: this.words, starts: this.starts.toArray(), values: this.values.toArray() };
  }
}

export interface Db11Counts {
  rows: number;
  rejected: number;
  firstProblem: string | null;
}

/** One file's rows into `builder`, its locations into `set`. */
export async function readDb11(
  lines: AsyncIterable<string>,
  family: 4 | 6,
  builder: SegmentsBuilder,
  set: AnswerSet,
  resolve: TimezoneResolver,
): Promise<Db11Counts> {
  const counts: Db11Counts = { rows: 0, rejected: 0, firstProblem: null };
  // a place seen before (the text after the two bounds): its answer, without
  // parsing, resolving and interning it again (4 million rows, ~100,000 places)
  const seen = new Map<string, number>();
  let lineNo = 0;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === '') continue;
    const bounds = BOUNDS.exec(line);
    // the IPv6 file's IPv4 rows: the IPv4 file answers those
    if (family === 6 && bounds !== null && isMapped(BigInt(bounds[1]!), BigInt(bounds[2]!))) {
      counts.rows++;
      continue;
    }
    const place = bounds === null ? null : line.slice(bounds[0].length);
    const known = place === null ? undefined : seen.get(place);
    let row: Db11Row | string;
    let value: number;
    if (known !== undefined && bounds !== null) {
      row = { from: BigInt(bounds[1]!), to: BigInt(bounds[2]!), location: null };
      if (row.to < row.from) row = 'ip_to before ip_from';
      value = known;
    } else {
      row = db11Row(line, resolve);
      value = typeof row === 'string' ? NONE : set.intern(row.location);
      if (typeof row !== 'string' && place !== null) seen.set(place, value);
    }
    if (typeof row === 'string') {
      counts.rejected++;
      counts.firstProblem ??= `line ${lineNo}: ${row}`;
      continue;
    }
    counts.rows++;
    builder.add(row.from, row.to, value);
  }
  return counts;
}

/** The DB11 layer: a city source, uncalibrated (compile/layers.ts). */
export function db11Layer(id: string, v4: Segments, v6: Segments, set: AnswerSet): SourceLayer {
  return { id, kind: 'city', v4, v6, answers: set.answers, calibrated: false };
}
