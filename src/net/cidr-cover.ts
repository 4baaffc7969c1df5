// The fewest CIDR blocks covering a range of addresses exactly: from the
// start, the largest block aligned there that ends by the range's end, again.
// IPv4 in plain numbers; IPv6 as four 32-bit words, most significant first,
// never as BigInt (a BigInt per block was most of the export CSV's cost over
// 8 million ranges). Shared by the export's CSV (src/export/cidrs.ts) and the
// range lists (src/lookups/ranges/).

import { formatIpv6 } from './ip.js';
/** A 128-bit number as four 32-bit words, most significant first. */
export type Words = Uint32Array;

/**
 * Calls `block(at, prefixLength)` for each block of the IPv4 range [start,
 * end], ascending; `at` is the block's first address.
 */
export function v4Blocks(
  start: number,
  end: number,
  block: (at: number, prefixLength: number) => void,
): void {
  let at = start;
  for (;;) {
    const size = Math.min(alignedBits(at), fitBits(end - at + 1));
    block(at, 32 - size);
    const next = at + 2 ** size;
    if (next > end) return;
    at = next;
  }
}

/** Trailing zero bits of an IPv4 address (32 for 0.0.0.0). */
function alignedBits(at: number): number {
  return at === 0 ? 32 : 31 - Math.clz32((at & -at) >>> 0);
}

/** floor(log2(count)) for 1 ≤ count ≤ 2^32. */
function fitBits(count: number): number {
  return count >= 2 ** 32 ? 32 : 31 - Math.clz32(count);
}

/** the walk's scratch words (one call at a time: nothing allocated per range) */
const at6 = new Uint32Array(4);
const count6 = new Uint32Array(4);

/**
 * Calls `block(at, prefixLength)` for each block of the IPv6 range [start,
 * end], ascending; `at` is the block's first address, scratch words valid
 * during the call only. Neither argument is changed.
 */
export function v6Blocks(
  start: Words,
  end: Words,
  block: (at: Words, prefixLength: number) => void,
): void {
  at6.set(start);
  for (;;) {
    // count = end - at + 1 (0 when it wraps: the whole space, 2^128)
    subtract(end, at6, count6);
    const whole = increment(count6);
    const size = Math.min(trailingZeros(at6), whole ? 128 : bitLength(count6) - 1);
    block(at6, 128 - size);
    if (size === 128 || !addPowerOfTwo(at6, size) || compare(at6, end) > 0) return;
  }
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
export function increment(w: Words): boolean {
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

const wordGroups = [0, 0, 0, 0, 0, 0, 0, 0];

/** The IPv6 address of four 32-bit words as text (RFC 5952, as formatIpv6 writes it). */
export function wordsText(w: Words): string {
  groupsOfWords(wordGroups, w[0]!, w[1]!, w[2]!, w[3]!);
  return formatIpv6(wordGroups);
}
