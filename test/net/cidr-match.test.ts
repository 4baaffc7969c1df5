// parseCidr / cidrContains / PrefixList: the prefix matching behind bogon
// ranges and TRUST_PROXY lists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrefixList, cidrContains, ipv4Mask, parseCidr } from '../../src/net/cidr-match.js';
import { ip } from '../helpers/addresses.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';

describe('parseCidr', () => {
  const accepted: { input: string; text: string; version: 4 | 6; prefixLength: number }[] = [
    { input: '10.0.0.0/8', text: '10.0.0.0/8', version: 4, prefixLength: 8 },
    { input: '10.1.2.3/8', text: '10.0.0.0/8', version: 4, prefixLength: 8 }, // host bits cleared
    { input: '0.0.0.0/0', text: '0.0.0.0/0', version: 4, prefixLength: 0 },
    { input: '255.255.255.255/0', text: '0.0.0.0/0', version: 4, prefixLength: 0 },
    { input: '1.2.3.4', text: '1.2.3.4/32', version: 4, prefixLength: 32 }, // a bare address
    { input: '1.2.3.4/32', text: '1.2.3.4/32', version: 4, prefixLength: 32 },
    { input: '192.168.1.129/25', text: '192.168.1.128/25', version: 4, prefixLength: 25 },
    { input: 'fc00::/7', text: 'fc00::/7', version: 6, prefixLength: 7 },
    { input: 'fdff:1::/7', text: 'fc00::/7', version: 6, prefixLength: 7 },
    { input: '2001:db8::1/32', text: '2001:db8::/32', version: 6, prefixLength: 32 },
    { input: '2001:db8:ffff:ffff::/33', text: '2001:db8:8000::/33', version: 6, prefixLength: 33 },
    { input: '::/0', text: '::/0', version: 6, prefixLength: 0 },
    { input: '::1', text: '::1/128', version: 6, prefixLength: 128 },
    { input: '2001:db8::1/128', text: '2001:db8::1/128', version: 6, prefixLength: 128 },
    { input: '2001:db8::ffff/127', text: '2001:db8::fffe/127', version: 6, prefixLength: 127 },
    // an IPv4-mapped prefix is the IPv4 prefix it wraps
    { input: '::ffff:10.0.0.0/104', text: '10.0.0.0/8', version: 4, prefixLength: 8 },
    { input: '::ffff:10.1.1.1/128', text: '10.1.1.1/32', version: 4, prefixLength: 32 },
  ];
  for (const { input, text, version, prefixLength } of accepted) {
    it(`${input} → ${text}`, () => {
      const cidr = parseCidr(input);
      assert.ok(cidr);
      assert.equal(cidr.text, text);
      assert.equal(cidr.version, version);
      assert.equal(cidr.prefixLength, prefixLength);
    });
  }

  const refused = [
    '',
    '/8',
    '10.0.0.0/',
    '10.0.0.0/33',
    '10.0.0.0/-1',
    '10.0.0.0/08', // leading zero
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    '10.0.0.0/8 ',
    '10.0.0.0/0x8',
    '010.0.0.0/8',
    '10.0.0/8',
    '::/129',
    'fe80::1%eth0/64',
    '::ffff:10.0.0.0/95', // would be a negative IPv4 prefix
    'garbage',
    `${'9'.repeat(300)}/8`,
  ];
  for (const input of refused) {
    it(`${JSON.stringify(input.slice(0, 40))} → null`, () => {
      assert.equal(parseCidr(input), null);
    });
  }
});

describe('ipv4Mask', () => {
  it('covers /0, /1, /8, /31, /32', () => {
    assert.equal(ipv4Mask(0), 0);
    assert.equal(ipv4Mask(1), 0x80000000);
    assert.equal(ipv4Mask(8), 0xff000000);
    assert.equal(ipv4Mask(31), 0xfffffffe);
    assert.equal(ipv4Mask(32), 0xffffffff);
  });
});

describe('cidrContains', () => {
  const table: { cidr: string; address: string; want: boolean }[] = [
    { cidr: '10.0.0.0/8', address: '10.0.0.0', want: true },
    { cidr: '10.0.0.0/8', address: '10.255.255.255', want: true },
    { cidr: '10.0.0.0/8', address: '11.0.0.0', want: false },
    { cidr: '10.0.0.0/8', address: '9.255.255.255', want: false },
    { cidr: '0.0.0.0/0', address: '255.255.255.255', want: true },
    { cidr: '1.2.3.4/32', address: '1.2.3.4', want: true },
    { cidr: '1.2.3.4/32', address: '1.2.3.5', want: false },
    { cidr: '128.0.0.0/1', address: '128.0.0.0', want: true }, // sign bit
    { cidr: '128.0.0.0/1', address: '127.255.255.255', want: false },
    { cidr: '100.64.0.0/10', address: '100.127.255.255', want: true },
    { cidr: '100.64.0.0/10', address: '100.128.0.0', want: false },
    { cidr: 'fe80::/10', address: 'febf:ffff::1', want: true },
    { cidr: 'fe80::/10', address: 'fec0::', want: false },
    { cidr: '2001:db8::/32', address: '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', want: true },
    { cidr: '2001:db8::/32', address: '2001:db9::', want: false },
    { cidr: '2001:db8::/33', address: '2001:db8:7fff::1', want: true },
    { cidr: '2001:db8::/33', address: '2001:db8:8000::1', want: false },
    { cidr: '::/0', address: 'ffff::1', want: true },
    { cidr: '::1/128', address: '::1', want: true },
    { cidr: '::1/128', address: '::2', want: false },
    // families never match each other
    { cidr: '0.0.0.0/0', address: '::1', want: false },
    { cidr: '::/0', address: '1.2.3.4', want: false },
    // a mapped address is its IPv4 address
    { cidr: '10.0.0.0/8', address: '::ffff:10.9.9.9', want: true },
  ];
  for (const { cidr, address, want } of table) {
    it(`${cidr} ${want ? 'contains' : 'does not contain'} ${address}`, () => {
      const parsed = parseCidr(cidr);
      assert.ok(parsed);
      assert.equal(cidrContains(parsed, ip(address)), want);
    });
  }

  it('agrees with a BigInt computation for random IPv6 prefixes', () => {
    const big = (groups: readonly number[]) =>
      groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
    const random = seededRandom();
    withSeed(random, () => {
      for (let n = 0; n < 500; n++) {
        const groups = Array.from({ length: 8 }, () => random.below(0x10000));
        groups[0] = 0x2000 | (groups[0] ?? 0); // stay clear of ::ffff:0:0/96
        const prefix = random.below(129);
        const other = groups.map((g) => (random.chance(0.7) ? g : random.below(0x10000)));
        other[0] = 0x2000 | (other[0] ?? 0);
        const text = (g: number[]) => g.map((x) => x.toString(16)).join(':');
        const cidr = parseCidr(`${text(groups)}/${prefix}`);
        assert.ok(cidr);
        const mask = prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
        const want = (big(groups) & mask) === (big(other) & mask);
        assert.equal(cidrContains(cidr, ip(text(other))), want, `${cidr.text} ∋ ${text(other)}`);
      }
    });
  });
});

describe('PrefixList', () => {
  it('answers the label of the first containing prefix, in list order', () => {
    const list = new PrefixList<string>([
      ['10.0.0.0/8', 'wide'],
      ['10.1.0.0/16', 'narrow'],
      ['2001:db8::/32', 'doc'],
    ]);
    assert.equal(list.match(ip('10.1.2.3')), 'wide');
    assert.equal(list.match(ip('11.0.0.0')), null);
    assert.equal(list.match(ip('2001:db8::1')), 'doc');
    assert.equal(list.match(ip('2001:db9::1')), null);
  });

  it('refuses a malformed prefix at construction', () => {
    assert.throws(() => new PrefixList([['10.0.0.0/33', 'x']]), /bad prefix/);
  });
});
