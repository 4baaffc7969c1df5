// RangeTable and its builders against a plain model: the list of range starts
// (BigInt addresses) with their values, where an address takes the value of
// the last start at or below it, found by bisection. Tables are generated
// from a seed (TEST_SEED replays one) with the shapes the compiler meets:
// starts inside /64 blocks, several boundaries in one block, blocks at ::
// and at the last /64, runs of equal values, and ALIAS ranges that answer
// what the IPv4 table answers for 32 bits of the address.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { V4Builder, V6Builder } from '../../src/data/range-table-builder.js';
import {
  ALIAS,
  MAX_RECORDS,
  NONE,
  RangeTable,
  SPLIT,
  embeddedIpv4,
  type V4Table,
  type V6Table,
} from '../../src/data/range-table.js';
import { formatIpv4, formatIpv6, parseIp } from '../../src/net/ip.js';
import { seededRandom, testSeed, type SeededRandom } from '../helpers/seeded-random.js';

const MAX_V4 = 2n ** 32n - 1n;
const MAX_V6 = 2n ** 128n - 1n;
const MAX_64 = 2n ** 64n - 1n;

interface Start {
  start: bigint;
  value: number;
}

/** The value of the last start ≤ address (starts ascending, the first 0). */
function modelFind(starts: readonly Start[], address: bigint): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]!.start <= address) lo = mid;
    else hi = mid - 1;
  }
  return starts[lo]!.value;
}

/** The 32 bits of a 128-bit address from bit `offset` (0 = most significant). */
function bitsAt(address: bigint, offset: number): number {
  return Number((address >> BigInt(96 - offset)) & 0xffffffffn);
}

/** IPv6 as the model reads it: an ALIAS range answers the IPv4 model for its embedded bits. */
function modelFindV6(v6: readonly Start[], v4: readonly Start[], address: bigint): number {
  const value = modelFind(v6, address);
  if (value === NONE || (value & ALIAS) === 0) return value;
  return modelFind(v4, BigInt(bitsAt(address, value & ~ALIAS)));
}

function groupsOf(address: bigint): number[] {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((address >> BigInt(16 * i)) & 0xffffn));
  return groups;
}

function word(address: bigint, index: number): number {
  return Number((address >> BigInt(96 - 32 * index)) & 0xffffffffn);
}

function buildV4(starts: readonly Start[]): V4Table {
  const builder = new V4Builder();
  for (const { start, value } of starts) builder.add(Number(start), value);
  return builder.finish();
}

function buildV6(starts: readonly Start[]): V6Table {
  const builder = new V6Builder();
  for (const { start, value } of starts) {
    builder.add(word(start, 0), word(start, 1), word(start, 2), word(start, 3), value);
  }
  return builder.finish();
}

/** An empty IPv4 or IPv6 half, for tables that only exercise the other. */
const EMPTY_V4 = (): V4Table => new V4Builder().finish();
const EMPTY_V6 = (): V6Table => new V6Builder().finish();

/** one seed for the file: TEST_SEED=<seed> replays every generated table */
const SEED = testSeed();

const hex = (value: number): string =>
  value === NONE ? 'NONE' : `0x${(value >>> 0).toString(16)}`;

// ---- generated tables ----

/** Record indexes, NONE and the largest index: few enough that neighbours often repeat. */
const RECORDS = [0, 1, 2, 3, 7, 1000, MAX_RECORDS, NONE];

function values(random: SeededRandom, count: number, pool: () => number): number[] {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    // a third repeat their neighbour: the builder must merge them
    out.push(i > 0 && random.chance(0.3) ? out[i - 1]! : pool());
  }
  return out;
}

function withValues(random: SeededRandom, starts: Set<bigint>, pool: () => number): Start[] {
  const sorted = [...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const vs = values(random, sorted.length, pool);
  return sorted.map((start, i) => ({ start, value: vs[i]! }));
}

function v4Starts(random: SeededRandom): Start[] {
  const count = random.pick([1, 2, 5, 50, 400, 3000]);
  const starts = new Set<bigint>([0n]);
  const list: bigint[] = [0n];
  const denseTop = BigInt(random.below(65_536)) << 16n;
  while (starts.size < count) {
    let s: bigint;
    switch (random.below(5)) {
      case 0:
        s = BigInt(random.u32());
        break;
      case 1: // on and beside the jump table's /16 boundaries
        s = (BigInt(random.below(65_536)) << 16n) + BigInt(random.pick([-1, 0, 1]));
        break;
      case 2: // right after an existing start: one-address ranges
        s = random.pick(list) + BigInt(1 + random.below(3));
        break;
      case 3: // the very end of the space
        s = MAX_V4 - BigInt(random.below(3));
        break;
      default: // many ranges in one /16
        s = denseTop + BigInt(random.below(65_536));
    }
    if (s < 0n || s > MAX_V4 || starts.has(s)) continue;
    starts.add(s);
    list.push(s);
  }
  return withValues(random, starts, () => random.pick(RECORDS));
}

/** Upper 64 bits of a /64 block that holds range starts. */
function blockPrefix(random: SeededRandom, known: readonly bigint[]): bigint {
  switch (random.below(6)) {
    case 0:
      return 0n; // the block at ::
    case 1:
      return MAX_64; // the last /64
    case 2: // on and beside the jump table's boundaries (first 16 bits)
      return (BigInt(random.below(65_536)) << 48n) + BigInt(random.pick([-1, 0, 1]));
    case 3: // the block after a known one: split blocks side by side
      return random.pick(known) + 1n;
    case 4: // global unicast, where the data is
      return (0x2000n << 48n) | random.bigBits(60);
    default:
      return random.bigBits(64);
  }
}

/** Lower 64 bits of a start inside a block (never 0). */
function lowBits(random: SeededRandom): bigint {
  switch (random.below(4)) {
    case 0:
      return 1n;
    case 1:
      return MAX_64 - BigInt(random.below(2));
    case 2:
      return 1n << BigInt(random.below(64));
    default:
      return random.bigBits(64) || 1n;
  }
}

/** An ALIAS value: the embedded IPv4 address starts at bit 0–96. */
function aliasValue(random: SeededRandom): number {
  return (ALIAS | random.pick([0, 16, 32, 64, 80, 96, random.below(97)])) >>> 0;
}

function v6Starts(random: SeededRandom): Start[] {
  const blocks = random.pick([1, 2, 5, 40, 300, 1500]);
  const starts = new Set<bigint>([0n]);
  const known: bigint[] = [0n];
  for (let b = 0; b < blocks; b++) {
    const prefix = blockPrefix(random, known);
    if (prefix < 0n || prefix > MAX_64) continue;
    known.push(prefix);
    const base = prefix << 64n;
    // most blocks start a range at their /64; some also hold boundaries inside
    if (random.chance(0.7)) starts.add(base);
    if (random.chance(0.35)) {
      const inside = 1 + random.below(random.chance(0.2) ? 12 : 3);
      for (let i = 0; i < inside; i++) starts.add(base | lowBits(random));
    }
  }
  return withValues(random, starts, () =>
    random.chance(0.15) ? aliasValue(random) : random.pick(RECORDS),
  );
}

/** Every range's first and last address, and random ones near the starts and anywhere. */
function probes(random: SeededRandom, starts: readonly Start[], max: bigint, n: number): bigint[] {
  const out: bigint[] = [];
  starts.forEach((s, i) => {
    out.push(s.start, (starts[i + 1]?.start ?? max + 1n) - 1n);
  });
  const bits = max === MAX_V4 ? 32 : 128;
  for (let i = 0; i < n; i++) {
    const near = random.pick(starts).start;
    let a: bigint;
    switch (random.below(4)) {
      case 0:
        a = random.bigBits(bits);
        break;
      case 1:
        a = near + BigInt(random.below(5)) - 2n;
        break;
      case 2: // anywhere in the same /64 (IPv6) or /16 (IPv4)
        a =
          bits === 128
            ? (near & ~MAX_64) | random.bigBits(64)
            : (near & ~0xffffn) | random.bigBits(16);
        break;
      default:
        a = bits === 128 ? (0x2000n << 112n) | random.bigBits(124) : random.bigBits(32);
    }
    if (a >= 0n && a <= max) out.push(a);
  }
  return out;
}

interface Mismatch {
  address: bigint;
  want: number;
  got: number;
}

/** Fails with the smallest differing address, the seed, and how many differ. */
function assertNoMismatch(
  mismatches: Mismatch[],
  checked: number,
  seed: number,
  format: (a: bigint) => string,
  what: string,
): void {
  if (mismatches.length === 0) return;
  const first = mismatches.reduce((a, b) => (b.address < a.address ? b : a));
  assert.fail(
    `${what}: ${mismatches.length} of ${checked} addresses differ from the model ` +
      `(TEST_SEED=${seed}); smallest ${format(first.address)}: ` +
      `want ${hex(first.want)}, got ${hex(first.got)}`,
  );
}

const v4Text = (a: bigint): string => formatIpv4(Number(a));
const v6Text = (a: bigint): string => formatIpv6(groupsOf(a));

describe('RangeTable against a model of sorted range starts', () => {
  const seed = SEED;

  it('findV4 answers the value of the last start at or below the address (random tables)', (t) => {
    t.diagnostic(`TEST_SEED=${seed}`);
    const random = seededRandom(seed);
    for (let round = 0; round < 40; round++) {
      const starts = v4Starts(random);
      const table = new RangeTable(buildV4(starts), EMPTY_V6());
      const mismatches: Mismatch[] = [];
      const addresses = probes(random, starts, MAX_V4, 3000);
      for (const a of addresses) {
        const want = modelFind(starts, a);
        const got = table.findV4(Number(a));
        if (got !== want) mismatches.push({ address: a, want, got });
      }
      const what = `IPv4 table ${round} (${starts.length} starts)`;
      assertNoMismatch(mismatches, addresses.length, seed, v4Text, what);
    }
  });

  it('findV6 answers the model inside split /64 blocks and through ALIAS ranges (random tables)', (t) => {
    t.diagnostic(`TEST_SEED=${seed}`);
    const random = seededRandom(seed ^ 0x5a5a5a5a);
    for (let round = 0; round < 40; round++) {
      const v4 = v4Starts(random);
      const v6 = v6Starts(random);
      const table = new RangeTable(buildV4(v4), buildV6(v6));
      const mismatches: Mismatch[] = [];
      const addresses = probes(random, v6, MAX_V6, 4000);
      for (const a of addresses) {
        const want = modelFindV6(v6, v4, a);
        const got = table.findV6(groupsOf(a));
        if (got !== want) mismatches.push({ address: a, want, got });
      }
      const what = `IPv6 table ${round} (${v6.length} starts)`;
      assertNoMismatch(mismatches, addresses.length, seed, v6Text, what);
    }
  });

  it('an ALIAS range answers findV4 of the 32 bits embeddedIpv4 takes at its offset', (t) => {
    t.diagnostic(`TEST_SEED=${seed}`);
    const random = seededRandom(seed ^ 0x3c3c3c3c);
    let aliased = 0;
    for (let round = 0; round < 20; round++) {
      const v4 = v4Starts(random);
      const v6 = v6Starts(random);
      const table = new RangeTable(buildV4(v4), buildV6(v6));
      for (const a of probes(random, v6, MAX_V6, 2000)) {
        const value = modelFind(v6, a);
        if (value === NONE || (value & ALIAS) === 0) continue;
        aliased++;
        const offset = value & ~ALIAS;
        const groups = groupsOf(a);
        const context = `${v6Text(a)} offset ${offset} (TEST_SEED=${seed})`;
        assert.equal(embeddedIpv4(groups, offset), bitsAt(a, offset), context);
        assert.equal(table.findV6(groups), table.findV4(embeddedIpv4(groups, offset)), context);
      }
    }
    assert.ok(aliased > 1000, `only ${aliased} aliased addresses were generated`);
  });

  it('consecutive equal values are merged: no two neighbouring ranges hold the same value', (t) => {
    t.diagnostic(`TEST_SEED=${seed}`);
    const random = seededRandom(seed ^ 0x0f0f0f0f);
    for (let round = 0; round < 20; round++) {
      const v4 = buildV4(v4Starts(random));
      const v6 = buildV6(v6Starts(random));
      const repeats = (list: Uint32Array): number =>
        list.reduce((n, v, i) => n + (i > 0 && v === list[i - 1] ? 1 : 0), 0);
      assert.equal(repeats(v4.values), 0, `IPv4 values (TEST_SEED=${seed})`);
      assert.equal(repeats(v6.values), 0, `IPv6 values (TEST_SEED=${seed})`);
      // within each split block; its first sub-range may repeat the range before the block
      for (let b = 0; b + 1 < v6.splitAt.length; b++) {
        const block = v6.subValues.subarray(v6.splitAt[b], v6.splitAt[b + 1]);
        assert.equal(repeats(block), 0, `split block ${b} (TEST_SEED=${seed})`);
      }
    }
  });
});

// ---- hand-written tables: the shapes named ----

const v6 = (text: string): bigint => {
  const ip = parseIp(text);
  if (ip === null) throw new Error(`bad test address ${text}`);
  const groups =
    ip.version === 6 ? ip.groups : [0, 0, 0, 0, 0, 0xffff, ip.value >>> 16, ip.value & 0xffff];
  return groups.reduce((a, g) => (a << 16n) | BigInt(g), 0n);
};

const V4_FOR_ALIAS: Start[] = [
  { start: 0n, value: 10 },
  { start: BigInt(0x01020300), value: 11 }, // 1.2.3.0
  { start: BigInt(0x01020400), value: NONE }, // 1.2.4.0
  { start: BigInt(0xc0000200), value: 12 }, // 192.0.2.0
  { start: BigInt(0xc0000300), value: 10 },
];

const V6_CASES: { name: string; starts: [string, number][]; want: [string, number][] }[] = [
  {
    name: 'no ranges: NONE everywhere',
    starts: [],
    want: [
      ['::', NONE],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', NONE],
    ],
  },
  {
    name: 'a split block at :: whose first sub-range starts at ::',
    starts: [
      ['::', 1],
      ['::1', 2],
      ['::2', 3],
      ['0:0:0:1::', 4],
    ],
    want: [
      ['::', 1],
      ['::1', 2],
      ['::2', 3],
      ['::ffff:ffff:ffff:ffff', 3],
      ['0:0:0:1::', 4],
      ['ffff::', 4],
    ],
  },
  {
    name: 'a split block at the last /64 (nothing after it to resume)',
    starts: [
      ['::', 1],
      ['ffff:ffff:ffff:ffff::8', 2],
      ['ffff:ffff:ffff:ffff:8000::', 3],
    ],
    want: [
      ['ffff:ffff:ffff:fffe:ffff:ffff:ffff:ffff', 1],
      ['ffff:ffff:ffff:ffff::', 1],
      ['ffff:ffff:ffff:ffff::7', 1],
      ['ffff:ffff:ffff:ffff::8', 2],
      ['ffff:ffff:ffff:ffff:7fff:ffff:ffff:ffff', 2],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 3],
    ],
  },
  {
    name: 'two split blocks side by side; the second starts with the value in force',
    starts: [
      ['::', NONE],
      ['2001:db8:0:1::100', 1],
      ['2001:db8:0:2::200', 2],
      ['2001:db8:0:2::300', NONE],
    ],
    want: [
      ['2001:db8:0:1::ff', NONE],
      ['2001:db8:0:1::100', 1],
      ['2001:db8:0:2::', 1],
      ['2001:db8:0:2::1ff', 1],
      ['2001:db8:0:2::200', 2],
      ['2001:db8:0:2::300', NONE],
      ['2001:db8:0:3::', NONE],
    ],
  },
  {
    name: 'after a split block the last sub-range value resumes until the next start',
    starts: [
      ['::', NONE],
      ['2001:db8::', 5],
      ['2001:db8::8000:0:0:0', 6],
      ['2001:db8:0:10::', 7],
    ],
    want: [
      ['2001:db8::7fff:ffff:ffff:ffff', 5],
      ['2001:db8::8000:0:0:0', 6],
      ['2001:db8:0:1::', 6],
      ['2001:db8:0:f:ffff:ffff:ffff:ffff', 6],
      ['2001:db8:0:10::', 7],
    ],
  },
  {
    name: 'equal neighbours across a block boundary merge without changing answers',
    starts: [
      ['::', NONE],
      ['2001:db8:0:1::10', 1],
      ['2001:db8:0:2::', 1],
      ['2001:db8:0:2::20', 2],
    ],
    want: [
      ['2001:db8:0:1::f', NONE],
      ['2001:db8:0:1::10', 1],
      ['2001:db8:0:2::1f', 1],
      ['2001:db8:0:2::20', 2],
    ],
  },
  {
    name: 'ALIAS ranges answer the IPv4 table for the embedded address',
    starts: [
      ['::', (ALIAS | 96) >>> 0], // ::/96, IPv4-compatible
      ['::1:0:0', NONE],
      ['2001::', (ALIAS | 32) >>> 0], // Teredo: bits 32–63
      ['2001:1::', NONE],
      ['2002::', (ALIAS | 16) >>> 0], // 6to4: bits 16–47
      ['2003::', NONE],
      ['2003::1:0:0', (ALIAS | 96) >>> 0], // an alias starting inside a /64
      ['2003::2:0:0', NONE],
    ],
    want: [
      ['::1.2.3.4', 11],
      ['::192.0.2.1', 12],
      ['::1.2.4.0', NONE],
      ['::0.0.0.1', 10],
      ['::1:0:0', NONE],
      ['2001:0:102:304::', 11],
      ['2001:0:c000:2ff:ffff::', 12],
      ['2002:102:3ff::', 11],
      ['2002:c000:201:ffff::', 12],
      ['2002:ffff:ffff::', 10],
      ['2003::1:102:304', 11],
      ['2003::1:c000:201', 12],
      ['2003::2:102:304', NONE],
    ],
  },
];

describe('RangeTable on hand-written tables', () => {
  for (const { name, starts, want } of V6_CASES) {
    it(name, () => {
      const list = starts.map(([text, value]) => ({ start: v6(text), value }));
      const table = new RangeTable(buildV4(V4_FOR_ALIAS), buildV6(list));
      for (const [text, value] of want) {
        assert.equal(hex(table.findV6(groupsOf(v6(text)))), hex(value), text);
        // and the model agrees with the row (the rows are right)
        if (list.length > 0)
          assert.equal(hex(modelFindV6(list, V4_FOR_ALIAS, v6(text))), hex(value));
      }
    });
  }

  it('an empty IPv4 builder answers NONE everywhere', () => {
    const table = new RangeTable(EMPTY_V4(), EMPTY_V6());
    for (const a of [0, 1, 0x7fffffff, 0xffffffff]) assert.equal(table.findV4(a), NONE);
  });

  it('IPv4 ranges of one address at both ends of the space', () => {
    const table = new RangeTable(
      buildV4([
        { start: 0n, value: 1 },
        { start: 1n, value: 2 },
        { start: MAX_V4, value: 3 },
      ]),
      EMPTY_V6(),
    );
    const rows: [number, number][] = [
      [0, 1],
      [1, 2],
      [0xfffffffe, 2],
      [0xffffffff, 3],
    ];
    for (const [a, value] of rows) assert.equal(table.findV4(a), value, formatIpv4(a));
  });

  it('split blocks are marked SPLIT in the main keys and record their sub-ranges', () => {
    const table = buildV6([
      { start: 0n, value: NONE },
      { start: v6('2001:db8::1'), value: 1 },
      { start: v6('2001:db8::2'), value: 2 },
    ]);
    assert.equal(table.splitAt.length, 2);
    assert.deepEqual([...table.subValues], [NONE, 1, 2]);
    assert.ok([...table.values].some((v) => v !== NONE && (v & SPLIT) !== 0));
  });
});

describe('range-table builders refuse starts out of order', () => {
  const v4Rows: { name: string; starts: number[] }[] = [
    { name: 'first IPv4 start is not 0', starts: [1] },
    { name: 'IPv4 start repeated', starts: [0, 5, 5] },
    { name: 'IPv4 starts descending', starts: [0, 9, 8] },
    { name: 'IPv4 start after the last address wraps to 0', starts: [0, 0xffffffff, 0] },
  ];
  for (const { name, starts } of v4Rows) {
    it(`${name} → throws`, () => {
      const builder = new V4Builder();
      assert.throws(() => starts.forEach((s, i) => builder.add(s, i)));
    });
  }

  const v6Rows: { name: string; starts: string[] }[] = [
    { name: 'first IPv6 start is not ::', starts: ['::1'] },
    { name: 'IPv6 start repeated', starts: ['::', '2001:db8::', '2001:db8::'] },
    { name: 'IPv6 start repeated inside a /64', starts: ['::', '2001:db8::5', '2001:db8::5'] },
    {
      name: 'IPv6 starts descending in the upper 64 bits',
      starts: ['::', '2001:db9::', '2001:db8::'],
    },
    {
      name: 'IPv6 starts descending in the lower 64 bits',
      starts: ['::', '2001:db8::9', '2001:db8::8'],
    },
    { name: 'a /64 start after a start inside it', starts: ['::', '2001:db8::1', '2001:db8::'] },
    {
      name: 'a lower /64 after a start inside a higher one',
      starts: ['::', '2001:db8:0:1::1', '2001:db8::ffff'],
    },
  ];
  for (const { name, starts } of v6Rows) {
    it(`${name} → throws`, () => {
      const builder = new V6Builder();
      assert.throws(() =>
        starts.forEach((text, i) => {
          const a = v6(text);
          builder.add(word(a, 0), word(a, 1), word(a, 2), word(a, 3), i);
        }),
      );
    });
  }
});

describe('embeddedIpv4', () => {
  const rows: { address: string; offset: number; want: string }[] = [
    { address: '::1.2.3.4', offset: 96, want: '1.2.3.4' },
    { address: '2002:c000:204::1', offset: 16, want: '192.0.2.4' }, // 6to4
    // Teredo: the server's address
    { address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', offset: 32, want: '65.54.227.120' },
    { address: 'c000:201::', offset: 0, want: '192.0.2.1' },
    { address: '::ffff:ffff:ffff:ffff:ffff', offset: 80, want: '255.255.255.255' },
    { address: '::8000:0:0', offset: 65, want: '0.1.0.0' }, // an odd offset: bits across groups
    { address: '::8000:0:0', offset: 80, want: '128.0.0.0' },
  ];
  for (const { address, offset, want } of rows) {
    it(`${address} at bit ${offset} → ${want}`, () => {
      assert.equal(formatIpv4(embeddedIpv4(groupsOf(v6(address)), offset)), want);
    });
  }

  it('agrees with BigInt shifts at every offset for random addresses', (t) => {
    const seed = SEED;
    t.diagnostic(`TEST_SEED=${seed}`);
    const random = seededRandom(seed);
    for (let i = 0; i < 2000; i++) {
      const a = random.bigBits(128);
      const offset = random.below(97);
      assert.equal(
        embeddedIpv4(groupsOf(a), offset),
        bitsAt(a, offset),
        `${v6Text(a)} at ${offset} (TEST_SEED=${seed})`,
      );
    }
  });
});
