// The fewest CIDR blocks covering a range exactly (the CSV's `cidr` column:
// ClickHouse's ip_trie and most range joins want prefixes): from the start,
// the largest block aligned there that ends by the range's end, again.
import { formatIpv4, formatIpv6 } from '../net/ip.js';

/** The blocks of [start, end] of one family, as CIDR texts, ascending. */
export function rangeCidrs(family: 4 | 6, start: bigint, end: bigint): string[] {
  return family === 4 ? v4Cidrs(Number(start), Number(end)) : v6Cidrs(start, end);
}

function v4Cidrs(start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    // trailing zero bits of `at` (32 for 0), and the widest block that fits before `end`
    const aligned = at === 0 ? 32 : 31 - Math.clz32((at & -at) >>> 0);
    const fits = Math.floor(Math.log2(end - at + 1));
    const size = Math.min(aligned, fits);
    out.push(`${formatIpv4(at)}/${32 - size}`);
    at += 2 ** size;
  }
  return out;
}

function v6Cidrs(start: bigint, end: bigint): string[] {
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    const aligned = at === 0n ? 128 : bitLength(at & -at) - 1;
    const fits = bitLength(end - at + 1n) - 1;
    const size = Math.min(aligned, fits);
    out.push(`${addressText(6, at)}/${128 - size}`);
    at += 1n << BigInt(size);
  }
  return out;
}

function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** An address of one family given as a number. */
export function addressText(family: 4 | 6, n: bigint): string {
  if (family === 4) return formatIpv4(Number(n));
  const high = n >> 64n;
  const low = n & 0xffffffffffffffffn;
  const groups: number[] = [];
  for (const half of [high, low]) {
    const h = Number(half >> 32n);
    const l = Number(half & 0xffffffffn);
    groups.push(h >>> 16, h & 0xffff, l >>> 16, l & 0xffff);
  }
  return formatIpv6(groups);
}
