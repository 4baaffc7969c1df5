// The compiled form of a GeoIP or ASN data set: every address maps to one
// record index through sorted, gapless range starts, searched in flat typed
// arrays (no tree walk, no allocation, no cache in front).
//
// IPv4: one 32-bit start per range. A jump table on the first 16 bits names
// the slice of ranges an address can fall in, so a lookup is one read of the
// jump table and a bisection of that slice (a few cache lines).
//
// IPv6: the data is not /64-clean (DB-IP's IPv6 file has leaves down to /128,
// ~10,000 of 4.4 million ranges start inside a /64), but nearly so. Keys are
// the upper 64 bits (two 32-bit words); a /64 block that holds range
// boundaries inside it is marked SPLIT and carries a small second table keyed
// by the lower 64 bits. That keeps lookups exact at half the memory of
// 128-bit keys.
//
// An MMDB IPv6 tree may also alias parts of its space to its IPv4 subtree
// (MaxMind's ::/96, ::ffff:0:0/96, 2001::/32 Teredo and 2002::/16 6to4): such a
// range is marked ALIAS with the bit offset of the embedded IPv4 address, and
// answers what the IPv4 table answers for those 32 bits, as a reader of the
// MMDB would.

import { WHOLE, type Pager, type PagedSpan } from './table-file.js';

/** no record for these addresses */
export const NONE = 0xffffffff;
/** the /64 block has boundaries inside it: the low bits index the split blocks */
export const SPLIT = 0x80000000;
/** the range stands for IPv4: the low bits are the bit offset of the embedded address */
export const ALIAS = 0x40000000;
/** record indexes stay below both flags */
export const MAX_RECORDS = 0x3fffffff;

const FLAGS = SPLIT | ALIAS;
const JUMP_ENTRIES = 65_537;

export interface V4Table {
  /** range starts, ascending, the first 0 */
  keys: Uint32Array;
  values: Uint32Array;
  /** jump[h]: index of the last range starting at or before h << 16; jump[65536] = last index */
  jump: Uint32Array;
}

export interface V6Table {
  /** upper 64 bits of range starts as word pairs (high, low), ascending, the first 0 */
  keys: Uint32Array;
  values: Uint32Array;
  /** as V4Table's, on the first 16 bits */
  jump: Uint32Array;
  /** split block i owns sub-ranges splitAt[i] .. splitAt[i + 1] - 1 */
  splitAt: Uint32Array;
  /** lower 64 bits of sub-range starts as word pairs; each block's first is 0 */
  subKeys: Uint32Array;
  subValues: Uint32Array;
}

/** The index of the last key ≤ value within [lo, hi] of a one-word key array. */
function bisect1(keys: Uint32Array, value: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (keys[mid]! <= value) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** As bisect1, for keys of two words (high, low) compared as one 64-bit number. */
function bisect2(keys: Uint32Array, high: number, low: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    const k = keys[2 * mid]!;
    if (k < high || (k === high && keys[2 * mid + 1]! <= low)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export class RangeTable {
  constructor(
    readonly v4: V4Table,
    readonly v6: V6Table,
    /**
     * What of the arrays is in memory (a paged table file): each lookup asks
     * for the entries it reads, just before it reads them, until all are.
     */
    private readonly pager: Pager = WHOLE,
  ) {
    this.v4Span = pager.span([v4.keys, v4.values, v4.jump]);
    this.v6Span = pager.span([v6.keys, v6.values, v6.jump, v6.splitAt, v6.subKeys, v6.subValues]);
    this.at = {
      v4Keys: v4.keys.byteOffset,
      v4Values: v4.values.byteOffset,
      v4Jump: v4.jump.byteOffset,
      v6Keys: v6.keys.byteOffset,
      v6Values: v6.values.byteOffset,
      v6Jump: v6.jump.byteOffset,
      splitAt: v6.splitAt.byteOffset,
      subKeys: v6.subKeys.byteOffset,
      subValues: v6.subValues.byteOffset,
    };
  }

  /** what the IPv4 and IPv6 lookups read: while not whole, they ask for their entries */
  private readonly v4Span: PagedSpan;
  private readonly v6Span: PagedSpan;

  /**
   * Where each array starts in its file's body, for `need4`: reading a typed
   * array's `byteOffset` costs 10–30 ns (a call, not inlined on Node 20), too
   * much for every lookup of a paged table.
   */
  private readonly at: Record<
    | 'v4Keys'
    | 'v4Values'
    | 'v4Jump'
    | 'v6Keys'
    | 'v6Values'
    | 'v6Jump'
    | 'splitAt'
    | 'subKeys'
    | 'subValues',
    number
  >;

  /**
   * Makes entries [from, to) of one of this table's arrays readable, for a
   * reader other than the lookups below (they ask for what they read).
   */
  need(view: Uint32Array, from: number, to: number): void {
    this.pager.need(view, from, to);
  }

  /** Entries [from, to) of the 32-bit array starting at byte `at` of the body (this.at). */
  private need4(at: number, from: number, to: number): void {
    this.pager.needBytes(at + 4 * from, at + 4 * to);
  }

  get rangeCount(): number {
    return this.v4.values.length + this.v6.values.length + this.v6.subValues.length;
  }

  /** The record index of an IPv4 address (as an unsigned 32-bit integer), or NONE. */
  findV4(value: number): number {
    const { keys, values, jump } = this.v4;
    const paged = !this.v4Span.whole;
    const top = value >>> 16;
    if (paged) this.need4(this.at.v4Jump, top, top + 2);
    const lo = jump[top]!;
    const hi = jump[top + 1]!;
    if (paged) this.need4(this.at.v4Keys, lo, hi + 1);
    const at = bisect1(keys, value, lo, hi);
    if (paged) this.need4(this.at.v4Values, at, at + 1);
    return values[at]!;
  }

  /**
   * The row of the IPv4 table holding `value`: its first and last address and
   * record index (NONE for a gap). Off the request path (vpn-range expansion).
   */
  rowV4(value: number): { start: number; end: number; record: number } {
    const { keys, values, jump } = this.v4;
    const top = value >>> 16;
    this.need4(this.at.v4Jump, top, top + 2);
    const lo = jump[top]!;
    const hi = jump[top + 1]!;
    this.need4(this.at.v4Keys, lo, Math.min(hi + 2, keys.length));
    const at = bisect1(keys, value, lo, hi);
    this.need4(this.at.v4Keys, at, Math.min(at + 2, keys.length));
    this.need4(this.at.v4Values, at, at + 1);
    const end = at + 1 < keys.length ? keys[at + 1]! - 1 : 0xffffffff;
    return { start: keys[at]!, end, record: values[at]! };
  }

  /**
   * Each record's IPv4 addresses, its rows' sizes summed (gaps left out): one
   * pass over the arrays, off the request path (the learned VPN networks).
   */
  v4SizesByRecord(): Map<number, number> {
    const { keys, values } = this.v4;
    this.need4(this.at.v4Keys, 0, keys.length);
    this.need4(this.at.v4Values, 0, values.length);
    // a dense array by record index: a Map update per row cost ~4x as much
    const byRecord: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      const record = values[i]!;
      if (record === NONE) continue;
      const end = i + 1 < keys.length ? keys[i + 1]! - 1 : 0xffffffff;
      byRecord[record] = (byRecord[record] ?? 0) + (end - keys[i]! + 1);
    }
    const sizes = new Map<number, number>();
    byRecord.forEach((size, record) => sizes.set(record, size));
    return sizes;
  }

  /** The record index of an IPv6 address given as eight 16-bit groups, or NONE. */
  findV6(groups: readonly number[]): number {
    const { keys, values, jump } = this.v6;
    const paged = !this.v6Span.whole;
    const g0 = groups[0]!;
    const high = ((g0 << 16) | groups[1]!) >>> 0;
    const low = ((groups[2]! << 16) | groups[3]!) >>> 0;
    if (paged) this.need4(this.at.v6Jump, g0, g0 + 2);
    const lo = jump[g0]!;
    const hi = jump[g0 + 1]!;
    if (paged) this.need4(this.at.v6Keys, 2 * lo, 2 * hi + 2);
    const at = bisect2(keys, high, low, lo, hi);
    if (paged) this.need4(this.at.v6Values, at, at + 1);
    let value = values[at]!;
    if (value === NONE || (value & FLAGS) === 0) return value;
    if ((value & SPLIT) !== 0) {
      const { splitAt, subKeys, subValues } = this.v6;
      const block = value & ~SPLIT;
      const subHigh = ((groups[4]! << 16) | groups[5]!) >>> 0;
      const subLow = ((groups[6]! << 16) | groups[7]!) >>> 0;
      if (paged) this.need4(this.at.splitAt, block, block + 2);
      const first = splitAt[block]!;
      const last = splitAt[block + 1]! - 1;
      if (paged) this.need4(this.at.subKeys, 2 * first, 2 * last + 2);
      const sub = bisect2(subKeys, subHigh, subLow, first, last);
      if (paged) this.need4(this.at.subValues, sub, sub + 1);
      value = subValues[sub]!;
      if (value === NONE || (value & ALIAS) === 0) return value;
    }
    return this.findV4(embeddedIpv4(groups, value & ~ALIAS));
  }
}

/** The 32 bits of an IPv6 address starting at bit `offset` (0–96). */
export function embeddedIpv4(groups: readonly number[], offset: number): number {
  let out = 0;
  for (let bit = offset; bit < offset + 32; bit++) {
    const group = groups[bit >>> 4]!;
    out = out * 2 + ((group >>> (15 - (bit & 15))) & 1);
  }
  return out;
}

/**
 * The jump table of ascending range starts: entry `top` is the index of the
 * last range starting at or before the first address whose top 16 bits are
 * `top`; `startsBy(index, top)` says whether range `index` does.
 */
function jumpTable(count: number, startsBy: (index: number, top: number) => boolean): Uint32Array {
  const jump = new Uint32Array(JUMP_ENTRIES);
  let index = 0;
  for (let top = 0; top < 65_536; top++) {
    while (index + 1 < count && startsBy(index + 1, top)) index++;
    jump[top] = index;
  }
  jump[65_536] = Math.max(0, count - 1);
  return jump;
}

export function v4Jump(keys: Uint32Array): Uint32Array {
  return jumpTable(keys.length, (i, top) => keys[i]! <= top * 65_536);
}

export function v6Jump(keys: Uint32Array): Uint32Array {
  return jumpTable(keys.length / 2, (i, top) => {
    const high = keys[2 * i]!;
    const bound = top * 65_536;
    return high < bound || (high === bound && keys[2 * i + 1] === 0);
  });
}
