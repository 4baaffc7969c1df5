// The vpn-range rule on a small routed table: how many exits, how wide a
// range, which networks (classed, unclassed, access), and what happens when
// two providers share a range.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routedTable, vpnHostFeed } from '../../../helpers/vpn-feeds.js';
import { parseIp } from '../../../../src/net/ip.js';
import { parseAsnClasses } from '../../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../../src/lookups/vpn/index/detection-index.js';
import {
  expandVpnRanges,
  rangeToCidrs,
  routedBlockOf,
  type RoutedRange,
} from '../../../../src/lookups/vpn/index/vpn-ranges.js';

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
  ['45.38.189.0', '45.38.189.255', 64500, 'Blue Lake AB'], // a /24 of an unclassed AS
  ['45.38.190.0', '45.38.191.255', 64500, 'Blue Lake AB'], // a /23 of the same: too wide for it
  ['100.64.8.0', '100.64.8.255', 64501, 'Example Mobile Ltd'], // a /24 of a carrier, by name
  // 14 /24s of one AS merged into one row: a /21, a /22 and a /23 routed apart
  ['31.172.160.0', '31.172.173.255', 50000, 'Example Hosting Ltd'],
];
/** a gap of the table: no AS routes it */
const GAP = ['147.90.0.0', '147.90.255.255'] as const;
const rangeOf = routedTable(ROWS, [GAP]);
const classes = parseAsnClasses(
  [
    'asn,name,class,source',
    '9009,M247 Europe SRL,vpn,x4bnet-vpn',
    '3320,Deutsche Telekom AG,isp,manual',
  ].join('\n'),
);

const feed = vpnHostFeed;

void describe('vpn-range expansion', () => {
  void it('three exits of one provider in a small hosting range → the whole range', () => {
    const got = expandVpnRanges(
      [feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11', '185.65.135.7'])],
      rangeOf,
      classes,
    );
    assert.deepEqual([...got.byProvider], [['mullvad', ['185.65.134.0/23']]]);
    assert.deepEqual(got.shared, []);
  });

  void it('two exits are not enough; the same exit in two lists counts once', () => {
    const stored = [
      feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11']),
      feed('mullvad-app', 'mullvad', ['185.65.134.10']),
    ];
    const got = expandVpnRanges(stored, rangeOf, classes);
    assert.deepEqual([got.byProvider.size, got.shared], [0, []]);
  });

  void it('an ISP range and a too-wide range are never expanded', () => {
    const stored = [
      feed('a', 'nordvpn', ['81.0.0.1', '81.0.0.2', '81.0.0.3']),
      feed('b', 'nordvpn', ['104.16.0.1', '104.16.0.2', '104.16.0.3']),
    ];
    const got = expandVpnRanges(stored, rangeOf, classes);
    assert.deepEqual([got.byProvider.size, got.shared], [0, []]);
  });

  void it('a range several providers share is VPN space naming none; it needs three exits in all', () => {
    const shared = [
      feed('c', 'pia', ['31.171.152.1', '31.171.152.2']),
      feed('d', 'surfshark', ['31.171.155.9']),
    ];
    const got = expandVpnRanges(shared, rangeOf, classes);
    assert.deepEqual([got.byProvider.size, got.shared], [0, ['31.171.152.0/22']]);
    const two = expandVpnRanges([shared[0]!], rangeOf, classes);
    assert.deepEqual([two.byProvider.size, two.shared], [0, []]);
  });

  void it('an unclassed AS: a /24 is expanded, anything wider is not; a mobile carrier never', () => {
    const stored = [
      feed('e', 'protonvpn', ['45.38.189.1', '45.38.189.3', '45.38.189.4']),
      feed('f', 'protonvpn', ['45.38.190.1', '45.38.190.3', '45.38.191.4']),
      feed('g', 'protonvpn', ['100.64.8.1', '100.64.8.2', '100.64.8.3']),
    ];
    const got = expandVpnRanges(stored, rangeOf, classes);
    assert.deepEqual([...got.byProvider], [['protonvpn', ['45.38.189.0/24']]]);
    const narrower = { minExits: 3, maxAddresses: 1024, maxUnclassifiedAddresses: 128 };
    assert.equal(expandVpnRanges(stored, rangeOf, classes, narrower).byProvider.size, 0);
  });

  void it('in a gap of the ASN table the block is the /24 around the exits', () => {
    const stored = [
      feed('h', 'pia', ['147.90.174.1', '147.90.174.9', '147.90.174.200']),
      feed('i', 'pia', ['147.90.175.1', '147.90.175.2', '147.90.176.3']), // 2 + 1: two /24s
    ];
    const got = expandVpnRanges(stored, rangeOf, classes);
    assert.deepEqual([...got.byProvider], [['pia', ['147.90.174.0/24']]]);
    const off = { minExits: 3, maxAddresses: 1024, maxUnclassifiedAddresses: 0 };
    assert.equal(expandVpnRanges(stored, rangeOf, classes, off).byProvider.size, 0);
  });

  void it('an organisation-name hosting rule qualifies an unclassified AS; minExits 0 turns it off', () => {
    const stored = [feed('c', 'pia', ['31.171.152.1', '31.171.152.2', '31.171.153.3'])];
    assert.deepEqual(expandVpnRanges(stored, rangeOf, classes).byProvider.get('pia'), [
      '31.171.152.0/22',
    ]);
    const off = expandVpnRanges(stored, rangeOf, classes, { minExits: 0, maxAddresses: 1024 });
    assert.deepEqual([off.byProvider.size, off.shared], [0, []]);
  });

  void it('a merged row is cut into its aligned blocks: each block is judged alone', () => {
    const row: RoutedRange = {
      start: v4('31.172.160.0'),
      end: v4('31.172.173.255'),
      asn: { asn: 1, org: null },
    };
    const block = (ip: string) => {
      const b = routedBlockOf(row, v4(ip));
      return b === null ? null : rangeToCidrs(b.start, b.end);
    };
    assert.deepEqual(block('31.172.165.1'), ['31.172.160.0/21']);
    assert.deepEqual(block('31.172.170.1'), ['31.172.168.0/22']);
    assert.deepEqual(block('31.172.173.9'), ['31.172.172.0/23']);
    assert.equal(block('31.172.174.0'), null);
    const stored = [
      feed('p', 'pia', ['31.172.168.1', '31.172.169.2', '31.172.171.3']), // the /22
      feed('q', 'pia', ['31.172.160.1', '31.172.161.2', '31.172.163.3']), // the /21: too wide
    ];
    const upToA22 = { minExits: 3, maxAddresses: 1024 };
    assert.deepEqual(expandVpnRanges(stored, rangeOf, classes, upToA22).byProvider.get('pia'), [
      '31.172.168.0/22',
    ]);
    // the default rule (up to a /21) takes both blocks
    assert.deepEqual(expandVpnRanges(stored, rangeOf, classes).byProvider.get('pia')?.sort(), [
      '31.172.160.0/21',
      '31.172.168.0/22',
    ]);
  });

  void it('through the index: a shared range is VPN with no provider; its listed exits keep theirs', () => {
    const index = new FeedIndex(
      [
        feed('pia', 'pia', ['31.171.152.1', '31.171.152.2']),
        feed('surfshark', 'surfshark', ['31.171.155.9']),
      ],
      classes,
      [],
      { routedRange: rangeOf },
    );
    const listed = detect(parseIp('31.171.152.1')!, () => null, index);
    assert.deepEqual(
      [listed.provider, listed.confidence, listed.reasons],
      ['Private Internet Access', 'high', ['vpn-provider:pia', 'vpn-range:shared']],
    );
    const neighbour = detect(parseIp('31.171.154.77')!, () => null, index);
    assert.deepEqual(
      [neighbour.isVpn, neighbour.provider, neighbour.confidence, neighbour.reasons],
      [true, null, 'medium', ['vpn-range:shared']],
    );
  });

  void it('through the index: a listed exit stays high, the rest of its range is medium and names nobody', () => {
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
      [true, null, 'medium', ['vpn-range:mullvad']],
    );
    assert.equal(detect(parseIp('185.65.136.1')!, () => null, index).isVpn, false);
  });

  void it("a range in the provider's own network (its ASN-table organisation) names it", () => {
    const own = (value: number): RoutedRange | null => {
      const row = rangeOf(value);
      return row?.asn?.asn === 9009 ? { ...row, asn: { asn: 39351, org: 'Mullvad VPN AB' } } : row;
    };
    const stored = [feed('mullvad', 'mullvad', ['185.65.134.10', '185.65.134.11', '185.65.135.7'])];
    const got = expandVpnRanges(stored, own, classes);
    assert.deepEqual(
      [[...got.ownNetwork], got.byProvider.size],
      [[['mullvad', ['185.65.134.0/23']]], 0],
    );
    const index = new FeedIndex(stored, classes, [], { routedRange: own });
    const neighbour = detect(parseIp('185.65.135.200')!, () => null, index);
    assert.deepEqual(
      [neighbour.isVpn, neighbour.provider, neighbour.reasons],
      [true, 'Mullvad', ['vpn-range:mullvad']],
    );
    // another provider's exits in the same own network: shared, nobody named
    const mixed = [...stored, feed('pia', 'pia', ['185.65.135.9'])];
    const shared = expandVpnRanges(mixed, own, classes);
    assert.deepEqual([shared.ownNetwork.size, shared.shared], [0, ['185.65.134.0/23']]);
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
