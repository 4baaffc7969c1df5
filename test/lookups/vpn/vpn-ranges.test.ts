// The vpn-range rule on a small routed table: how many exits, how wide a
// range, which networks, and what happens when two providers share a range.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIp } from '../../../src/net/ip.js';
import { parseAsnClasses } from '../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../src/lookups/vpn/detection-index.js';
import type { StoredFeed } from '../../../src/lookups/vpn/feed-types.js';
import {
  expandVpnRanges,
  rangeToCidrs,
  type RoutedRange,
} from '../../../src/lookups/vpn/vpn-ranges.js';

const v4 = (text: string) => {
  const ip = parseIp(text);
  if (ip?.version !== 4) throw new Error(text);
  return ip.value;
};

/** Routed rows: [first, last, asn, org] */
const ROWS: [string, string, number, string | null][] = [
  ['185.65.134.0', '185.65.135.255', 9009, 'M247 Europe SRL'], // a /23 of a VPN-class AS
  ['31.171.152.0', '31.171.155.255', 50000, 'Example Hosting Ltd'], // /22, hosting by name
  ['81.0.0.0', '81.0.3.255', 3320, 'Deutsche Telekom AG'], // an ISP: never expanded
  ['104.16.0.0', '104.23.255.255', 9009, 'M247 Europe SRL'], // a /13: too wide
];
const rangeOf = (value: number): RoutedRange | null => {
  for (const [first, last, asn, org] of ROWS) {
    if (v4(first) <= value && value <= v4(last))
      return { start: v4(first), end: v4(last), asn: { asn, org } };
  }
  return null;
};
const classes = parseAsnClasses(
  [
    'asn,name,class,source',
    '9009,M247 Europe SRL,vpn,x4bnet-vpn',
    '3320,Deutsche Telekom AG,isp,manual',
  ].join('\n'),
);

function feed(id: string, provider: string, hosts: string[]): StoredFeed {
  return {
    format: 'ipintel-feed/1',
    feed: id,
    kind: 'vpn',
    url: 'http://127.0.0.1/',
    fetchedAt: '2026-08-22T00:00:00.000Z',
    publishedAt: null,
    prefixes: hosts.map((h) => `${h}/32`),
    provider,
  };
}

void describe('vpn-range expansion', () => {
  void it('three exits of one provider in a small hosting range → the whole range', () => {
    const got = expandVpnRanges(
      [feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11', '185.65.135.7'])],
      rangeOf,
      classes,
    );
    assert.deepEqual([...got], [['mullvad', ['185.65.134.0/23']]]);
  });

  void it('two exits are not enough; the same exit in two lists counts once', () => {
    const stored = [
      feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11']),
      feed('mullvad-app', 'mullvad', ['185.65.134.10']),
    ];
    assert.equal(expandVpnRanges(stored, rangeOf, classes).size, 0);
  });

  void it('an ISP range, a too-wide range and a shared range are never expanded', () => {
    const stored = [
      feed('a', 'nordvpn', ['81.0.0.1', '81.0.0.2', '81.0.0.3']),
      feed('b', 'nordvpn', ['104.16.0.1', '104.16.0.2', '104.16.0.3']),
      feed('c', 'pia', ['31.171.152.1', '31.171.152.2', '31.171.152.3']),
      feed('d', 'surfshark', ['31.171.155.9']),
    ];
    assert.equal(expandVpnRanges(stored, rangeOf, classes).size, 0);
  });

  void it('an organisation-name hosting rule qualifies an unclassified AS; minExits 0 turns it off', () => {
    const stored = [feed('c', 'pia', ['31.171.152.1', '31.171.152.2', '31.171.153.3'])];
    assert.deepEqual(expandVpnRanges(stored, rangeOf, classes).get('pia'), ['31.171.152.0/22']);
    const off = expandVpnRanges(stored, rangeOf, classes, { minExits: 0, maxAddresses: 1024 });
    assert.equal(off.size, 0);
  });

  void it('through the index: a listed exit stays high, the rest of its range is medium', () => {
    const index = new FeedIndex(
      [feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11', '185.65.135.7'])],
      classes,
      [],
      { routedRange: rangeOf },
    );
    const listed = detect(parseIp('185.65.134.10')!, () => null, index);
    assert.deepEqual([listed.provider, listed.confidence], ['Mullvad', 'high']);
    assert.deepEqual(listed.reasons, ['vpn-provider:mullvad', 'vpn-range:mullvad']);
    const neighbour = detect(parseIp('185.65.135.200')!, () => null, index);
    assert.deepEqual(
      [neighbour.isVpn, neighbour.provider, neighbour.confidence, neighbour.reasons],
      [true, 'Mullvad', 'medium', ['vpn-range:mullvad']],
    );
    assert.equal(detect(parseIp('185.65.136.1')!, () => null, index).isVpn, false);
  });

  void it('rangeToCidrs covers a range exactly with the fewest blocks', () => {
    assert.deepEqual(rangeToCidrs(v4('10.0.0.0'), v4('10.0.3.255')), ['10.0.0.0/22']);
    assert.deepEqual(rangeToCidrs(v4('10.0.0.1'), v4('10.0.0.6')), [
      '10.0.0.1/32',
      '10.0.0.2/31',
      '10.0.0.4/31',
      '10.0.0.6/32',
    ]);
    assert.deepEqual(rangeToCidrs(v4('255.255.255.255'), v4('255.255.255.255')), [
      '255.255.255.255/32',
    ]);
  });
});
