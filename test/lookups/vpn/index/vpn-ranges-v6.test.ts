// The vpn-range rule for IPv6 exits: the /48 as the block, judged by the AS
// holding it (an access network never), through the expansion and the index.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { vpnHostFeed } from '../../../helpers/vpn-feeds.js';
import { parseIp, type Ipv6 } from '../../../../src/net/ip.js';
import { parseAsnClasses } from '../../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../../src/lookups/vpn/index/detection-index.js';
import type { StoredFeed } from '../../../../src/lookups/vpn/feeds/feed-types.js';
import {
  expandVpnRanges,
  type VpnRangeRule,
} from '../../../../src/lookups/vpn/index/vpn-ranges.js';

/** AS by the first two groups of an address: [groups, asn, org] */
const NETWORKS: [string, number, string][] = [
  ['2a03:1b20', 39351, '31173 Services AB'], // classed vpn below
  ['2a0d:5600', 9009, 'M247 Europe SRL'], // classed vpn below
  ['2001:db9', 64500, 'Blue Lake AB'], // unclassed
  ['2003:e0', 3320, 'Deutsche Telekom AG'], // classed isp: never expanded
  ['2a02:8100', 64501, 'Example Mobile Ltd'], // a carrier, by name
];
const networkOfV6 = (ip: Ipv6) => {
  const head = ip.groups
    .slice(0, 2)
    .map((g) => g.toString(16))
    .join(':');
  const row = NETWORKS.find(([prefix]) => prefix === head);
  return row === undefined ? null : { asn: row[1], org: row[2] };
};
const classes = parseAsnClasses(
  [
    'asn,name,class,source',
    '39351,31173 Services AB,vpn,manual',
    '9009,M247 Europe SRL,vpn,x4bnet-vpn',
    '3320,Deutsche Telekom AG,isp,manual',
  ].join('\n'),
);
const noV4 = () => null;
const RULE = { minExits: 3, maxAddresses: 1024 };
/** The expansion with the IPv6 AS lookup and no IPv4 table. */
const expandV6 = (stored: StoredFeed[], rule: VpnRangeRule = RULE) =>
  expandVpnRanges(stored, noV4, classes, rule, networkOfV6);

const feed = vpnHostFeed;

const MULLVAD = ['2a03:1b20:1:f410::a01f', '2a03:1b20:1:f410::a10f', '2a03:1b20:1:e011::a03f'];

void describe('vpn-range expansion of IPv6 exits', () => {
  void it('three exits of one provider in one /48 of a VPN-class AS → that /48', () => {
    const got = expandV6([feed('mullvad', 'mullvad', MULLVAD)]);
    assert.deepEqual([...got.byProvider], [['mullvad', ['2a03:1b20:1::/48']]]);
    assert.deepEqual(got.shared, []);
  });

  void it('two exits, or three spread over two /48s, are not enough; without an AS lookup nothing', () => {
    const stored = [
      feed('a', 'mullvad', MULLVAD.slice(0, 2)),
      feed('b', 'airvpn', ['2a0d:5600:1::1', '2a0d:5600:1::2', '2a0d:5600:2::3']),
    ];
    const got = expandV6(stored);
    assert.deepEqual([got.byProvider.size, got.shared], [0, []]);
    const blind = expandVpnRanges([feed('m', 'mullvad', MULLVAD)], noV4, classes, RULE);
    assert.equal(blind.byProvider.size, 0);
  });

  void it('an unclassed AS is expanded; an ISP or a mobile carrier never', () => {
    const stored = [
      feed('c', 'protonvpn', ['2001:db9:7::1', '2001:db9:7::2', '2001:db9:7:1::3']),
      feed('d', 'protonvpn', ['2003:e0:1::1', '2003:e0:1::2', '2003:e0:1::3']),
      feed('e', 'protonvpn', ['2a02:8100:1::1', '2a02:8100:1::2', '2a02:8100:1::3']),
    ];
    const got = expandV6(stored);
    assert.deepEqual([...got.byProvider], [['protonvpn', ['2001:db9:7::/48']]]);
  });

  void it('a /48 holding exits of two providers is shared; minExits 0 turns it off', () => {
    const stored = [
      feed('f', 'nordvpn', ['2a0d:5600:9::1', '2a0d:5600:9::2']),
      feed('g', 'surfshark', ['2a0d:5600:9::3']),
    ];
    const got = expandV6(stored);
    assert.deepEqual([got.byProvider.size, got.shared], [0, ['2a0d:5600:9::/48']]);
    const off = expandV6(stored, { minExits: 0, maxAddresses: 1024 });
    assert.deepEqual(off.shared, []);
  });

  void it('through the index: a neighbour in the /48 is VPN, medium, nobody named; outside it nothing', () => {
    const index = new FeedIndex([feed('mullvad', 'mullvad', MULLVAD)], classes, [], {
      routedRange: noV4,
      networkOfV6,
    });
    const neighbour = detect(parseIp('2a03:1b20:1:ffff::1')!, () => null, index);
    assert.deepEqual(
      [neighbour.isVpn, neighbour.provider, neighbour.confidence, neighbour.reasons],
      [true, null, 'medium', ['vpn-range:mullvad']],
    );
    const outside = detect(parseIp('2a03:1b20:2::1')!, () => null, index);
    assert.deepEqual([outside.isVpn, outside.reasons], [false, []]);
  });
});
