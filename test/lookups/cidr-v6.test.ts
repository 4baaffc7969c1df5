// IPv6 CIDR records checked against an independent computation over seeded
// random prefixes 0–128: addresses as 128-character bit strings, masks by
// string padding, counts with BigInt, and the text form from the WHATWG URL
// serialiser (RFC 5952 compression) — nothing shared with src/ but the input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calculateCidr, type Cidr6Record } from '../../src/lookups/cidr.js';
import { seededRandom } from '../helpers/seeded-random.js';

function fromBits(bits: string): string {
  const groups = [];
  for (let i = 0; i < 128; i += 16) groups.push(parseInt(bits.slice(i, i + 16), 2).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

function addOne(bits: string): string {
  return (BigInt(`0b${bits}`) + 1n).toString(2).padStart(128, '0');
}

function reference(bits: string, prefix: number): Cidr6Record {
  const network = bits.slice(0, prefix).padEnd(128, '0');
  const last = bits.slice(0, prefix).padEnd(128, '1');
  const total = 2n ** BigInt(128 - prefix);
  const allUsable = prefix >= 127;
  const usable = allUsable ? total : total - 1n;
  const asCount = (n: bigint) => (n < 2n ** 53n ? Number(n) : n.toString());
  return {
    network: fromBits(network),
    broadcast: null,
    subnetMask: fromBits('1'.repeat(prefix).padEnd(128, '0')),
    totalHosts: asCount(total),
    usableHosts: asCount(usable),
    firstHost: fromBits(allUsable ? network : addOne(network)),
    lastHost: fromBits(last),
    cidr: `${fromBits(network)}/${prefix}`,
    prefixLength: prefix,
    wildcardMask: fromBits('0'.repeat(prefix).padEnd(128, '1')),
  };
}

/** Random bits, often with runs of zero groups so that "::" compression is exercised. */
function randomBits(random: ReturnType<typeof seededRandom>): string {
  let bits = '';
  for (let g = 0; g < 8; g++) {
    const group = random.chance(0.3) ? 0 : random.below(0x10000);
    bits += group.toString(2).padStart(16, '0');
  }
  return bits;
}

/** The address written uncompressed with leading zeros, to test the parser too. */
function longForm(bits: string): string {
  const groups = [];
  for (let i = 0; i < 128; i += 16) {
    groups.push(
      parseInt(bits.slice(i, i + 16), 2)
        .toString(16)
        .padStart(4, '0'),
    );
  }
  return groups.join(':');
}

describe('IPv6 calculateCidr agrees with an independent computation', () => {
  it('every prefix length 0–128, seeded random addresses', () => {
    const random = seededRandom();
    for (let i = 0; i < 5_000; i++) {
      const prefix = i % 129;
      const bits = randomBits(random);
      const range = `${random.chance(0.5) ? longForm(bits) : fromBits(bits)}/${prefix}`;
      assert.deepEqual(
        calculateCidr(range),
        reference(bits, prefix),
        `${range} (TEST_SEED=${random.seed})`,
      );
    }
  });
});

describe('IPv6 calculateCidr on named cases', () => {
  const table: { range: string; want: Partial<Cidr6Record>; note?: string }[] = [
    {
      range: '::/0',
      want: {
        totalHosts: '340282366920938463463374607431768211456',
        usableHosts: '340282366920938463463374607431768211455',
        firstHost: '::1',
        lastHost: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
        subnetMask: '::',
        wildcardMask: 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      },
    },
    {
      range: '2001:db8:abcd:12::1/64',
      want: {
        network: '2001:db8:abcd:12::',
        broadcast: null,
        subnetMask: 'ffff:ffff:ffff:ffff::',
        totalHosts: '18446744073709551616',
        firstHost: '2001:db8:abcd:12::1',
        lastHost: '2001:db8:abcd:12:ffff:ffff:ffff:ffff',
        cidr: '2001:db8:abcd:12::/64',
      },
    },
    // the last prefix whose count is not exact as a JSON number, and the first that is
    { range: '2001:db8::/75', want: { totalHosts: '9007199254740992' } },
    { range: '2001:db8::/76', want: { totalHosts: 4503599627370496 } },
    {
      range: '2001:db8::/126',
      want: { totalHosts: 4, usableHosts: 3, firstHost: '2001:db8::1', lastHost: '2001:db8::3' },
    },
    {
      range: '2001:db8::7/127',
      want: { totalHosts: 2, usableHosts: 2, firstHost: '2001:db8::6', lastHost: '2001:db8::7' },
      note: 'RFC 6164: both addresses of a point-to-point link',
    },
    {
      range: '2001:db8::7/128',
      want: { totalHosts: 1, usableHosts: 1, firstHost: '2001:db8::7', lastHost: '2001:db8::7' },
    },
    {
      range: '::ffff:10.0.0.0/104',
      want: { network: '::ffff:a00:0', cidr: '::ffff:a00:0/104', totalHosts: 16777216 },
      note: 'an IPv4-mapped range stays an IPv6 range',
    },
    {
      range: '2001:DB8::/32',
      want: { network: '2001:db8::' },
      note: 'upper case in, RFC 5952 out',
    },
  ];
  for (const { range, want, note } of table) {
    it(`${range}${note === undefined ? '' : ` (${note})`}`, () => {
      const got = calculateCidr(range);
      for (const [field, value] of Object.entries(want)) {
        assert.equal(got[field as keyof Cidr6Record], value, field);
      }
    });
  }
});
