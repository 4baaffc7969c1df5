// Special-purpose ranges: every range of bogons.ts is matched at its first
// and last address, and the public neighbours just outside stay public.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBogon, specialPurposeRange } from '../../../src/lookups/geoip/bogons.js';
import { ip } from '../../helpers/addresses.js';

// [range, first address, last address, the RFC its label must cite]
const IPV4_SPECIAL: [string, string, string, string][] = [
  ['0.0.0.0/8', '0.0.0.0', '0.255.255.255', 'RFC 791'],
  ['10.0.0.0/8', '10.0.0.0', '10.255.255.255', 'RFC 1918'],
  ['100.64.0.0/10', '100.64.0.0', '100.127.255.255', 'RFC 6598'],
  ['127.0.0.0/8', '127.0.0.0', '127.255.255.255', 'RFC 1122'],
  ['169.254.0.0/16', '169.254.0.0', '169.254.255.255', 'RFC 3927'],
  ['172.16.0.0/12', '172.16.0.0', '172.31.255.255', 'RFC 1918'],
  ['192.0.0.0/24', '192.0.0.0', '192.0.0.255', 'RFC 6890'],
  ['192.0.2.0/24', '192.0.2.0', '192.0.2.255', 'RFC 5737'],
  ['192.88.99.0/24', '192.88.99.0', '192.88.99.255', 'RFC 7526'],
  ['192.168.0.0/16', '192.168.0.0', '192.168.255.255', 'RFC 1918'],
  ['198.18.0.0/15', '198.18.0.0', '198.19.255.255', 'RFC 2544'],
  ['198.51.100.0/24', '198.51.100.0', '198.51.100.255', 'RFC 5737'],
  ['203.0.113.0/24', '203.0.113.0', '203.0.113.255', 'RFC 5737'],
  ['224.0.0.0/4', '224.0.0.0', '239.255.255.255', 'RFC 5771'],
  ['240.0.0.0/4', '240.0.0.0', '255.255.255.254', 'RFC 1112'],
  ['255.255.255.255/32', '255.255.255.255', '255.255.255.255', 'RFC 919'],
];

const IPV6_SPECIAL: [string, string, string, string][] = [
  ['::/128', '::', '::', 'RFC 4291'],
  ['::1/128', '::1', '::1', 'RFC 4291'],
  ['64:ff9b::/96', '64:ff9b::', '64:ff9b::ffff:ffff', 'RFC 6052'],
  ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'RFC 8215'],
  ['100::/64', '100::', '100::ffff:ffff:ffff:ffff', 'RFC 6666'],
  ['2001:2::/48', '2001:2::', '2001:2:0:ffff:ffff:ffff:ffff:ffff', 'RFC 5180'],
  ['2001:10::/28', '2001:10::', '2001:1f:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 4843'],
  ['2001:db8::/32', '2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 3849'],
  ['3fff::/20', '3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 9637'],
  ['5f00::/16', '5f00::', '5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 9602'],
  ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 4193'],
  ['fe80::/10', 'fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 4291'],
  ['fec0::/10', 'fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 3879'],
  ['ff00::/8', 'ff00::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'RFC 4291'],
];

describe('special-purpose ranges are bogons at both edges', () => {
  for (const [range, first, last, label] of [...IPV4_SPECIAL, ...IPV6_SPECIAL]) {
    it(`${range}: ${first} … ${last}`, () => {
      for (const address of [first, last]) {
        const why = specialPurposeRange(ip(address));
        assert.ok(why !== null, `${address} should be special`);
        assert.ok(why.includes(label), `${address}: "${why}" should mention ${label}`);
        assert.equal(isBogon(ip(address)), true);
      }
    });
  }

  it('IPv6 outside 2000::/3 and not otherwise listed is a bogon (e.g. ::2, 4000::1, e000::1)', () => {
    for (const address of ['::2', '4000::1', 'e000::1', '1fff:ffff::1', '4000::']) {
      assert.match(specialPurposeRange(ip(address)) ?? '', /2000::\/3/, address);
    }
  });

  it('an IPv4-mapped or IPv4-compatible form of a private address is a bogon', () => {
    assert.equal(isBogon(ip('::ffff:10.0.0.1')), true);
    assert.equal(isBogon(ip('::ffff:127.0.0.1')), true);
    assert.equal(isBogon(ip('::10.0.0.1')), true); // deprecated compatible form, outside 2000::/3
  });
});

describe('public addresses are not bogons', () => {
  const table: { address: string; why: string }[] = [
    { address: '8.8.8.8', why: 'Google DNS' },
    { address: '1.1.1.1', why: 'Cloudflare DNS' },
    { address: '9.9.9.9', why: 'Quad9' },
    { address: '1.0.0.0', why: 'first address after 0/8' },
    { address: '9.255.255.255', why: 'just below 10/8' },
    { address: '11.0.0.0', why: 'just above 10/8' },
    { address: '100.63.255.255', why: 'just below 100.64/10' },
    { address: '100.128.0.0', why: 'just above 100.64/10' },
    { address: '126.255.255.255', why: 'just below 127/8' },
    { address: '128.0.0.0', why: 'just above 127/8' },
    { address: '169.253.255.255', why: 'just below 169.254/16' },
    { address: '169.255.0.0', why: 'just above 169.254/16' },
    { address: '172.15.255.255', why: 'just below 172.16/12' },
    { address: '172.32.0.0', why: 'just above 172.16/12' },
    { address: '192.0.1.0', why: 'between 192.0.0/24 and 192.0.2/24' },
    { address: '192.0.3.0', why: 'just above TEST-NET-1' },
    { address: '192.31.196.1', why: 'AS112: globally reachable, deliberately public' },
    { address: '192.88.98.255', why: 'just below 192.88.99/24' },
    { address: '192.167.255.255', why: 'just below 192.168/16' },
    { address: '192.169.0.0', why: 'just above 192.168/16' },
    { address: '198.17.255.255', why: 'just below 198.18/15' },
    { address: '198.20.0.0', why: 'just above 198.18/15' },
    { address: '198.51.99.255', why: 'just below TEST-NET-2' },
    { address: '203.0.112.255', why: 'just below TEST-NET-3' },
    { address: '203.0.114.0', why: 'just above TEST-NET-3' },
    { address: '223.255.255.255', why: 'just below multicast' },
    { address: '2606:4700::1111', why: 'Cloudflare' },
    { address: '2606:4700:4700::1111', why: 'Cloudflare DNS' },
    { address: '2001:4860:4860::8888', why: 'Google DNS' },
    { address: '2000::', why: 'first of 2000::/3' },
    { address: '3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', why: 'last before 3fff::/20' },
    { address: '3fff:1000::', why: 'just above 3fff::/20' },
    { address: '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', why: 'just below 2001:db8::/32' },
    { address: '2001:db9::', why: 'just above 2001:db8::/32' },
    { address: '2001::1', why: 'Teredo: globally reachable, deliberately public' },
    { address: '2002:808:808::1', why: '6to4: a real network' },
  ];
  for (const { address, why } of table) {
    it(`${address} (${why})`, () => {
      assert.equal(specialPurposeRange(ip(address)), null);
      assert.equal(isBogon(ip(address)), false);
    });
  }
});
