// The compiled overrides: the most specific covering row, at every boundary,
// for both families, checked against a plain scan of the rows on seeded
// random nested ranges.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cidrContains, parseCidr } from '../../../src/net/cidr-match.js';
import { formatIpv4, parseIp } from '../../../src/net/ip.js';
import { NO_OVERRIDE, OverrideIndex } from '../../../src/lookups/overrides/override-index.js';
import type { OverrideRow } from '../../../src/lookups/overrides/rows.js';
import { seededRandom, withSeed } from '../../helpers/seeded-random.js';

/** Rows of no fields, each labelled with its network (as the parser labels a row without one). */
function rowsOf(networks: readonly string[]): OverrideRow[] {
  return networks.map((network, i) => ({
    line: i + 2,
    cidr: parseCidr(network)!,
    label: network,
    fields: {},
  }));
}

const indexOf = (networks: readonly string[]) => new OverrideIndex(rowsOf(networks));

const labelAt = (index: OverrideIndex, address: string): string | null =>
  index.rowOf(parseIp(address)!)?.label ?? null;

describe('OverrideIndex', () => {
  const index = indexOf([
    '10.0.0.0/8',
    '10.1.0.0/16',
    '10.1.2.0/24',
    '10.1.2.3/32',
    '10.255.255.0/24', // ends where its parent ends
    '0.0.0.0/32',
    '255.255.255.255/32',
    '2001:db8::/32',
    '2001:db8:0:1::/64',
    '::/128',
  ]);
  const table: { address: string; want: string | null }[] = [
    { address: '9.255.255.255', want: null },
    { address: '10.0.0.0', want: '10.0.0.0/8' },
    { address: '10.0.255.255', want: '10.0.0.0/8' },
    { address: '10.1.0.0', want: '10.1.0.0/16' },
    { address: '10.1.2.2', want: '10.1.2.0/24' },
    { address: '10.1.2.3', want: '10.1.2.3/32' },
    { address: '10.1.2.4', want: '10.1.2.0/24' },
    { address: '10.1.3.0', want: '10.1.0.0/16' }, // back in the /16 after the /24
    { address: '10.2.0.0', want: '10.0.0.0/8' }, // back in the /8 after the /16
    { address: '10.255.254.255', want: '10.0.0.0/8' },
    { address: '10.255.255.255', want: '10.255.255.0/24' },
    { address: '11.0.0.0', want: null },
    { address: '0.0.0.0', want: '0.0.0.0/32' },
    { address: '0.0.0.1', want: null },
    { address: '255.255.255.255', want: '255.255.255.255/32' },
    { address: '2001:db8::1', want: '2001:db8::/32' },
    { address: '2001:db8:0:1:ffff:ffff:ffff:ffff', want: '2001:db8:0:1::/64' },
    { address: '2001:db8:0:2::', want: '2001:db8::/32' },
    { address: '2001:db9::', want: null },
    { address: '::', want: '::/128' },
    { address: '::2', want: null },
    // an IPv4-mapped IPv6 address is the IPv4 host it wraps
    { address: '::ffff:10.1.2.3', want: '10.1.2.3/32' },
  ];
  for (const { address, want } of table) {
    it(`${address} → ${want ?? 'none'}`, () => assert.equal(labelAt(index, address), want));
  }

  it('the empty index answers none', () => {
    const empty = new OverrideIndex([]);
    assert.equal(empty.size, 0);
    assert.equal(empty.rowOf(parseIp('10.0.0.1')!), null);
  });

  it('an address before the first row, in the block that row starts in, is in none', () => {
    // the jump table has no segment at or below 192.0.0.0 here: its search starts at the first
    const lone = indexOf(['192.0.2.128/25']);
    assert.equal(labelAt(lone, '192.0.2.5'), null);
    assert.equal(labelAt(lone, '192.0.2.127'), null);
    assert.equal(labelAt(lone, '192.0.2.128'), '192.0.2.128/25');
    assert.equal(labelAt(lone, '192.0.2.255'), '192.0.2.128/25');
    assert.equal(labelAt(lone, '192.0.3.0'), null);
  });

  it('spans the addresses around one that the same row covers, or that none covers', () => {
    const value = (text: string) => (parseIp(text) as { value: number }).value;
    const span = (text: string) => index.spanV4(value(text)).map(formatIpv4);
    assert.deepEqual(span('10.1.2.3'), ['10.1.2.3', '10.1.2.3']);
    assert.deepEqual(span('10.1.2.200'), ['10.1.2.4', '10.1.2.255']);
    assert.deepEqual(span('10.1.3.0'), ['10.1.3.0', '10.1.255.255']);
    assert.deepEqual(span('10.255.255.7'), ['10.255.255.0', '10.255.255.255']);
    assert.deepEqual(span('0.0.0.0'), ['0.0.0.0', '0.0.0.0']);
    // in no row: from after the row below to before the row above
    assert.deepEqual(span('0.0.0.1'), ['0.0.0.1', '9.255.255.255']);
    assert.deepEqual(span('11.0.0.0'), ['11.0.0.0', '255.255.255.254']);
    const lone = indexOf(['192.0.2.128/25']);
    assert.deepEqual(lone.spanV4(value('192.0.2.5')).map(formatIpv4), ['0.0.0.0', '192.0.2.127']);
    assert.deepEqual(new OverrideIndex([]).spanV4(7), [0, 0xffffffff]);
  });

  it('spans agree with the rows found at each end and just outside (random nested ranges)', () => {
    const random = seededRandom();
    withSeed(random, () => {
      const networks = Array.from({ length: 200 }, () => {
        const prefix = 8 + random.below(25);
        const mask = (0xffffffff << (32 - prefix)) >>> 0;
        return `${formatIpv4(((0x0a000000 + random.below(0x01000000)) & mask) >>> 0)}/${prefix}`;
      });
      const big = indexOf([...new Set(networks)]);
      const rowAt = (n: number) => big.find(parseIp(formatIpv4(n))!);
      for (let i = 0; i < 2000; i++) {
        const n = (0x0a000000 + random.below(0x01000000)) >>> 0;
        const [first, last] = big.spanV4(n);
        assert.ok(first <= n && n <= last);
        for (const end of [first, last]) assert.equal(rowAt(end), rowAt(n), formatIpv4(n));
        if (first > 0) assert.notEqual(rowAt(first - 1), rowAt(n), formatIpv4(n));
        if (last < 0xffffffff) assert.notEqual(rowAt(last + 1), rowAt(n), formatIpv4(n));
      }
    });
  });

  it('agrees with a scan of the rows on random nested ranges', () => {
    const random = seededRandom();
    withSeed(random, () => {
      const networks = new Set<string>();
      for (let i = 0; i < 300; i++) {
        const prefix = 8 + random.below(25);
        const base = (0x0a000000 + random.below(0x01000000)) >>> 0;
        const mask = (0xffffffff << (32 - prefix)) >>> 0;
        networks.add(`${formatIpv4((base & mask) >>> 0)}/${prefix}`);
      }
      const rows = rowsOf([...networks]);
      const big = new OverrideIndex(rows);
      for (let i = 0; i < 3000; i++) {
        const ip = parseIp(formatIpv4((0x0a000000 + random.below(0x01000000)) >>> 0))!;
        const covering = rows.filter((r) => cidrContains(r.cidr, ip));
        const want = covering.reduce<(typeof covering)[number] | null>(
          (best, r) => (best === null || r.cidr.prefixLength > best.cidr.prefixLength ? r : best),
          null,
        );
        const found = big.find(ip);
        assert.equal(
          found === NO_OVERRIDE ? null : big.rows[found]!.label,
          want?.label ?? null,
          ip.text,
        );
      }
    });
  });
});
