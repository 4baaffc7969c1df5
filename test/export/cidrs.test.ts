// The CSV's range columns (src/export/cidrs.ts, plain numbers and 32-bit
// words) against a BigInt reference written here from the definition: the
// blocks are CIDR prefixes, ascending, each aligned, covering start–end
// exactly with no gap, and each as large as it can be (the fewest blocks).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v4RangeColumns, v6RangeColumns } from '../../src/export/cidrs.js';
import { decrement } from '../../src/net/cidr-cover.js';
import { parseIp, formatIpv6 } from '../../src/net/ip.js';
import { seededRandom } from '../helpers/seeded-random.js';

const random = seededRandom();

function v6Big(text: string): bigint {
  const ip = parseIp(text)!;
  assert.equal(ip.version, 6);
  return ip.groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

function v4Big(text: string): bigint {
  const ip = parseIp(text)!;
  assert.equal(ip.version, 4);
  return BigInt(ip.value);
}

function wordsOf(n: bigint): Uint32Array {
  return Uint32Array.from([96n, 64n, 32n, 0n].map((s) => Number((n >> s) & 0xffffffffn)));
}

function textOf(n: bigint): string {
  const groups: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(Number((n >> s) & 0xffffn));
  return formatIpv6(groups);
}

/** Checks the columns of [start, end] against the definition. */
function check(columns: string, bits: 32 | 128, start: bigint, end: bigint): void {
  const [first, last, blocks, ...rest] = columns.split(',');
  const big = bits === 32 ? v4Big : v6Big;
  const why = `${columns} (TEST_SEED=${random.seed})`;
  assert.equal(rest.length, 0, why);
  assert.equal(big(first!), start, why);
  assert.equal(big(last!), end, why);
  let at = start;
  for (const block of blocks!.split(' ')) {
    const [address, length] = block.split('/');
    const size = BigInt(bits - Number(length));
    assert.equal(big(address!), at, `${why}: a gap or overlap before ${block}`);
    assert.equal(at & ((1n << size) - 1n), 0n, `${why}: ${block} is not aligned`);
    // the fewest blocks: the next larger block would be unaligned or pass the end
    const larger = size + 1n;
    assert.ok(
      larger > BigInt(bits) ||
        (at & ((1n << larger) - 1n)) !== 0n ||
        at + (1n << larger) - 1n > end,
      `${why}: ${block} could be larger`,
    );
    at += 1n << size;
  }
  assert.equal(at, end + 1n, `${why}: the blocks end at ${at - 1n}, not ${end}`);
}

describe('the CSV range columns', () => {
  it('IPv4 ranges: random, single addresses, the whole space', () => {
    const cases: [number, number][] = [
      [0, 2 ** 32 - 1],
      [0, 0],
      [2 ** 32 - 1, 2 ** 32 - 1],
      [1, 2 ** 32 - 2],
    ];
    for (let i = 0; i < 3000; i++) {
      const a = random.u32();
      const b = random.chance(0.5) ? random.u32() : Math.min(2 ** 32 - 1, a + random.below(70_000));
      cases.push([Math.min(a, b), Math.max(a, b)]);
    }
    for (const [start, end] of cases) {
      check(v4RangeColumns(start, end), 32, BigInt(start), BigInt(end));
    }
  });

  it('IPv6 ranges: random widths across word borders, the whole space, the last address', () => {
    const max = (1n << 128n) - 1n;
    const cases: [bigint, bigint][] = [
      [0n, max],
      [max, max],
      [1n, max - 1n],
      [0n, (1n << 96n) - 1n],
      [(1n << 64n) - 1n, 1n << 64n],
    ];
    for (let i = 0; i < 3000; i++) {
      const a = random.bigBits(128);
      const width = random.bigBits(random.below(129));
      const b = random.chance(0.2) ? random.bigBits(128) : a + width > max ? max : a + width;
      cases.push(a <= b ? [a, b] : [b, a]);
    }
    for (const [start, end] of cases) {
      const s = wordsOf(start);
      const e = wordsOf(end);
      check(v6RangeColumns(s, e), 128, start, end);
      assert.deepEqual([...s, ...e], [...wordsOf(start), ...wordsOf(end)], 'inputs unchanged');
    }
  });

  it('decrement borrows across words', () => {
    for (const n of [1n, 1n << 32n, 1n << 64n, 1n << 96n, (1n << 128n) - 1n, 0x1_0000_0000_0001n]) {
      const w = wordsOf(n);
      decrement(w);
      assert.equal(textOf(n - 1n), formatIpv6(textGroups(w)));
    }
  });
});

function textGroups(w: Uint32Array): number[] {
  return [...w].flatMap((x) => [x >>> 16, x & 0xffff]);
}
