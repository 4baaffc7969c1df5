// VPN-dense hosting blocks on a small routed table: several providers' exits
// across a share of a wide hosting block mark it (naming nobody); too few
// providers, too thin a share, an access or unclassed network, a cloud's own
// published range, or a block the vpn-range rule already covers do not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routedTable, storedFeed, vpnHostFeed as feed } from '../../../helpers/vpn-feeds.js';
import { parseIp } from '../../../../src/net/ip.js';
import { parseAsnClasses } from '../../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../../src/lookups/vpn/index/detection-index.js';
import { denseBlocks, type VpnDenseRule } from '../../../../src/lookups/vpn/index/vpn-dense.js';

/** Routed rows: [first, last, asn, org] — each a /20 (16 /24s) unless said */
const ROWS: [string, string, number, string | null][] = [
  ['185.65.128.0', '185.65.143.255', 9009, 'M247 Europe SRL'], // curated vpn
  ['31.171.144.0', '31.171.159.255', 50000, 'Example Hosting Ltd'], // hosting by name
  ['81.0.0.0', '81.0.15.255', 3320, 'Deutsche Telekom AG'], // an ISP
  ['45.38.176.0', '45.38.191.255', 64500, 'Blue Lake AB'], // nobody classed it
  ['5.0.0.0', '5.15.255.255', 9009, 'M247 Europe SRL'], // a /12: wider than a /16
  ['37.120.0.0', '37.120.15.255', 50000, 'Example Hosting Ltd'], // a cloud publishes part of it
  ['91.0.0.0', '91.0.7.255', 9009, 'M247 Europe SRL'], // a /21: the vpn-range rule's
];
const rangeOf = routedTable(ROWS);
const classes = parseAsnClasses(
  [
    'asn,name,class,source',
    '9009,M247 Europe SRL,vpn,x4bnet-vpn',
    '3320,Deutsche Telekom AG,isp,manual',
  ].join('\n'),
);
const RULE: VpnDenseRule = { minProviders: 3, minExitShare: 0.25, maxAddresses: 65536 };

/** Three providers' exits over four /24s of a block starting at `base` (a.b.c.0, c a multiple of 16). */
function threeProviders(base: string): ReturnType<typeof feed>[] {
  const [a, b, c] = base.split('.').map(Number) as [number, number, number];
  const at = (k: number, d: number) => `${a}.${b}.${c + k}.${d}`;
  return [
    feed('mullvad', 'mullvad', [at(0, 10), at(1, 10)]),
    feed('nordvpn', 'nordvpn', [at(2, 20)]),
    feed('protonvpn', 'protonvpn', [at(3, 30)]),
  ];
}

void describe('VPN-dense hosting blocks', () => {
  void it('three providers over a quarter of a hosting /20 mark it, naming nobody', () => {
    const got = denseBlocks(threeProviders('185.65.128.0'), rangeOf, classes, RULE);
    assert.deepEqual(
      got.map((b) => [b.asn, b.exitBlocks, b.providers]),
      [[9009, 4, ['mullvad', 'nordvpn', 'protonvpn']]],
    );
    const byName = denseBlocks(threeProviders('31.171.144.0'), rangeOf, classes, RULE);
    assert.equal(byName.length, 1, 'a hosting network by its name counts too');
  });

  void it('two providers, or a share under the bound, do not', () => {
    const two = threeProviders('185.65.128.0').slice(0, 2);
    assert.deepEqual(denseBlocks(two, rangeOf, classes, RULE), []);
    const thin = [
      feed('mullvad', 'mullvad', ['185.65.128.1']),
      feed('nordvpn', 'nordvpn', ['185.65.128.2']),
      feed('protonvpn', 'protonvpn', ['185.65.129.3']),
    ];
    assert.deepEqual(denseBlocks(thin, rangeOf, classes, RULE), [], '2 of 16 /24s');
    assert.equal(denseBlocks(thin, rangeOf, classes, { ...RULE, minExitShare: 0.1 }).length, 1);
  });

  void it('never an access network, an unclassed AS, a block wider than the limit or one the vpn-range rule takes', () => {
    for (const base of ['81.0.0.0', '45.38.176.0', '5.0.0.0', '91.0.0.0']) {
      assert.deepEqual(denseBlocks(threeProviders(base), rangeOf, classes, RULE), [], base);
    }
  });

  void it('a block a cloud publishes any part of as its own stays out; a datacenter list does not keep it out', () => {
    const exits = threeProviders('37.120.0.0');
    const cloud = storedFeed('vultr', 'hosting', ['37.120.9.0/24']);
    assert.deepEqual(denseBlocks([...exits, cloud], rangeOf, classes, RULE), []);
    const list = storedFeed('datacenter-x4b-v4', 'hosting', ['37.120.0.0/20']);
    assert.equal(denseBlocks([...exits, list], rangeOf, classes, RULE).length, 1);
  });

  void it('an unlisted address of the block answers isVpn, vpn-dense:<asn>, no provider', () => {
    const index = new FeedIndex(threeProviders('185.65.128.0'), classes, [], {
      routedRange: rangeOf,
      vpnDenseRule: RULE,
    });
    const asn = () => ({ asn: 9009, org: 'M247 Europe SRL' });
    const d = detect(parseIp('185.65.140.77')!, asn, index);
    assert.equal(d.isVpn, true);
    assert.equal(d.provider, null);
    assert.ok(d.reasons.includes('vpn-dense:9009'), d.reasons.join(' '));
    const without = new FeedIndex(threeProviders('185.65.128.0'), classes, [], {
      routedRange: rangeOf,
    });
    const plain = detect(parseIp('185.65.140.77')!, asn, without);
    assert.ok(!plain.reasons.some((r) => r.startsWith('vpn-dense:')), 'off without the rule');
  });
});
