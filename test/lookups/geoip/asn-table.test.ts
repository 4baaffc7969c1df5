// AsnTable: bisection over sorted ranges, exact at range edges, the same
// after a serialise/deserialise round trip.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAsnCsv } from '../../../src/lookups/geoip/asn-csv.js';
import { AsnTable } from '../../../src/lookups/geoip/asn-table.js';
import { formatIpv4, parseIp } from '../../../src/net/ip.js';

const CSV = [
  // deliberately out of order: the table sorts
  '8.8.8.0,8.8.8.255,15169,Google LLC',
  '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
  '1.0.1.0,1.0.3.255,4134,CHINANET',
  '0.0.0.0,0.255.255.255,1,Zero net',
  '255.255.255.0,255.255.255.255,4294967295,Top',
  '9.9.9.0,9.9.9.255,19281,',
  '2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC',
  '2606:4700::,2606:4700:ffff:ffff:ffff:ffff:ffff:ffff,13335,"Cloudflare, Inc."',
  '::,::ffff,7,Bottom v6',
  'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,8,Top v6',
  // a range straddling a 32-bit word boundary of the 128-bit key
  '2a00:1:0:0:ffff:ffff:ffff:0,2a00:1:0:1:0:0:0:ff,9,Straddle',
].join('\n');

function table(): AsnTable {
  const { rows, rejected } = parseAsnCsv(CSV);
  assert.equal(rejected, 0);
  return AsnTable.fromRanges(rows);
}

function lookup(t: AsnTable, address: string): [number, string | null] | null {
  const ip = parseIp(address);
  assert.ok(ip, address);
  const info = t.lookup(ip);
  return info === null ? null : [info.asn, info.org];
}

const EXPECTED: { address: string; want: [number, string | null] | null }[] = [
  { address: '0.0.0.0', want: [1, 'Zero net'] },
  { address: '0.255.255.255', want: [1, 'Zero net'] },
  { address: '1.0.0.0', want: [13335, 'Cloudflare, Inc.'] },
  { address: '1.0.0.255', want: [13335, 'Cloudflare, Inc.'] },
  { address: '1.0.1.0', want: [4134, 'CHINANET'] }, // adjacent range starts right after
  { address: '1.0.3.255', want: [4134, 'CHINANET'] },
  { address: '1.0.4.0', want: null }, // the gap after it
  { address: '8.8.7.255', want: null },
  { address: '8.8.8.0', want: [15169, 'Google LLC'] },
  { address: '8.8.8.8', want: [15169, 'Google LLC'] },
  { address: '8.8.8.255', want: [15169, 'Google LLC'] },
  { address: '8.8.9.0', want: null },
  { address: '9.9.9.9', want: [19281, null] },
  { address: '128.0.0.0', want: null },
  { address: '255.255.254.255', want: null },
  { address: '255.255.255.0', want: [4294967295, 'Top'] },
  { address: '255.255.255.255', want: [4294967295, 'Top'] },
  { address: '::', want: [7, 'Bottom v6'] },
  { address: '::ffff', want: [7, 'Bottom v6'] },
  { address: '::1:0', want: null },
  { address: '2001:485f:ffff:ffff:ffff:ffff:ffff:ffff', want: null },
  { address: '2001:4860::', want: [15169, 'Google LLC'] },
  { address: '2001:4860:4860::8888', want: [15169, 'Google LLC'] },
  { address: '2001:4860:ffff:ffff:ffff:ffff:ffff:ffff', want: [15169, 'Google LLC'] },
  { address: '2001:4861::', want: null },
  { address: '2606:4700:4700::1111', want: [13335, 'Cloudflare, Inc.'] },
  { address: '2a00:1:0:0:ffff:ffff:fffe:ffff', want: null },
  { address: '2a00:1:0:0:ffff:ffff:ffff:0', want: [9, 'Straddle'] },
  { address: '2a00:1:0:0:ffff:ffff:ffff:ffff', want: [9, 'Straddle'] },
  { address: '2a00:1:0:1::', want: [9, 'Straddle'] },
  { address: '2a00:1:0:1::ff', want: [9, 'Straddle'] },
  { address: '2a00:1:0:1::100', want: null },
  { address: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:feff', want: null },
  { address: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', want: [8, 'Top v6'] },
];

describe('AsnTable lookups at range edges', () => {
  const built = table();
  const restored = AsnTable.deserialize(built.serialize('stamp-1'), 'stamp-1');
  it('round-trips through serialize/deserialize', () => {
    assert.ok(restored);
    assert.equal(restored.size, built.size);
    assert.equal(built.size, 11);
  });
  for (const { address, want } of EXPECTED) {
    it(`${address} → ${want ? `AS${want[0]}` : 'null'} (built and restored)`, () => {
      assert.deepEqual(lookup(built, address), want);
      assert.ok(restored);
      assert.deepEqual(lookup(restored, address), want);
    });
  }

  it('the ISP field is always null for the embedded table', () => {
    const info = built.lookup(parseIp('8.8.8.8') ?? assert.fail());
    assert.equal(info?.isp, null);
  });
});

describe('AsnTable serialisation guards', () => {
  it('a different stamp means stale: null', () => {
    assert.equal(AsnTable.deserialize(table().serialize('a'), 'b'), null);
  });

  it('a buffer of another format: null', () => {
    assert.equal(AsnTable.deserialize(Buffer.from('not a table at all, just text'), 'a'), null);
  });

  it('a truncated table: null', () => {
    const buffer = table().serialize('a');
    assert.equal(AsnTable.deserialize(buffer.subarray(0, buffer.length - 4), 'a'), null);
  });

  it('a table cut anywhere never yields a table that answers wrongly', () => {
    const buffer = table().serialize('a');
    for (let cut = 0; cut < buffer.length; cut += 7) {
      let restored: AsnTable | null = null;
      try {
        restored = AsnTable.deserialize(buffer.subarray(0, cut), 'a');
      } catch {
        restored = null; // the caller (loadEmbeddedAsnTable) rebuilds on a throw
      }
      assert.equal(restored, null, `cut at ${cut}`);
    }
  });

  it('survives an odd byte offset (copied to an aligned buffer)', () => {
    const buffer = table().serialize('a');
    const shifted = Buffer.alloc(buffer.length + 1);
    buffer.copy(shifted, 1);
    const restored = AsnTable.deserialize(shifted.subarray(1), 'a');
    assert.ok(restored);
    assert.deepEqual(lookup(restored, '8.8.8.8'), [15169, 'Google LLC']);
  });

  it('an empty table round-trips', () => {
    const empty = AsnTable.fromRanges([]);
    const restored = AsnTable.deserialize(empty.serialize('e'), 'e');
    assert.equal(restored?.size, 0);
    assert.equal(restored.lookup(parseIp('1.1.1.1') ?? assert.fail()), null);
  });
});

describe('AsnTable overlapping ranges', () => {
  it('a partial overlap: the later-starting range wins from its start', () => {
    const t = AsnTable.fromRanges(
      parseAsnCsv('10.0.0.0,10.0.0.200,1,First\n10.0.0.100,10.0.1.0,2,Second').rows,
    );
    assert.deepEqual(lookup(t, '10.0.0.99'), [1, 'First']);
    assert.deepEqual(lookup(t, '10.0.0.100'), [2, 'Second']);
    assert.deepEqual(lookup(t, '10.0.0.200'), [2, 'Second']);
    assert.deepEqual(lookup(t, '10.0.1.0'), [2, 'Second']);
  });

  it('a partial overlap in IPv6', () => {
    const t = AsnTable.fromRanges(
      parseAsnCsv('2001:db8::,2001:db8::ffff,1,First\n2001:db8::100,2001:db8:0:0:0:0:1:0,2,Second')
        .rows,
    );
    assert.deepEqual(lookup(t, '2001:db8::ff'), [1, 'First']);
    assert.deepEqual(lookup(t, '2001:db8::100'), [2, 'Second']);
    assert.deepEqual(lookup(t, '2001:db8::1:0'), [2, 'Second']);
  });

  it('two ranges with the same start: one of them answers, lookups stay in range', () => {
    const t = AsnTable.fromRanges(
      parseAsnCsv('0.0.0.0,0.0.0.255,1,A\n0.0.0.0,0.0.0.255,2,B\n0.0.1.0,0.0.1.255,3,C').rows,
    );
    assert.ok([1, 2].includes(lookup(t, '0.0.0.7')?.[0] ?? -1));
    assert.deepEqual(lookup(t, '0.0.1.7'), [3, 'C']);
    assert.equal(lookup(t, '0.0.2.0'), null);
  });

  it('a range nested inside another: the outer range still answers after the inner one ends', () => {
    const t = AsnTable.fromRanges(
      parseAsnCsv('10.0.0.0,10.0.0.255,1,Outer\n10.0.0.16,10.0.0.31,2,Inner').rows,
    );
    assert.deepEqual(lookup(t, '10.0.0.15'), [1, 'Outer']);
    assert.deepEqual(lookup(t, '10.0.0.16'), [2, 'Inner']);
    assert.deepEqual(lookup(t, '10.0.0.31'), [2, 'Inner']);
    assert.deepEqual(lookup(t, '10.0.0.32'), [1, 'Outer']);
  });

  it('IPv4 lookups agree with a linear scan on random tables', () => {
    for (let round = 0; round < 5; round++) {
      // sorted, disjoint random ranges: short ones and ones spanning many /16s
      const bounds = Array.from({ length: 600 }, () => Math.floor(Math.random() * 2 ** 32))
        .sort((a, b) => a - b)
        .filter((v, i, all) => i === 0 || v !== all[i - 1]);
      const ranges: { start: number; end: number; asn: number }[] = [];
      for (let i = 0; i + 1 < bounds.length; i += 2) {
        const start = bounds[i] ?? 0;
        const end =
          Math.random() < 0.5
            ? (bounds[i + 1] ?? start)
            : Math.min(start + 255, bounds[i + 1] ?? start);
        ranges.push({ start, end, asn: i + 1 });
      }
      const csv = ranges
        .map((r) => `${formatIpv4(r.start)},${formatIpv4(r.end)},${r.asn},Org "${r.asn}"`)
        .join('\n');
      const t = AsnTable.fromRanges(parseAsnCsv(csv).rows);
      const probes = [0, 2 ** 32 - 1];
      for (const r of ranges)
        probes.push(r.start, r.end, Math.max(0, r.start - 1), Math.min(2 ** 32 - 1, r.end + 1));
      for (let i = 0; i < 2_000; i++) probes.push(Math.floor(Math.random() * 2 ** 32));
      for (const value of probes) {
        const want = ranges.find((r) => r.start <= value && value <= r.end) ?? null;
        const ip = parseIp(formatIpv4(value));
        assert.ok(ip !== null);
        const got = t.lookup(ip);
        assert.equal(got?.asn ?? null, want?.asn ?? null, formatIpv4(value));
      }
    }
  });
});
