// A CSV row's range columns, `first,last,blocks`: the fewest CIDR blocks
// covering a range exactly (ClickHouse's ip_trie and most range joins want
// prefixes), found from the start as the largest block aligned there that
// ends by the range's end, again. IPv4 in plain numbers; IPv6 as four 32-bit
// words, most significant first, never as BigInt (a BigInt per row and per
// block was most of the CSV's cost: 8 million rows).
import { formatIpv4, formatIpv6 } from '../net/ip.js';

/** The columns `first,last,blocks` of the IPv4 range [start, end] (blocks space-separated). */
export function v4RangeColumns(start: number, end: number): string {
  // the first block starts where the range does: its text is the start's
  const first = formatIpv4(start);
  let blocks = '';
  let at = start;
  for (;;) {
    const size = Math.min(alignedBits(at), fitBits(end - at + 1));
    blocks += `${blocks === '' ? first : ` ${formatIpv4(at)}`}/${32 - size}`;
    const next = at + 2 ** size;
    if (next > end) break;
    at = next;
  }
  return `${first},${formatIpv4(end)},${blocks}`;
}

/** Trailing zero bits of an IPv4 address (32 for 0.0.0.0). */
function alignedBits(at: number): number {
  return at === 0 ? 32 : 31 - Math.clz32((at & -at) >>> 0);
}

/** floor(log2(count)) for 1 ≤ count ≤ 2^32. */
function fitBits(count: number): number {
  return count >= 2 ** 32 ? 32 : 31 - Math.clz32(count);
}

/** A 128-bit number as four 32-bit words, most significant first. */
export type Words = Uint32Array;

/** the walk's scratch words (one call at a time: nothing allocated per row) */
const at = new Uint32Array(4);
const count = new Uint32Array(4);
const groups = [0, 0, 0, 0, 0, 0, 0, 0];

/** The columns `first,last,blocks` of the IPv6 range [start, end]; neither is changed. */
export function v6RangeColumns(start: Words, end: Words): string {
  at.set(start);
  // the first block starts where the range does: its text is the start's
  const first = v6Text(start);
  let blocks = '';
  for (;;) {
    // count = end - at + 1 (0 when it wraps: the whole space, 2^128)
    subtract(end, at, count);
    const whole = increment(count);
    const size = Math.min(trailingZeros(at), whole ? 128 : bitLength(count) - 1);
    blocks += `${blocks === '' ? first : ` ${v6Text(at)}`}/${128 - size}`;
    if (size === 128 || !addPowerOfTwo(at, size) || compare(at, end) > 0) break;
  }
  return `${first},${v6Text(end)},${blocks}`;
}

export function v6Text(w: Words): string {
  groupsOfWords(groups, w[0]!, w[1]!, w[2]!, w[3]!);
  return formatIpv6(groups);
}

/** Writes the eight 16-bit groups of the address (w0 w1 w2 w3) into `out`. */
export function groupsOfWords(out: number[], w0: number, w1: number, w2: number, w3: number): void {
  out[0] = w0 >>> 16;
  out[1] = w0 & 0xffff;
  out[2] = w1 >>> 16;
  out[3] = w1 & 0xffff;
  out[4] = w2 >>> 16;
  out[5] = w2 & 0xffff;
  out[6] = w3 >>> 16;
  out[7] = w3 & 0xffff;
}

/** out = a - b (a ≥ b). */
function subtract(a: Words, b: Words, out: Words): void {
  let borrow = 0;
  for (let i = 3; i >= 0; i--) {
    const d = a[i]! - b[i]! - borrow;
    borrow = d < 0 ? 1 : 0;
    out[i] = d < 0 ? d + 2 ** 32 : d;
  }
}

/** w += 1; true when it wrapped to 0. */
function increment(w: Words): boolean {
  for (let i = 3; i >= 0; i--) {
    if (w[i] !== 0xffffffff) {
      w[i]! += 1;
      return false;
    }
    w[i] = 0;
  }
  return true;
}

/** w -= 1 (w > 0). */
export function decrement(w: Words): void {
  for (let i = 3; i >= 0; i--) {
    if (w[i] !== 0) {
      w[i]! -= 1;
      return;
    }
    w[i] = 0xffffffff;
  }
}

/** w += 2^bits (bits < 128); false when it passed the end of the space. */
function addPowerOfTwo(w: Words, bits: number): boolean {
  let i = 3 - (bits >>> 5);
  let carry = 2 ** (bits & 31);
  while (i >= 0) {
    const sum = w[i]! + carry;
    if (sum < 2 ** 32) {
      w[i] = sum;
      return true;
    }
    w[i] = sum - 2 ** 32;
    carry = 1;
    i--;
  }
  return false;
}

function trailingZeros(w: Words): number {
  for (let i = 3; i >= 0; i--) {
    const v = w[i]!;
    if (v !== 0) return 32 * (3 - i) + 31 - Math.clz32((v & -v) >>> 0);
  }
  return 128;
}

/** Bits needed for w (0 for 0). */
function bitLength(w: Words): number {
  for (let i = 0; i < 4; i++) {
    const v = w[i]!;
    if (v !== 0) return 32 * (3 - i) + 32 - Math.clz32(v);
  }
  return 0;
}

export function compare(a: Words, b: Words): number {
  for (let i = 0; i < 4; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}
