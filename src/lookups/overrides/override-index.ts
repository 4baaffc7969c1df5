// The overrides compiled for lookups: CIDR ranges nest or are disjoint, so
// the rows flatten into sorted, disjoint segments, each naming the most
// specific row that covers it. A lookup is one binary search over typed
// arrays (IPv4: one word per bound; IPv6: four), made once per file load, off
// the request path. The empty index answers every address with one check.
import { v4Jump } from '../../data/range-table.js';
import type { Ip } from '../../net/ip.js';
import type { OverrideFields, OverrideRow } from './rows.js';

/** the bitmap of a family without rows (zero pages: never touched, never resident) */
const NO_BLOCKS = new Uint8Array(1 << 21);

/** no row covers the address */
export const NO_OVERRIDE = -1;

/** What an answer needs of a row once its range is compiled (the range itself is not kept). */
export type OverrideEntry = Pick<OverrideRow, 'label' | 'fields'>;

export class OverrideIndex {
  /** rows in file order, without their ranges; the segments name them by index */
  readonly rows: readonly OverrideEntry[];
  /** rows.length: 0 is the common case, and the one check a lookup makes then */
  readonly size: number;
  /** the most a row can lengthen a record's JSON: the longest row's values as JSON */
  readonly extraBytes: number;
  private readonly v4Starts: Uint32Array;
  private readonly v4Ends: Uint32Array;
  private readonly v4Rows: Int32Array;
  /**
   * by the top 16 bits of an address: the last segment starting at or below
   * the first address with those bits (0 when none: the final check refuses
   * it), so a search looks only between two neighbouring entries (the GeoIP
   * tables' jump table, src/data/range-table.ts)
   */
  private readonly v4Jump: Uint32Array;
  /**
   * One bit per /24 (IPv4) and per top 24 bits (IPv6): whether any row
   * covers some of it. Most addresses are in no row, and this one probe of a
   * 2 MB bitmap says so — where the search touches several cache lines of
   * the arrays (measured: that was most of the cost under load).
   */
  private readonly v4Blocks: Uint8Array;
  private readonly v6Blocks: Uint8Array;
  /** IPv6 bounds as four 32-bit words each, most significant first */
  private readonly v6Starts: Uint32Array;
  private readonly v6Ends: Uint32Array;
  private readonly v6Rows: Int32Array;

  constructor(rows: readonly OverrideRow[]) {
    this.rows = rows.map(({ label, fields }) => ({ label, fields }));
    this.size = rows.length;
    this.extraBytes = rows.reduce((most, row) => Math.max(most, jsonBound(row.fields)), 0);
    const v4 = flatten(v4Ranges(rows), 0);
    const v6 = flatten(v6Ranges(rows), 0n);
    this.v4Starts = new Uint32Array(v4.length);
    this.v4Ends = new Uint32Array(v4.length);
    this.v4Rows = new Int32Array(v4.length);
    for (let i = 0; i < v4.length; i++) {
      const segment = v4[i]!;
      this.v4Starts[i] = segment.start;
      this.v4Ends[i] = segment.end;
      this.v4Rows[i] = segment.row;
    }
    this.v4Jump = v4Jump(this.v4Starts);
    this.v4Blocks = blockBits(v4, (n) => n >>> 8);
    this.v6Blocks = blockBits(v6, (n) => Number(n >> 104n));
    this.v6Starts = words(v6.map((s) => s.start));
    this.v6Ends = words(v6.map((s) => s.end));
    this.v6Rows = Int32Array.from(v6, (s) => s.row);
  }

  /** The index of the most specific row covering `ip`, or NO_OVERRIDE. */
  find(ip: Ip): number {
    if (ip.version === 4) {
      const value = ip.value;
      const block = value >>> 8;
      if ((this.v4Blocks[block >>> 3]! & (1 << (block & 7))) === 0) return NO_OVERRIDE;
      const at = this.v4Segment(value);
      return this.v4Starts[at]! <= value && value <= this.v4Ends[at]!
        ? this.v4Rows[at]!
        : NO_OVERRIDE;
    }
    const g = ip.groups;
    const block = (g[0]! << 8) | (g[1]! >>> 8);
    if ((this.v6Blocks[block >>> 3]! & (1 << (block & 7))) === 0) return NO_OVERRIDE;
    const w0 = ((g[0]! << 16) | g[1]!) >>> 0;
    const w1 = ((g[2]! << 16) | g[3]!) >>> 0;
    const w2 = ((g[4]! << 16) | g[5]!) >>> 0;
    const w3 = ((g[6]! << 16) | g[7]!) >>> 0;
    const starts = this.v6Starts;
    let lo = 0;
    let hi = this.v6Rows.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (compare4(starts, mid, w0, w1, w2, w3) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && compare4(this.v6Ends, found, w0, w1, w2, w3) >= 0
      ? this.v6Rows[found]!
      : NO_OVERRIDE;
  }

  /** The last IPv4 segment starting at or below `value` (0 when none does). */
  private v4Segment(value: number): number {
    const starts = this.v4Starts;
    const top = value >>> 16;
    let lo = this.v4Jump[top]!;
    let hi = this.v4Jump[top + 1]!;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= value) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * The IPv4 addresses around `value` that the same row covers, or that no
   * row covers: its first and last address (the library's geoip-lite range).
   */
  spanV4(value: number): [number, number] {
    const count = this.v4Starts.length;
    if (count === 0) return [0, 0xffffffff];
    const at = this.v4Segment(value);
    const start = this.v4Starts[at]!;
    const end = this.v4Ends[at]!;
    if (start <= value && value <= end) return [start, end];
    // between segments: after the one found (when it starts below), before the next
    const after = start <= value ? end + 1 : 0;
    const next = start <= value ? at + 1 : at;
    return [after, next < count ? this.v4Starts[next]! - 1 : 0xffffffff];
  }

  /**
   * Where the covering row changes: each segment's first address and the one
   * after its last (IPv4 as numbers, IPv6 as four words each), ascending
   * within each family. For exports (src/export/).
   */
  boundaries(): { v4: Uint32Array; v6: Uint32Array } {
    const v4: number[] = [];
    for (let i = 0; i < this.v4Starts.length; i++) {
      v4.push(this.v4Starts[i]!);
      if (this.v4Ends[i] !== 0xffffffff) v4.push(this.v4Ends[i]! + 1);
    }
    const v6: number[] = [];
    for (let i = 0; i < this.v6Rows.length; i++) {
      v6.push(...this.v6Starts.subarray(4 * i, 4 * i + 4));
      const after = plusOne(this.v6Ends.subarray(4 * i, 4 * i + 4));
      if (after !== null) v6.push(...after);
    }
    return { v4: Uint32Array.from(v4), v6: Uint32Array.from(v6) };
  }

  /** The row covering `ip`, or null. */
  rowOf(ip: Ip): OverrideEntry | null {
    if (this.size === 0) return null;
    const row = this.find(ip);
    return row === NO_OVERRIDE ? null : this.rows[row]!;
  }
}

/** A 128-bit number (four words) plus one; null past the last address. */
function plusOne(words: Uint32Array): number[] | null {
  const out = [...words];
  for (let w = 3; w >= 0; w--) {
    if (out[w] !== 0xffffffff) {
      out[w] = out[w]! + 1;
      return out;
    }
    out[w] = 0;
  }
  return null;
}

export const EMPTY_OVERRIDES = new OverrideIndex([]);

/**
 * At least the UTF-8 bytes of JSON.stringify(fields), without making it: a
 * UTF-16 unit is at most 3 bytes and an escaped one 2 (control characters are
 * refused by the parser); a number or boolean at most 24.
 */
function jsonBound(fields: OverrideFields): number {
  let bytes = 2;
  for (const key in fields) {
    const value = fields[key as keyof OverrideFields];
    bytes += key.length + 4 + (typeof value === 'string' ? 3 * value.length + 2 : 24);
  }
  return bytes;
}

/** The sign of (the 128-bit key at `at`) − (w0 w1 w2 w3). */
function compare4(keys: Uint32Array, at: number, w0: number, w1: number, w2: number, w3: number) {
  const i = 4 * at;
  const k0 = keys[i]!;
  if (k0 !== w0) return k0 < w0 ? -1 : 1;
  const k1 = keys[i + 1]!;
  if (k1 !== w1) return k1 < w1 ? -1 : 1;
  const k2 = keys[i + 2]!;
  if (k2 !== w2) return k2 < w2 ? -1 : 1;
  const k3 = keys[i + 3]!;
  return k3 === w3 ? 0 : k3 < w3 ? -1 : 1;
}

function words(values: readonly bigint[]): Uint32Array {
  const out = new Uint32Array(4 * values.length);
  values.forEach((v, i) => {
    for (let w = 0; w < 4; w++) out[4 * i + w] = Number((v >> BigInt(96 - 32 * w)) & 0xffffffffn);
  });
  return out;
}

interface Range<N> {
  start: N;
  end: N;
  row: number;
}

/** The IPv4 rows' ranges, as numbers (exact to 2^53: 32 bits fit). */
function v4Ranges(rows: readonly OverrideRow[]): Range<number>[] {
  const out: Range<number>[] = [];
  rows.forEach((row, index) => {
    const { cidr } = row;
    if (cidr.version !== 4) return;
    const start = cidr.network[0]!;
    out.push({ start, end: start + 2 ** (32 - cidr.prefixLength) - 1, row: index });
  });
  return out;
}

/** The IPv6 rows' ranges, as 128-bit integers. */
function v6Ranges(rows: readonly OverrideRow[]): Range<bigint>[] {
  const out: Range<bigint>[] = [];
  rows.forEach((row, index) => {
    const { cidr } = row;
    if (cidr.version !== 6) return;
    const start = cidr.network.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
    out.push({ start, end: start + (1n << BigInt(128 - cidr.prefixLength)) - 1n, row: index });
  });
  return out;
}

/**
 * Disjoint segments, ascending, each owned by the innermost range covering
 * it: ranges sorted by start, wider first, walked with a stack of the open
 * ones. `zero` is 0 in the ranges' number type.
 */
function flatten<N extends number | bigint>(ranges: Range<N>[], zero: N): Range<N>[] {
  const one = (typeof zero === 'bigint' ? 1n : 1) as N;
  const plus = (a: N, b: N): N => ((a as number) + (b as number)) as N;
  const minus = (a: N, b: N): N => ((a as number) - (b as number)) as N;
  ranges.sort((a, b) =>
    a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.end > b.end ? -1 : 1,
  );
  const out: Range<N>[] = [];
  const open: Range<N>[] = [];
  let cursor = zero;
  const closeUntil = (limit: N | null): void => {
    for (let top = open.at(-1); top !== undefined; top = open.at(-1)) {
      if (limit !== null && top.end >= limit) return;
      if (cursor <= top.end) out.push({ start: cursor, end: top.end, row: top.row });
      cursor = plus(top.end, one);
      open.pop();
    }
  };
  for (const range of ranges) {
    closeUntil(range.start);
    const top = open.at(-1);
    if (top !== undefined && cursor < range.start) {
      out.push({ start: cursor, end: minus(range.start, one), row: top.row });
    }
    cursor = range.start;
    open.push(range);
  }
  closeUntil(null);
  return out;
}

/** The block bitmap of segments: a bit for every block (`blockOf` an address) a segment touches. */
function blockBits<N extends number | bigint>(
  segments: readonly Range<N>[],
  blockOf: (n: N) => number,
): Uint8Array {
  if (segments.length === 0) return NO_BLOCKS;
  const bits = new Uint8Array(1 << 21);
  for (const { start, end } of segments) {
    const last = blockOf(end);
    for (let block = blockOf(start); block <= last; block++) bits[block >>> 3]! |= 1 << (block & 7);
  }
  return bits;
}
