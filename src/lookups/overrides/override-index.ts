// The overrides compiled for lookups: CIDR ranges nest or are disjoint, so
// the rows flatten into sorted, disjoint segments, each naming the most
// specific row that covers it. A lookup is one binary search over typed
// arrays (IPv4: one word per bound; IPv6: four), made once per file load, off
// the request path. The empty index answers every address with one check.
import { Buffer } from 'node:buffer';
import { lastAtMost } from '../../net/bisect.js';
import type { Ip } from '../../net/ip.js';
import type { OverrideRow } from './rows.js';

/** no row covers the address */
export const NO_OVERRIDE = -1;

interface Segment {
  start: bigint;
  end: bigint;
  row: number;
}

export class OverrideIndex {
  /** rows in file order; the segments name them by index */
  readonly rows: readonly OverrideRow[];
  /** rows.length: 0 is the common case, and the one check a lookup makes then */
  readonly size: number;
  /** the most a row can lengthen a record's JSON: the longest row's values as JSON */
  readonly extraBytes: number;
  private readonly v4Starts: Uint32Array;
  private readonly v4Ends: Uint32Array;
  private readonly v4Rows: Int32Array;
  /** IPv6 bounds as four 32-bit words each, most significant first */
  private readonly v6Starts: Uint32Array;
  private readonly v6Ends: Uint32Array;
  private readonly v6Rows: Int32Array;

  constructor(rows: readonly OverrideRow[]) {
    this.rows = rows;
    this.size = rows.length;
    this.extraBytes = rows.reduce(
      (most, row) => Math.max(most, Buffer.byteLength(JSON.stringify(row.fields))),
      0,
    );
    const v4 = flatten(rows, 4);
    const v6 = flatten(rows, 6);
    this.v4Starts = Uint32Array.from(v4, (s) => Number(s.start));
    this.v4Ends = Uint32Array.from(v4, (s) => Number(s.end));
    this.v4Rows = Int32Array.from(v4, (s) => s.row);
    this.v6Starts = words(v6.map((s) => s.start));
    this.v6Ends = words(v6.map((s) => s.end));
    this.v6Rows = Int32Array.from(v6, (s) => s.row);
  }

  /** The index of the most specific row covering `ip`, or NO_OVERRIDE. */
  find(ip: Ip): number {
    if (ip.version === 4) {
      const at = lastAtMost(this.v4Starts, ip.value);
      return at >= 0 && ip.value <= this.v4Ends[at]! ? this.v4Rows[at]! : NO_OVERRIDE;
    }
    const g = ip.groups;
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

  /** The row covering `ip`, or null. */
  rowOf(ip: Ip): OverrideRow | null {
    if (this.size === 0) return null;
    const row = this.find(ip);
    return row === NO_OVERRIDE ? null : this.rows[row]!;
  }
}

export const EMPTY_OVERRIDES = new OverrideIndex([]);

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

/** A row's first and last address as integers of its family's width. */
function bounds(row: OverrideRow): { start: bigint; end: bigint } {
  const { cidr } = row;
  const bits = cidr.version === 4 ? 32 : 128;
  const start =
    cidr.version === 4
      ? BigInt(cidr.network[0]!)
      : cidr.network.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
  const size = 1n << BigInt(bits - cidr.prefixLength);
  return { start, end: start + size - 1n };
}

/**
 * Disjoint segments, ascending, each owned by the innermost row covering it:
 * rows sorted by start, wider first, walked with a stack of the open ones.
 */
function flatten(rows: readonly OverrideRow[], version: 4 | 6): Segment[] {
  const ranges = rows
    .map((row, index) => ({ ...bounds(row), row: index, version: row.cidr.version }))
    .filter((r) => r.version === version)
    .sort((a, b) => (a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.end > b.end ? -1 : 1));
  const out: Segment[] = [];
  const open: Segment[] = [];
  let cursor = 0n;
  const closeUntil = (limit: bigint | null): void => {
    for (let top = open.at(-1); top !== undefined; top = open.at(-1)) {
      if (limit !== null && top.end >= limit) return;
      if (cursor <= top.end) out.push({ start: cursor, end: top.end, row: top.row });
      cursor = top.end + 1n;
      open.pop();
    }
  };
  for (const range of ranges) {
    closeUntil(range.start);
    const top = open.at(-1);
    if (top !== undefined && cursor < range.start) {
      out.push({ start: cursor, end: range.start - 1n, row: top.row });
    }
    cursor = range.start;
    open.push(range);
  }
  closeUntil(null);
  return out;
}
