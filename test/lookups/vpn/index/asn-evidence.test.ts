// What the feeds say of whole ASes: the learned VPN networks (the committed
// criterion: ≥ 4 routed /24s with listed exits, ≥ half the AS's space), the
// own-network naming by organisation, and the ASN lists (hosting only, never
// for an access network), through a real index and detect().
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIp } from '../../../../src/net/ip.js';
import { parseAsnClasses } from '../../../../src/lookups/vpn/asn-classes.js';
import { learnVpnNetworks, routedSizesV4 } from '../../../../src/lookups/vpn/index/asn-evidence.js';
import { detect } from '../../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../../src/lookups/vpn/index/detection-index.js';
import { isOwnNetwork } from '../../../../src/lookups/vpn/providers.js';
import type { RoutedRange } from '../../../../src/lookups/vpn/index/vpn-ranges.js';
import { storedFeed, vpnHostFeed } from '../../../helpers/vpn-feeds.js';

const v4 = (text: string): number => {
  const ip = parseIp(text);
  if (ip?.version !== 4) throw new Error(text);
  return ip.value;
};

/** [first, last, asn, org]: the rows of a small ASN table */
const ROWS: [string, string, number, string][] = [
  ['45.10.0.0', '45.10.7.255', 64600, 'Blue Lake VPN Ltd'], // 8 /24s
  ['45.20.0.0', '45.20.255.255', 64601, 'Example Hosting Ltd'], // 256 /24s
  ['45.30.0.0', '45.30.3.255', 3320, 'Deutsche Telekom AG'], // curated isp
  ['45.40.0.0', '45.40.3.255', 64602, 'Mullvad VPN AB'], // 4 /24s: Mullvad's own
  ['45.50.0.0', '45.50.3.255', 64603, 'Example Mobile Ltd'], // a carrier by name
];
const rangeOf = (value: number): RoutedRange | null => {
  for (const [first, last, asn, org] of ROWS) {
    if (v4(first) <= value && value <= v4(last))
      return { start: v4(first), end: v4(last), asn: { asn, org } };
  }
  // the gaps between rows, as the ASN table answers them
  const next = ROWS.map(([f]) => v4(f)).filter((s) => s > value);
  const end = next.length === 0 ? 0xffffffff : Math.min(...next) - 1;
  const before = ROWS.map(([, l]) => v4(l)).filter((e) => e < value);
  return { start: before.length === 0 ? 0 : Math.max(...before) + 1, end, asn: null };
};
const classes = parseAsnClasses('asn,name,class,source\n3320,Deutsche Telekom AG,isp,test');
const asnOf = (ip: ReturnType<typeof parseIp>) => {
  const row = ip?.version === 4 ? rangeOf(ip.value) : null;
  return row?.asn ?? null;
};

/** one exit in each of the first n /24s of a block */
const spread = (base: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => base.replace(/\.0\.1$/, `.${i}.1`));

void describe('learned VPN networks', () => {
  const sizes = routedSizesV4(rangeOf);

  void it('the ASN table is walked once into each AS’s routed space', () => {
    assert.deepEqual([sizes.get(64600), sizes.get(64601), sizes.get(3320)], [2048, 65536, 1024]);
  });

  void it('≥ 4 /24s holding exits and ≥ half the AS: learned; fewer or a smaller share: not', () => {
    const stored = [
      vpnHostFeed('windscribe', 'windscribe', spread('45.10.0.1', 4)), // 4 of 8: learned
      vpnHostFeed('pia', 'pia', spread('45.20.0.1', 40)), // 40 of 256: a hoster
      vpnHostFeed('nordvpn', 'nordvpn', spread('45.30.0.1', 4)), // an ISP: never
      vpnHostFeed('mullvad-app', 'mullvad', spread('45.40.0.1', 3)), // 3 /24s: too few
    ];
    const learned = learnVpnNetworks(stored, rangeOf, () => sizes, classes);
    assert.deepEqual(
      learned.map((n) => [n.asn, n.exitBlocks, n.blocks, n.own]),
      [[64600, 4, 8, null]],
    );
    const three = [vpnHostFeed('w', 'windscribe', spread('45.10.0.1', 3))];
    assert.deepEqual(
      learnVpnNetworks(three, rangeOf, () => sizes, classes),
      [],
    );
  });

  void it("the provider's own network names it; another's names nobody", () => {
    const stored = [vpnHostFeed('mullvad-app', 'mullvad', spread('45.40.0.1', 4))];
    const index = new FeedIndex(stored, classes, [], {
      routedRange: rangeOf,
      routedSizes: () => sizes,
    });
    assert.deepEqual(
      index.learned.map((n) => [n.asn, n.own]),
      [[64602, 'mullvad']],
    );
    const d = detect(parseIp('45.40.3.200')!, asnOf, index);
    assert.deepEqual(
      [d.isVpn, d.isHosting, d.provider, d.confidence],
      [true, true, 'Mullvad', 'medium'],
    );
    assert.ok(d.reasons.includes('vpn-asn:64602'));
    const other = [vpnHostFeed('windscribe', 'windscribe', spread('45.10.0.1', 5))];
    const elsewhere = new FeedIndex(other, classes, [], {
      routedRange: rangeOf,
      routedSizes: () => sizes,
    });
    const e = detect(parseIp('45.10.7.9')!, asnOf, elsewhere);
    assert.deepEqual(
      [e.isVpn, e.provider, e.reasons.includes('vpn-asn:64600')],
      [true, null, true],
    );
  });
});

void describe('ASN lists', () => {
  const lists = [
    storedFeed('asn-nullified-vpn', 'hosting', [], { asns: [64601, 3320, 64603] }),
    storedFeed('asn-brianhama', 'hosting', [], { asns: [64601] }),
  ];
  const index = new FeedIndex(lists, classes, []);

  void it('a listed AS is hosting, medium, one reason per list, never VPN', () => {
    const d = detect(parseIp('45.20.9.9')!, asnOf, index);
    assert.deepEqual(
      [d.isVpn, d.isHosting, d.confidence, d.reasons],
      [
        false,
        true,
        'medium',
        ['org-name:hosting', 'asn-list:asn-nullified-vpn', 'asn-list:asn-brianhama'],
      ],
    );
  });

  void it('an access network listed by mistake gets no flag (curated isp, or a carrier by name)', () => {
    for (const text of ['45.30.1.1', '45.50.1.1']) {
      const d = detect(parseIp(text)!, asnOf, index);
      assert.deepEqual(
        [d.isVpn, d.isHosting, d.isProxy, d.isTor],
        [false, false, false, false],
        text,
      );
      assert.ok(!d.reasons.some((r) => r.startsWith('asn-list:')), text);
    }
  });
});

void describe('own network by organisation name', () => {
  void it('the provider’s name words in a row; "vpn" dropped; no partial words', () => {
    const cases: [string | null, string, boolean][] = [
      ['Mullvad VPN AB', 'mullvad', true],
      ['Proton AG', 'protonvpn', true],
      ['Surfshark Ltd', 'surfshark', true],
      ['Private Internet Access, Inc.', 'pia', true],
      ['M247 Europe SRL', 'mullvad', false],
      ['Protonet GmbH', 'protonvpn', false],
      ['Nordnet AB', 'nordvpn', false],
      ['Air France', 'airvpn', false],
      [null, 'mullvad', false],
    ];
    for (const [org, id, want] of cases) assert.equal(isOwnNetwork(org, id), want, `${org} ${id}`);
  });
});
