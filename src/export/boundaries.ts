// Where an answer can change: the addresses at which some source of an
// answer starts a new range. Between two neighbouring boundaries of the union
// every source holds one value, so the lookups answer the same for every
// address of that elementary interval, and asking them for its first address
// answers for all of it. Each source gives its IPv4 boundaries as numbers and
// its IPv6 boundaries as four 32-bit words each, ascending.
import { notGlobalRanges } from '../net/special-purpose.js';
import { ALIAS, NONE, SPLIT, type RangeTable } from '../data/range-table.js';
import { GrowableU32 } from '../data/range-table-builder.js';
import { cidrRanges, rangeBoundaries, wordsOf, type Boundaries } from '../net/range-boundaries.js';

export interface BoundarySource {
  name: string;
  boundaries(): Boundaries;
}

/**
 * A compiled GeoIP or ASN table's range starts: IPv4 keys, IPv6 keys (upper
 * 64 bits) with the sub-ranges of split /64 blocks, and inside a range that
 * aliases IPv4 (an MMDB's 6to4 or Teredo alias) every IPv4 key moved there.
 */
export function rangeTableBoundaries(name: string, table: RangeTable): BoundarySource {
  return {
    name,
    boundaries: () => {
      const { v4, v6 } = table;
      const out = new GrowableU32();
      const push = (a: number, b: number, c: number, d: number) => {
        out.push(a);
        out.push(b);
        out.push(c);
        out.push(d);
      };
      const count = v6.values.length;
      for (let i = 0; i < count; i++) {
        const high = v6.keys[2 * i]!;
        const low = v6.keys[2 * i + 1]!;
        const value = v6.values[i]!;
        if (value !== NONE && (value & SPLIT) !== 0) {
          const block = value & ~SPLIT;
          for (let s = v6.splitAt[block]!; s < v6.splitAt[block + 1]!; s++) {
            push(high, low, v6.subKeys[2 * s]!, v6.subKeys[2 * s + 1]!);
            const sub = v6.subValues[s]!;
            if (sub !== NONE && (sub & ALIAS) !== 0) {
              const start = toBig(high, low, v6.subKeys[2 * s]!, v6.subKeys[2 * s + 1]!);
              pushAliased(out, start, sub & ~ALIAS, v4.keys);
            }
          }
          continue;
        }
        push(high, low, 0, 0);
        if (value !== NONE && (value & ALIAS) !== 0) {
          pushAliased(out, toBig(high, low, 0, 0), value & ~ALIAS, v4.keys);
        }
      }
      return { v4: v4.keys, v6: out.toArray() };
    },
  };
}

function toBig(a: number, b: number, c: number, d: number): bigint {
  return (BigInt(a) << 96n) | (BigInt(b) << 64n) | (BigInt(c) << 32n) | BigInt(d);
}

/** The IPv4 keys placed at bit `offset` of a range starting at `start` (the embedded address). */
function pushAliased(out: GrowableU32, start: bigint, offset: number, keys: Uint32Array): void {
  const shift = BigInt(96 - offset);
  for (let k = 1; k < keys.length; k++) {
    for (const word of wordsOf([start + (BigInt(keys[k]!) << shift)])) out.push(word);
  }
}

/** Special-purpose space that is not globally reachable: a GeoIP answer there is a bogon. */
export function bogonBoundaries(): BoundarySource {
  return {
    name: 'bogons',
    boundaries: () => {
      const { v4, v6 } = cidrRanges(notGlobalRanges());
      return rangeBoundaries(v4, v6);
    },
  };
}

/**
 * The layout of the files: ::/96 is the IPv4 subtree and ::ffff:0:0/96 its
 * alias, so both begin and end an interval.
 */
export function layoutBoundaries(): BoundarySource {
  // as numbers: parseCidr reads ::ffff:0:0/96 as the IPv4 space it wraps
  const mapped = 0xffffn << 32n;
  return {
    name: 'layout',
    boundaries: () => ({
      v4: new Uint32Array(0),
      v6: wordsOf([0n, 1n << 32n, mapped, mapped + (1n << 32n)]),
    }),
  };
}

/** Every source's IPv4 boundaries, 0 included, ascending, each once. */
export function mergeV4(parts: readonly Uint32Array[]): Uint32Array {
  const all = new Uint32Array(1 + parts.reduce((n, p) => n + p.length, 0));
  let at = 1;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  all.sort();
  let kept = 0;
  for (let i = 0; i < all.length; i++)
    if (i === 0 || all[i] !== all[kept - 1]) all[kept++] = all[i]!;
  return all.slice(0, kept);
}

/** Every source's IPv6 boundaries (each ascending), :: included, ascending, each once. */
export function mergeV6(parts: readonly Uint32Array[]): Uint32Array {
  // the small sources merged first: the large tables are passed over once or twice
  const bySize = [new Uint32Array(4), ...parts.map(checkedAscending)].sort(
    (x, y) => x.length - y.length,
  );
  return bySize.reduce((merged, part) => mergeTwo(merged, part));
}

function compareAt(a: Uint32Array, i: number, b: Uint32Array, j: number): number {
  for (let w = 0; w < 4; w++) {
    const x = a[4 * i + w]!;
    const y = b[4 * j + w]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** A source's IPv6 boundaries, sorted when they were not (a source's contract is ascending). */
function checkedAscending(part: Uint32Array): Uint32Array {
  const n = part.length / 4;
  for (let i = 1; i < n; i++) {
    if (compareAt(part, i - 1, part, i) > 0) {
      const values: bigint[] = [];
      for (let k = 0; k < n; k++) {
        values.push(toBig(part[4 * k]!, part[4 * k + 1]!, part[4 * k + 2]!, part[4 * k + 3]!));
      }
      return wordsOf(values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    }
  }
  return part;
}

function mergeTwo(a: Uint32Array, b: Uint32Array): Uint32Array {
  const n = a.length / 4;
  const m = b.length / 4;
  const out = new Uint32Array(4 * (n + m));
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < n || j < m) {
    const fromA = j === m || (i < n && compareAt(a, i, b, j) <= 0);
    const from = fromA ? a : b;
    const at = 4 * (fromA ? i++ : j++);
    // each boundary once
    if (
      k > 0 &&
      out[4 * k - 4] === from[at] &&
      out[4 * k - 3] === from[at + 1] &&
      out[4 * k - 2] === from[at + 2] &&
      out[4 * k - 1] === from[at + 3]
    ) {
      continue;
    }
    out[4 * k] = from[at]!;
    out[4 * k + 1] = from[at + 1]!;
    out[4 * k + 2] = from[at + 2]!;
    out[4 * k + 3] = from[at + 3]!;
    k++;
  }
  return out.slice(0, 4 * k);
}
