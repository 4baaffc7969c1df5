import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { packCanonicalV4 } from '../../../../src/lookups/vpn/index/prefix-events.js';
import { PrefixIndex } from '../../../../src/lookups/vpn/index/prefix-index.js';
import { ip } from '../../../helpers/addresses.js';
import { seededRandom, withSeed } from '../../../helpers/seeded-random.js';

const index = PrefixIndex.build([
  { label: 'aws', prefixes: ['3.5.140.0/22', '52.94.76.0/22', '2600:1f14::/35'] },
  // overlapping and adjacent ranges within one label merge
  { label: 'x4b', prefixes: ['2.26.157.0/24', '2.26.156.0/24', '2.26.0.0/16', '146.70.117.0/24'] },
  // one address, and a range that overlaps another label's
  { label: 'tor', prefixes: ['185.220.101.1/32', '3.5.141.7/32', '2a0b:f4c2::22/128'] },
  { label: 'wide', prefixes: ['::/0', '0.0.0.0/0'] },
]);

void describe('PrefixIndex lookups', () => {
  const ROWS: { ip: string; want: string[] }[] = [
    { ip: '3.5.140.0', want: ['aws', 'wide'] }, // first address of a range
    { ip: '3.5.143.255', want: ['aws', 'wide'] }, // last address
    { ip: '3.5.144.0', want: ['wide'] }, // one past the end
    { ip: '3.5.139.255', want: ['wide'] }, // one before the start
    { ip: '3.5.141.7', want: ['aws', 'tor', 'wide'] }, // inside two labels
    { ip: '2.26.255.255', want: ['x4b', 'wide'] }, // the /16 swallowed the /24s
    { ip: '185.220.101.1', want: ['tor', 'wide'] },
    { ip: '185.220.101.2', want: ['wide'] }, // a /32 is one address
    { ip: '255.255.255.255', want: ['wide'] },
    { ip: '0.0.0.0', want: ['wide'] },
    { ip: '2600:1f14::1', want: ['aws', 'wide'] },
    { ip: '2600:1f14:1fff:ffff:ffff:ffff:ffff:ffff', want: ['aws', 'wide'] }, // last of the /35
    { ip: '2600:1f14:2000::', want: ['wide'] }, // just past the /35
    { ip: '2a0b:f4c2::22', want: ['tor', 'wide'] },
    { ip: '2a0b:f4c2::23', want: ['wide'] },
    { ip: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', want: ['wide'] },
    { ip: '::ffff:3.5.140.9', want: ['aws', 'wide'] }, // IPv4-mapped is the IPv4 host
  ];
  for (const row of ROWS) {
    void it(`${row.ip} → ${row.want.join(', ')}`, () =>
      assert.deepEqual(index.lookup(ip(row.ip)), row.want));
  }

  void it('setOf is 0 (the empty set) exactly where no label holds the address, in both families', () => {
    const some = PrefixIndex.build([
      { label: 'tor', prefixes: ['2a0b:f4c2::22/128', '3.5.140.0/22'] },
    ]);
    for (const { text, want } of [
      { text: '2a0b:f4c2::22', want: true },
      { text: '2a0b:f4c2::23', want: false },
      { text: '3.5.143.255', want: true },
      { text: '3.5.144.0', want: false },
      { text: '::ffff:3.5.140.9', want: true }, // IPv4-mapped is the IPv4 host
    ]) {
      assert.equal(some.setOf(ip(text)) !== 0, want, text);
      assert.equal(some.lookup(ip(text)).length > 0, want, text);
    }
    assert.equal(PrefixIndex.empty().setOf(ip('2a0b:f4c2::22')) !== 0, false);
  });

  void it('counts merged ranges per label', () => {
    assert.deepEqual(index.rangeCounts(), { aws: 3, x4b: 2, tor: 3, wide: 2 });
  });

  void it('an empty index matches nothing', () => {
    assert.deepEqual(PrefixIndex.empty().lookup(ip('1.1.1.1')), []);
  });

  void it('refuses a prefix that is not CIDR (feeds are validated before they get here)', () => {
    assert.throws(
      () => PrefixIndex.build([{ label: 'x', prefixes: ['1.2.3.0/33'] }]),
      /not a CIDR/,
    );
  });

  void it('accepts host bits set and bare addresses through the slow path', () => {
    const idx = PrefixIndex.build([{ label: 'x', prefixes: ['10.1.2.3/8', '192.168.1.1'] }]);
    assert.deepEqual(idx.lookup(ip('10.200.0.1')), ['x']);
    assert.deepEqual(idx.lookup(ip('192.168.1.1')), ['x']);
    assert.deepEqual(idx.lookup(ip('192.168.1.2')), []);
  });

  void it('agrees with a linear scan on random data', () => {
    const random = seededRandom();
    const rnd = () => random.u32();
    withSeed(random, () => {
      const ranges: [number, number, string][] = [];
      for (let i = 0; i < 2000; i++) {
        const len = 12 + (rnd() % 21);
        const start = (rnd() & ((0xffffffff << (32 - len)) >>> 0)) >>> 0;
        const text = `${start >>> 24}.${(start >>> 16) & 255}.${(start >>> 8) & 255}.${start & 255}/${len}`;
        ranges.push([start, start + 2 ** (32 - len) - 1, text]);
      }
      const idx = PrefixIndex.build([{ label: 'r', prefixes: ranges.map((r) => r[2]) }]);
      for (let i = 0; i < 5000; i++) {
        const v = rnd();
        const text = `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
        const want = ranges.some(([s, e]) => s <= v && v <= e) ? ['r'] : [];
        assert.deepEqual(idx.lookup(ip(text)), want, text);
        assert.equal(idx.setOf(ip(text)) !== 0, want.length > 0, text);
      }
    });
  });
});

void describe('packCanonicalV4 (the load-time check of stored IPv4 prefixes)', () => {
  const ROWS: [string, number][] = [
    ['10.1.0.0/16', 0x0a010000 * 64 + 16],
    ['0.0.0.0/0', 0],
    ['255.255.255.255/32', 0xffffffff * 64 + 32],
    ['10.1.2.3/16', -1], // host bits set
    ['010.1.0.0/16', -1], // a leading zero
    ['10.1.0.0/016', -1],
    ['10.1.0.0/33', -1],
    ['256.1.0.0/16', -1],
    ['10.1.0/16', -1],
    ['10.1.0.0', -1], // no length
    ['10.1.0.0/', -1],
    ['10.1.0.0/1x', -1],
    ['10.1.0.0.0/16', -1],
    [' 10.1.0.0/16', -1],
    ['2001:db8::/32', -1],
  ];
  for (const [text, want] of ROWS) {
    void it(`${JSON.stringify(text)} → ${want}`, () => assert.equal(packCanonicalV4(text), want));
  }
});

void describe('PrefixIndex against a linear scan, IPv6 and several overlapping labels', () => {
  void it('agrees on random IPv6 prefixes /16–/128 in three labels', () => {
    const random = seededRandom();
    const rnd = () => random.u32();
    withSeed(random, () => {
      const big = (groups: readonly number[]) =>
        groups.reduce((v, g) => (v << 16n) | BigInt(g), 0n);
      const text = (v: bigint) =>
        Array.from({ length: 8 }, (_, i) =>
          ((v >> BigInt(112 - 16 * i)) & 0xffffn).toString(16),
        ).join(':');
      const labels = ['a', 'b', 'c'];
      const ranges: { label: string; start: bigint; end: bigint; text: string }[] = [];
      for (let i = 0; i < 600; i++) {
        const len = 16 + (rnd() % 113);
        // few distinct high groups, so that prefixes nest and overlap
        const groups = [
          0x2001,
          rnd() % 4,
          rnd() % 0x10000,
          rnd() % 0x10000,
          rnd() % 8,
          rnd(),
          rnd(),
          rnd(),
        ].map((g) => g & 0xffff);
        const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - len)) - 1n);
        const start = big(groups) & mask;
        const end = start | ((1n << BigInt(128 - len)) - 1n);
        ranges.push({ label: labels[i % 3]!, start, end, text: `${text(start)}/${len}` });
      }
      const idx = PrefixIndex.build(
        labels.map((label) => ({
          label,
          prefixes: ranges.filter((r) => r.label === label).map((r) => r.text),
        })),
      );
      for (let i = 0; i < 3000; i++) {
        // half the queries at a range's edges, half anywhere near them
        const r = ranges[rnd() % ranges.length]!;
        const pick = [r.start, r.end, r.end + 1n, r.start - 1n, r.start + BigInt(rnd())][i % 5]!;
        const v = pick & ((1n << 128n) - 1n);
        const want = labels.filter((l) =>
          ranges.some((q) => q.label === l && q.start <= v && v <= q.end),
        );
        assert.deepEqual(idx.lookup(ip(text(v))), want, text(v));
      }
    });
  });
});
