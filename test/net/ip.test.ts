// parseIp / formatIpv6: strict dotted-quad IPv4, RFC 4291 IPv6 printed in
// RFC 5952 form, IPv4-mapped addresses unwrapped, everything else refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIpv4, formatIpv6, parseIp, parseIpv4 } from '../../src/net/ip.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';

describe('parseIp accepts addresses and canonicalises them', () => {
  const table: { input: string; version: 4 | 6; text: string }[] = [
    { input: '0.0.0.0', version: 4, text: '0.0.0.0' },
    { input: '8.8.8.8', version: 4, text: '8.8.8.8' },
    { input: '255.255.255.255', version: 4, text: '255.255.255.255' },
    { input: '10.0.100.0', version: 4, text: '10.0.100.0' }, // zeros that are not leading
    { input: '::', version: 6, text: '::' },
    { input: '::1', version: 6, text: '::1' },
    { input: '0:0:0:0:0:0:0:1', version: 6, text: '::1' },
    // RFC 5952 §4.1: no leading zeros in a group
    { input: '2001:0db8:0000:0000:0000:0000:0000:0001', version: 6, text: '2001:db8::1' },
    // §4.2.1: the longest run of zero groups is shortened
    { input: '2001:db8:0:0:1:0:0:0', version: 6, text: '2001:db8:0:0:1::' },
    // §4.2.2: a single zero group is not shortened
    { input: '2001:db8:0:1:1:1:1:1', version: 6, text: '2001:db8:0:1:1:1:1:1' },
    { input: '2001:db8::1:1:1:1:1', version: 6, text: '2001:db8:0:1:1:1:1:1' },
    // §4.2.3: on a tie the first run is shortened
    { input: '2001:db8:0:0:1:0:0:1', version: 6, text: '2001:db8::1:0:0:1' },
    // §4.3: lower case
    { input: '2001:DB8::ABCD', version: 6, text: '2001:db8::abcd' },
    { input: 'FE80::1', version: 6, text: 'fe80::1' },
    { input: '1:2:3:4:5:6:7:8', version: 6, text: '1:2:3:4:5:6:7:8' },
    { input: '1::', version: 6, text: '1::' },
    { input: '1:0:0:0:0:0:0:0', version: 6, text: '1::' },
    { input: '::2:3:4:5:6:7:8', version: 6, text: '0:2:3:4:5:6:7:8' },
    { input: '2606:4700:4700::1111', version: 6, text: '2606:4700:4700::1111' },
    // embedded IPv4 in the last 32 bits (RFC 4291 §2.2 form 3), not mapped
    { input: '64:ff9b::192.0.2.33', version: 6, text: '64:ff9b::c000:221' },
    { input: '::1.2.3.4', version: 6, text: '::102:304' },
    { input: '1:2:3:4:5:6:1.2.3.4', version: 6, text: '1:2:3:4:5:6:102:304' },
    // IPv4-mapped (RFC 4291 §2.5.5.2) is the IPv4 host it wraps
    { input: '::ffff:1.2.3.4', version: 4, text: '1.2.3.4' },
    { input: '::FFFF:8.8.8.8', version: 4, text: '8.8.8.8' },
    { input: '::ffff:808:808', version: 4, text: '8.8.8.8' },
    { input: '0:0:0:0:0:ffff:c0a8:101', version: 4, text: '192.168.1.1' },
  ];
  for (const { input, version, text } of table) {
    it(`${input} → IPv${version} ${text}`, () => {
      const ip = parseIp(input);
      assert.ok(ip, `${input} should parse`);
      assert.equal(ip.version, version);
      assert.equal(ip.text, text);
    });
  }

  it('IPv4 value is the unsigned 32-bit number', () => {
    assert.equal(parseIpv4('255.255.255.255')?.value, 0xffffffff);
    assert.equal(parseIpv4('128.0.0.1')?.value, 0x80000001);
    assert.equal(parseIpv4('0.0.0.0')?.value, 0);
    const mapped = parseIp('::ffff:255.255.255.255');
    assert.equal(mapped?.version === 4 && mapped.value, 0xffffffff);
  });

  it('IPv6 groups are the eight 16-bit groups', () => {
    const ip = parseIp('2001:db8::ff00:42:8329');
    assert.deepEqual(
      ip?.version === 6 && ip.groups,
      [0x2001, 0xdb8, 0, 0, 0, 0xff00, 0x42, 0x8329],
    );
  });
});

describe('parseIp refuses anything that is not exactly an address', () => {
  const table: { input: string; why: string }[] = [
    { input: '', why: 'empty' },
    { input: '010.1.1.1', why: 'leading zero (octal or decimal?)' },
    { input: '1.2.3.04', why: 'leading zero in the last octet' },
    { input: '00.1.1.1', why: 'double zero' },
    { input: '1.2.3', why: 'three octets' },
    { input: '1.2.3.4.5', why: 'five octets' },
    { input: '256.1.1.1', why: 'octet over 255' },
    { input: '1.2.3.999', why: 'octet over 255' },
    { input: '1.2.3.1000', why: 'four digits' },
    { input: '1.2.3.4.', why: 'trailing dot' },
    { input: '.1.2.3.4', why: 'leading dot' },
    { input: '1..2.3', why: 'empty octet' },
    { input: '1.2.3.-4', why: 'sign' },
    { input: '+1.2.3.4', why: 'sign' },
    { input: ' 1.2.3.4', why: 'leading space' },
    { input: '1.2.3.4 ', why: 'trailing space' },
    { input: '1.2.3.4\n', why: 'newline' },
    { input: '0x7f.0.0.1', why: 'hex octet' },
    { input: '2130706433', why: 'integer form' },
    { input: '127.1', why: 'inet_aton short form' },
    { input: '１.２.３.４', why: 'full-width digits' },
    { input: '1.2.3.4/32', why: 'a prefix is not an address' },
    { input: 'fe80::1%eth0', why: 'zone id' },
    { input: 'fe80::1%25eth0', why: 'zone id, percent-encoded' },
    { input: 'fe80::1%1', why: 'numeric zone id' },
    { input: ':', why: 'lone colon' },
    { input: ':::', why: 'triple colon' },
    { input: '1:::2', why: 'triple colon' },
    { input: '1::2::3', why: 'two double colons' },
    { input: ':1:2:3:4:5:6:7', why: 'leading single colon' },
    { input: '1:2:3:4:5:6:7:', why: 'trailing single colon' },
    { input: '1:2:3:4:5:6:7', why: 'seven groups' },
    { input: '1:2:3:4:5:6:7:8:9', why: 'nine groups' },
    { input: '1:2:3:4::5:6:7:8', why: ':: standing for no group' },
    { input: '12345::', why: 'five hex digits' },
    { input: 'g::1', why: 'not hex' },
    { input: '::ffff:1.2.3', why: 'short embedded IPv4' },
    { input: '::ffff:01.2.3.4', why: 'leading zero in embedded IPv4' },
    { input: '::1.2.3.4:5', why: 'embedded IPv4 not last' },
    { input: '1.2.3.4::', why: 'embedded IPv4 first' },
    { input: '1:2:3:4:5:6:7:1.2.3.4', why: 'nine groups with embedded IPv4' },
    { input: '[::1]', why: 'brackets' },
    { input: '::1:', why: 'trailing colon' },
    { input: 'localhost', why: 'a name' },
    { input: 'null', why: 'a word' },
    { input: '%zz', why: 'undecodable escape' },
    { input: '1'.repeat(1000), why: '1000 digits' },
    { input: ':'.repeat(1000), why: '1000 colons' },
    { input: `${'1:'.repeat(500)}1`, why: 'very long IPv6-looking text' },
    { input: '1.2.3.4\u0000', why: 'NUL byte' },
    { input: '1.2.3.4\u200b', why: 'zero-width space' },
    { input: '::ffff:1.2.3.4\u0000', why: 'NUL after mapped address' },
  ];
  for (const { input, why } of table) {
    it(`${JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input)} (${why}) → null`, () => {
      assert.equal(parseIp(input), null);
    });
  }
});

describe('formatIpv6 (RFC 5952)', () => {
  it('writes every 16-bit group value in lower-case hex without leading zeros', () => {
    for (let g = 1; g < 65_536; g++) {
      const hex = g.toString(16);
      assert.equal(formatIpv6([0x2001, g, 0, 0, 0, 0, 0, g]), `2001:${hex}::${hex}`);
    }
  });

  const table: { groups: number[]; want: string }[] = [
    { groups: [0, 0, 0, 0, 0, 0, 0, 0], want: '::' },
    { groups: [0, 0, 0, 0, 0, 0, 0, 1], want: '::1' },
    { groups: [1, 0, 0, 0, 0, 0, 0, 0], want: '1::' },
    { groups: [0x2001, 0xdb8, 0, 0, 0, 0, 2, 1], want: '2001:db8::2:1' },
    { groups: [0x2001, 0xdb8, 0, 1, 1, 1, 1, 1], want: '2001:db8:0:1:1:1:1:1' },
    { groups: [0x2001, 0, 0, 1, 0, 0, 0, 1], want: '2001:0:0:1::1' }, // the longer run wins
    { groups: [0x2001, 0xdb8, 0, 0, 1, 0, 0, 1], want: '2001:db8::1:0:0:1' }, // first of equal runs
    { groups: [0, 0, 1, 0, 0, 0, 0, 0], want: '0:0:1::' },
    {
      groups: [0xabcd, 0xef01, 0x2345, 0x6789, 0xabcd, 0xef01, 0x2345, 0x6789],
      want: 'abcd:ef01:2345:6789:abcd:ef01:2345:6789',
    },
    { groups: [0xffff, 0, 0xffff, 0, 0xffff, 0, 0xffff, 0], want: 'ffff:0:ffff:0:ffff:0:ffff:0' },
  ];
  for (const { groups, want } of table) {
    it(`${groups.map((g) => g.toString(16)).join(':')} → ${want}`, () => {
      assert.equal(formatIpv6(groups), want);
    });
  }

  it('format(parse(x)) is stable for random addresses', () => {
    const random = seededRandom();
    withSeed(random, () => {
      for (let n = 0; n < 500; n++) {
        // sparse groups so that zero runs of every length appear
        const groups = Array.from({ length: 8 }, () =>
          random.chance(0.5) ? 0 : random.below(0x10000),
        );
        const text = formatIpv6(groups);
        const ip = parseIp(text);
        if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
          assert.equal(ip?.version, 4, text);
          continue;
        }
        assert.equal(ip?.version, 6, text);
        assert.deepEqual(ip.version === 6 && ip.groups, groups, text);
        assert.equal(ip.text, text);
        // the long form without any shortening parses to the same address
        assert.equal(
          parseIp(groups.map((g) => g.toString(16).padStart(4, '0')).join(':'))?.text,
          text,
        );
      }
    });
  });

  it('formatIpv4 prints the four octets', () => {
    assert.equal(formatIpv4(0), '0.0.0.0');
    assert.equal(formatIpv4(0xffffffff), '255.255.255.255');
    assert.equal(formatIpv4(0x0a000001), '10.0.0.1');
  });
});
