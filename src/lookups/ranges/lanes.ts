// The sources of an answer as lanes the range walk reads side by side: each
// lane knows its value at the walk's position and where it next changes.
// Positions are four 32-bit words, most significant first (an IPv4 address
// is 0.0.0.w3), so one walk serves both families without BigInt. A compiled
// table is read straight through its arrays (no search per range); a small
// source (bogons, overrides, feeds) is asked its value at each of its own
// boundaries only.
import { ALIAS, NONE, SPLIT, type RangeTable } from '../../data/range-table.js';
import { formatIpv4, formatIpv6, type Ip } from '../../net/ip.js';
import { groupsOfWords } from '../../net/cidr-cover.js';

/** One source of an answer, read in address order. */
export interface Lane {
  /** the value from the walk's position up to the next boundary */
  value: number;
  /** no boundary left: the value holds to the end of the family's space */
  done: boolean;
  /** the next boundary, four words (most significant first) */
  readonly next: Uint32Array;
  /** moves to the next boundary: `value` becomes the value there, `next` the one after */
  advance(): void;
}

/** The address at a position, with its text, as the lookups take it. */
export function addressAt(version: 4 | 6, w0: number, w1: number, w2: number, w3: number): Ip {
  if (version === 4) return { version: 4, value: w3, text: formatIpv4(w3) };
  const groups = [0, 0, 0, 0, 0, 0, 0, 0];
  groupsOfWords(groups, w0, w1, w2, w3);
  return { version: 6, groups, text: formatIpv6(groups) };
}

/** A compiled table's IPv4 ranges: keys and values read in order. */
export class TableLaneV4 implements Lane {
  value: number;
  done = false;
  readonly next = new Uint32Array(4);
  /** the current range (the walk's inner loop reads the arrays itself: FamilyWalk.runV4) */
  at = 0;
  readonly keys: Uint32Array;
  readonly values: Uint32Array;

  constructor(table: RangeTable) {
    this.keys = table.v4.keys;
    this.values = table.v4.values;
    table.need(this.keys, 0, this.keys.length);
    table.need(this.values, 0, this.values.length);
    // the first key is 0: the first range starts where the walk does
    this.value = this.values[0]!;
    this.peek();
  }

  peek(): void {
    if (this.at + 1 >= this.keys.length) this.done = true;
    else this.next[3] = this.keys[this.at + 1]!;
  }

  advance(): void {
    this.at++;
    this.value = this.values[this.at]!;
    this.peek();
  }
}

/**
 * A compiled table's IPv6 ranges in order: the /64 keys, the sub-ranges of
 * split blocks inside them, and inside a range that aliases IPv4 (an MMDB's
 * 6to4 or Teredo alias) the IPv4 ranges moved there (what findV6 answers).
 */
export class TableLaneV6 implements Lane {
  value = NONE;
  done = false;
  readonly next = new Uint32Array(4);
  /** the entry after the current one (its start is `next`) */
  private pending = NONE;
  private top = 0;
  /** split block sub-range index and end (sub < subEnd: inside a split block) */
  private sub = 0;
  private subEnd = 0;
  /** alias: IPv4 key index (alias < aliasEnd: inside an alias), its base and shift */
  private alias = 0;
  private aliasEnd = 0;
  private readonly base = new Uint32Array(4);
  private shift = 0;
  private readonly table: RangeTable;

  constructor(table: RangeTable) {
    this.table = table;
    const v6 = table.v6;
    for (const view of [v6.keys, v6.values, v6.splitAt, v6.subKeys, v6.subValues]) {
      table.need(view, 0, view.length);
    }
    table.need(table.v4.keys, 0, table.v4.keys.length);
    table.need(table.v4.values, 0, table.v4.values.length);
    // the first entry starts at :: (the first key is 0)
    this.readEntry();
    this.advance();
  }

  advance(): void {
    this.value = this.pending;
    this.readEntry();
  }

  /** Reads the entry after the current one into `next` and `pending`; done when none is left. */
  private readEntry(): void {
    const { v4, v6 } = this.table;
    for (;;) {
      if (this.alias < this.aliasEnd) {
        const key = v4.keys[this.alias]!;
        this.pending = v4.values[this.alias]!;
        this.alias++;
        this.placeKey(key);
        return;
      }
      if (this.sub < this.subEnd) {
        const s = this.sub++;
        const value = v6.subValues[s]!;
        this.next[0] = v6.keys[2 * (this.top - 1)]!;
        this.next[1] = v6.keys[2 * (this.top - 1) + 1]!;
        this.next[2] = v6.subKeys[2 * s]!;
        this.next[3] = v6.subKeys[2 * s + 1]!;
        if (value !== NONE && (value & ALIAS) !== 0) {
          this.enterAlias(value & ~ALIAS);
          continue;
        }
        this.pending = value;
        return;
      }
      if (this.top >= v6.values.length) {
        this.done = true;
        return;
      }
      const t = this.top++;
      const value = v6.values[t]!;
      this.next[0] = v6.keys[2 * t]!;
      this.next[1] = v6.keys[2 * t + 1]!;
      this.next[2] = 0;
      this.next[3] = 0;
      if (value !== NONE && (value & SPLIT) !== 0) {
        const block = value & ~SPLIT;
        this.sub = v6.splitAt[block]!;
        this.subEnd = v6.splitAt[block + 1]!;
        continue;
      }
      if (value !== NONE && (value & ALIAS) !== 0) {
        this.enterAlias(value & ~ALIAS);
        continue;
      }
      this.pending = value;
      return;
    }
  }

  /** The IPv4 ranges placed at bit `offset` of the range starting at `next` come next. */
  private enterAlias(offset: number): void {
    this.base.set(this.next);
    this.shift = 96 - offset;
    this.alias = 0;
    this.aliasEnd = this.table.v4.keys.length;
  }

  /** next = base + key << shift (the alias's range is aligned: its bits there are 0). */
  private placeKey(key: number): void {
    const words = this.next;
    words.set(this.base);
    const low = 3 - Math.floor(this.shift / 32);
    const r = this.shift % 32;
    if (r === 0) words[low] = (words[low]! | key) >>> 0;
    else {
      words[low] = (words[low]! | (key << r)) >>> 0;
      words[low - 1] = (words[low - 1]! | (key >>> (32 - r))) >>> 0;
    }
  }
}

/**
 * A small source given as its boundaries (IPv4: numbers; IPv6: four words
 * each), its value asked at each boundary by `valueAt` (a lookup of that
 * address). Boundaries may repeat; they must ascend.
 */
export class ListLane implements Lane {
  value: number;
  done = false;
  readonly next = new Uint32Array(4);
  private at = 0;
  private readonly count: number;

  constructor(
    private readonly version: 4 | 6,
    private readonly starts: Uint32Array,
    private readonly valueAt: (ip: Ip) => number,
  ) {
    this.count = version === 4 ? starts.length : starts.length / 4;
    this.value = valueAt(addressAt(version, 0, 0, 0, 0));
    this.peek();
  }

  /** The next boundary after the walk's position: past 0 and past repeats. */
  private peek(): void {
    for (; this.at < this.count; this.at++) {
      this.read(this.at);
      const n = this.next;
      if (n[0] !== 0 || n[1] !== 0 || n[2] !== 0 || n[3] !== 0) {
        if (this.at === 0 || !this.sameAsPrevious()) return;
      }
    }
    this.done = true;
  }

  private read(i: number): void {
    if (this.version === 4) this.next[3] = this.starts[i]!;
    else {
      this.next[0] = this.starts[4 * i]!;
      this.next[1] = this.starts[4 * i + 1]!;
      this.next[2] = this.starts[4 * i + 2]!;
      this.next[3] = this.starts[4 * i + 3]!;
    }
  }

  private sameAsPrevious(): boolean {
    const s = this.starts;
    const i = this.at;
    if (this.version === 4) return s[i] === s[i - 1];
    return (
      s[4 * i] === s[4 * i - 4] &&
      s[4 * i + 1] === s[4 * i - 3] &&
      s[4 * i + 2] === s[4 * i - 2] &&
      s[4 * i + 3] === s[4 * i - 1]
    );
  }

  advance(): void {
    const n = this.next;
    this.value = this.valueAt(addressAt(this.version, n[0]!, n[1]!, n[2]!, n[3]!));
    this.at++;
    this.peek();
  }
}

/** IPv4 boundaries ascending, each once (a source's contract allows any order). */
export function sortedV4(starts: Uint32Array): Uint32Array {
  for (let i = 1; i < starts.length; i++) {
    if (starts[i]! < starts[i - 1]!) return Uint32Array.from(starts).sort();
  }
  return starts;
}
