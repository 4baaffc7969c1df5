// calculateCidr checked against an independent computation: addresses as
// 32-character bit strings, masks built by string padding, counts with
// BigInt — nothing shared with src/ but the input text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/kit/errors.js';
import { calculateCidr, type CidrRecord } from '../../src/lookups/cidr.js';
import { seededRandom, withSeed, type SeededRandom } from '../helpers/seeded-random.js';

function toBits(address: string): string {
  return address
    .split('.')
    .map((octet) => Number(octet).toString(2).padStart(8, '0'))
    .join('');
}

function fromBits(bits: string): string {
  return [0, 8, 16, 24].map((i) => String(parseInt(bits.slice(i, i + 8), 2))).join('.');
}

/** Adds a small signed delta to a 32-bit string (carries by BigInt). */
function addBits(bits: string, delta: number): string {
  return (BigInt(`0b${bits}`) + BigInt(delta)).toString(2).padStart(32, '0');
}

function reference(range: string): CidrRecord {
  const [address = '', prefixText = ''] = range.split('/');
  const prefix = Number(prefixText);
  const bits = toBits(address);
  const network = bits.slice(0, prefix).padEnd(32, '0');
  const broadcast = bits.slice(0, prefix).padEnd(32, '1');
  const mask = '1'.repeat(prefix).padEnd(32, '0');
  const wildcard = '0'.repeat(prefix).padEnd(32, '1');
  const total = 2n ** BigInt(32 - prefix);
  const rfc3021 = prefix >= 31;
  return {
    network: fromBits(network),
    broadcast: fromBits(broadcast),
    subnetMask: fromBits(mask),
    totalHosts: Number(total),
    usableHosts: Number(rfc3021 ? total : total - 2n),
    firstHost: fromBits(rfc3021 ? network : addBits(network, 1)),
    lastHost: fromBits(rfc3021 ? broadcast : addBits(broadcast, -1)),
    cidr: `${fromBits(network)}/${prefix}`,
    prefixLength: prefix,
    wildcardMask: fromBits(wildcard),
  };
}

function randomAddress(random: SeededRandom): string {
  return Array.from({ length: 4 }, () => random.below(256)).join('.');
}

describe('calculateCidr agrees with an independent computation', () => {
  it('on 2079 random ranges, 63 for every prefix 0–32, all fields', () => {
    let checked = 0;
    const random = seededRandom();
    withSeed(random, () => {
      for (let prefix = 0; prefix <= 32; prefix++) {
        for (let n = 0; n < 63; n++) {
          const range = `${randomAddress(random)}/${prefix}`;
          assert.deepEqual(calculateCidr(range), reference(range), range);
          checked++;
        }
      }
    });
    assert.ok(checked >= 2000);
  });

  it('on the extreme addresses of every prefix', () => {
    for (let prefix = 0; prefix <= 32; prefix++) {
      for (const address of ['0.0.0.0', '255.255.255.255', '128.0.0.0', '127.255.255.255']) {
        const range = `${address}/${prefix}`;
        assert.deepEqual(calculateCidr(range), reference(range), range);
      }
    }
  });
});

describe('calculateCidr on named cases', () => {
  const table: { range: string; want: Partial<CidrRecord>; note?: string }[] = [
    {
      range: '0.0.0.0/0',
      want: {
        network: '0.0.0.0',
        broadcast: '255.255.255.255',
        subnetMask: '0.0.0.0',
        totalHosts: 4294967296,
        usableHosts: 4294967294,
        firstHost: '0.0.0.1',
        lastHost: '255.255.255.254',
      },
    },
    {
      range: '200.1.2.3/1',
      want: {
        network: '128.0.0.0',
        broadcast: '255.255.255.255',
        subnetMask: '128.0.0.0',
        totalHosts: 2147483648,
      },
    },
    {
      range: '10.0.0.0/8',
      want: {
        network: '10.0.0.0',
        broadcast: '10.255.255.255',
        subnetMask: '255.0.0.0',
        totalHosts: 16777216,
        usableHosts: 16777214,
        firstHost: '10.0.0.1',
        lastHost: '10.255.255.254',
        wildcardMask: '0.255.255.255',
      },
    },
    {
      range: '192.168.1.0/24',
      want: {
        network: '192.168.1.0',
        broadcast: '192.168.1.255',
        subnetMask: '255.255.255.0',
        totalHosts: 256,
        usableHosts: 254,
        firstHost: '192.168.1.1',
        lastHost: '192.168.1.254',
      },
    },
    {
      range: '192.168.1.77/24',
      note: 'host bits set: the network is reported, as ipcalc does',
      want: { network: '192.168.1.0', cidr: '192.168.1.0/24', firstHost: '192.168.1.1' },
    },
    {
      range: '10.0.0.4/30',
      want: {
        network: '10.0.0.4',
        broadcast: '10.0.0.7',
        subnetMask: '255.255.255.252',
        totalHosts: 4,
        usableHosts: 2,
        firstHost: '10.0.0.5',
        lastHost: '10.0.0.6',
      },
    },
    {
      range: '10.0.0.5/31',
      note: 'RFC 3021: both addresses usable',
      want: {
        network: '10.0.0.4',
        broadcast: '10.0.0.5',
        subnetMask: '255.255.255.254',
        totalHosts: 2,
        usableHosts: 2,
        firstHost: '10.0.0.4',
        lastHost: '10.0.0.5',
      },
    },
    {
      range: '10.0.0.5/32',
      want: {
        network: '10.0.0.5',
        broadcast: '10.0.0.5',
        subnetMask: '255.255.255.255',
        totalHosts: 1,
        usableHosts: 1,
        firstHost: '10.0.0.5',
        lastHost: '10.0.0.5',
        wildcardMask: '0.0.0.0',
      },
    },
  ];
  for (const { range, want, note } of table) {
    it(`${range}${note ? ` (${note})` : ''}`, () => {
      const got = calculateCidr(range);
      for (const [field, value] of Object.entries(want)) {
        assert.equal(got[field as keyof CidrRecord], value, field);
      }
    });
  }
});

describe('malformed ranges → INVALID_RANGE', () => {
  const table: { input: string | null | undefined; why: string }[] = [
    { input: undefined, why: 'missing' },
    { input: null, why: 'missing' },
    { input: '', why: 'empty' },
    { input: '   ', why: 'blank' },
    { input: '10.0.0.0', why: 'no prefix' },
    { input: '10.0.0.0/', why: 'empty prefix' },
    { input: '/24', why: 'no address' },
    { input: '10.0.0.0/33', why: 'prefix over 32' },
    { input: '10.0.0.0/-1', why: 'negative prefix' },
    { input: '10.0.0.0/08', why: 'prefix with a leading zero' },
    { input: '10.0.0.0/+8', why: 'signed prefix' },
    { input: '10.0.0.0/8.0', why: 'fractional prefix' },
    { input: '10.0.0.0/1e1', why: 'exponent' },
    { input: '10.0.0.0/８', why: 'full-width digit' },
    { input: '010.0.0.0/8', why: 'leading zero in the address' },
    { input: '10.0.0/8', why: 'three octets' },
    { input: '10.0.0.256/8', why: 'octet over 255' },
    { input: '10.0.0.0/8/8', why: 'two slashes' },
    { input: '10.0.0.0 /8', why: 'space before the slash' },
    { input: '10.0.0.0/ 8', why: 'space after the slash' },
    { input: '10.0. 0.0/8', why: 'space inside the address' },
    { input: '2001:db8::/129', why: 'IPv6 prefix over 128' },
    { input: '2001:db8::/064', why: 'IPv6 prefix with a leading zero' },
    { input: '2001:db8:::/32', why: 'three colons' },
    { input: 'fe80::1%eth0/64', why: 'IPv6 zone' },
    { input: '2001:db8::', why: 'IPv6 without a prefix' },
    { input: '[2001:db8::]/32', why: 'brackets' },
    { input: '%zz', why: 'undecodable escape passed on as is' },
    { input: '10.0.0.0%2F8', why: 'still-encoded slash' },
    { input: 'x'.repeat(10_000), why: 'ten thousand characters' },
  ];
  for (const { input, why } of table) {
    const shown = typeof input === 'string' && input.length > 30 ? `${input.slice(0, 30)}…` : input;
    it(`${JSON.stringify(shown) ?? 'undefined'} (${why})`, () => {
      assert.throws(
        () => calculateCidr(input),
        (error: unknown) =>
          error instanceof AppError &&
          error.code === 'INVALID_RANGE' &&
          error.status === 400 &&
          error.message.length < 300,
      );
    });
  }
});
