// Where ranges start, as the export and the range lists cut the address
// space: IPv4 boundaries as numbers, IPv6 ones as four 32-bit words each.
import { parseCidr } from './cidr-match.js';

export interface Boundaries {
  /** IPv4 addresses where a range starts (any order, repeats allowed) */
  v4: Uint32Array;
  /** IPv6 ones, four words each, ascending (repeats allowed) */
  v6: Uint32Array;
}

const V4_SPACE = 2n ** 32n;
const V6_SPACE = 2n ** 128n;

/** 128-bit numbers as four words each (ascending in, ascending out). */
export function wordsOf(values: readonly bigint[]): Uint32Array {
  const out = new Uint32Array(4 * values.length);
  values.forEach((v, i) => {
    for (let w = 0; w < 4; w++) out[4 * i + w] = Number((v >> BigInt(96 - 32 * w)) & 0xffffffffn);
  });
  return out;
}

/** Boundaries of [start, end] ranges given as numbers (IPv4) and 128-bit numbers (IPv6). */
export function rangeBoundaries(
  v4: readonly { start: number; end: number }[],
  v6: readonly { start: bigint; end: bigint }[],
): Boundaries {
  const four: number[] = [];
  for (const r of v4) {
    four.push(r.start);
    if (BigInt(r.end) + 1n < V4_SPACE) four.push(r.end + 1);
  }
  const six: bigint[] = [];
  for (const r of v6) {
    six.push(r.start);
    if (r.end + 1n < V6_SPACE) six.push(r.end + 1n);
  }
  return {
    v4: Uint32Array.from(four),
    v6: wordsOf(six.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))),
  };
}

/** The ranges of CIDR texts, by family. */
export function cidrRanges(texts: readonly string[]): {
  v4: { start: number; end: number }[];
  v6: { start: bigint; end: bigint }[];
} {
  const v4: { start: number; end: number }[] = [];
  const v6: { start: bigint; end: bigint }[] = [];
  for (const text of texts) {
    const cidr = parseCidr(text);
    if (cidr === null) throw new Error(`not a CIDR: ${text}`);
    if (cidr.version === 4) {
      const start = cidr.network[0]!;
      v4.push({ start, end: start + 2 ** (32 - cidr.prefixLength) - 1 });
    } else {
      const start = cidr.network.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
      v6.push({ start, end: start + (1n << BigInt(128 - cidr.prefixLength)) - 1n });
    }
  }
  return { v4, v6 };
}
