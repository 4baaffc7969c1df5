// The calibration of the vpn-range rule (npm run calibrate-vpn-range): the
// held-out splits, the older-snapshot check, the groups of servers that are
// not VPN exits, scoring through a real index, and the choice by the
// criterion of docs/detection.md.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedFeed, vpnHostFeed } from '../../helpers/vpn-feeds.js';
import { parseIp } from '../../../src/net/ip.js';
import { parseAsnClasses } from '../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../src/lookups/vpn/index/detection-index.js';
import type { StoredFeed } from '../../../src/lookups/vpn/feeds/feed-types.js';
import {
  candidateRules,
  holdOutSplit,
  negativeGroups,
  olderSnapshot,
} from '../../../scripts/detection/range-calibration.js';
import {
  chooseRule,
  claimedIn,
  scoreHeldOut,
  type HeldOutScore,
  type RuleResult,
} from '../../../scripts/detection/range-choice.js';
import type { RoutedRange } from '../../../src/lookups/vpn/index/vpn-ranges.js';

const hosts = (prefix: string, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `${prefix}.${from + i}`);

/** gluetun's shape: a provider per entry. */
function aggregate(entries: [string, string][]): StoredFeed {
  return {
    ...storedFeed(
      'gluetun',
      'vpn',
      entries.map(([ip]) => `${ip}/32`),
    ),
    providers: entries.map(([, provider]) => provider),
  };
}

void describe('vpn-range calibration: inputs', () => {
  void it('28 candidates: 2–5 exits × /24 … /18', () => {
    const rules = candidateRules();
    assert.equal(rules.length, 28);
    assert.deepEqual(new Set(rules.map((r) => r.minExits)), new Set([2, 3, 4, 5]));
    assert.deepEqual(
      [...new Set(rules.map((r) => r.maxAddresses))],
      [256, 512, 1024, 2048, 4096, 8192, 16384],
    );
  });

  void it('a split holds out about a tenth of each own list, reproducibly, and nothing else', () => {
    const own = vpnHostFeed('mullvad-app', 'mullvad', [
      ...hosts('10.1.0', 1, 250),
      ...hosts('10.1.1', 1, 250),
      ...hosts('10.1.2', 1, 250),
      ...hosts('10.1.3', 1, 250),
    ]);
    const x4b = storedFeed('x4b-vpn', 'vpn', ['10.9.0.0/24']);
    const split = holdOutSplit([own, x4b], 0.1, 7);
    const kept = split.feeds[0]!.prefixes;
    assert.ok(split.heldOut.length > 60 && split.heldOut.length < 140, `${split.heldOut.length}`);
    assert.equal(kept.length + split.heldOut.length, own.prefixes.length);
    for (const { ip, provider } of split.heldOut) {
      assert.equal(provider, 'mullvad');
      assert.ok(!kept.includes(`${ip.text}/32`));
    }
    assert.equal(split.feeds[1], x4b);
    const again = holdOutSplit([own, x4b], 0.1, 7).heldOut.map((h) => h.ip.text);
    assert.deepEqual(
      again,
      split.heldOut.map((h) => h.ip.text),
    );
    const other = holdOutSplit([own, x4b], 0.1, 8).heldOut.map((h) => h.ip.text);
    assert.notDeepEqual(other, again);
  });

  void it('the older snapshot: own lists out, their exits that gluetun lacks to be caught', () => {
    const own = vpnHostFeed('pia', 'pia', ['10.2.0.1', '10.2.0.2', '10.2.0.3']);
    const twin = vpnHostFeed('pia-too', 'pia', ['10.2.0.3', '2001:db8::1']);
    const old = aggregate([
      ['10.2.0.1', 'pia'],
      ['10.3.0.1', 'nordvpn'],
    ]);
    const { feeds, heldOut } = olderSnapshot([own, twin, old]);
    assert.deepEqual(feeds, [old]);
    assert.deepEqual(
      heldOut.map((h) => [h.ip.text, h.provider]),
      [
        ['10.2.0.2', 'pia'],
        ['10.2.0.3', 'pia'],
        ['2001:db8::1', 'pia'],
      ],
    );
  });

  void it('servers that are not VPN exits: Tor, proxies, cloud samples; a named exit is left out', () => {
    const groups = negativeGroups(
      [
        vpnHostFeed('mullvad-app', 'mullvad', ['10.5.0.1']),
        storedFeed('tor-exits', 'tor', ['10.5.0.1/32', '10.5.0.2/32', '10.5.0.2/32']),
        storedFeed('proxies-firehol', 'proxy', ['10.6.0.1/32', '10.6.0.0/28']),
        storedFeed('aws', 'hosting', ['10.7.0.0/16']),
        storedFeed('datacenter-x4b-v4', 'hosting', ['10.8.0.0/16']),
      ],
      50,
    );
    assert.deepEqual(
      groups.map((g) => [g.name, g.addresses.length]),
      [
        ['Tor exit relays', 1],
        ['open proxies', 1],
        ['cloud aws', groups[2]!.addresses.length],
      ],
    );
    assert.ok(groups[2]!.addresses.length > 40);
    assert.ok(groups[2]!.addresses.every((ip) => ip.text.startsWith('10.7.')));
  });
});

/** One /22 and one /21 of an AS classed as VPN (public space: special-purpose space is never looked up). */
const ROWS: [number, number][] = [
  [(45 << 24) | (20 << 16), (45 << 24) | (20 << 16) | 1023],
  [(45 << 24) | (30 << 16), (45 << 24) | (30 << 16) | 2047],
];
/** the /22 is Surfshark's own network (its organisation in the ASN table), the /21 a hoster's */
const rangeOf = (value: number): RoutedRange | null => {
  const row = ROWS.find(([s, e]) => s <= value && value <= e);
  const org = row === ROWS[0] ? 'Surfshark Ltd' : 'M247 Europe SRL';
  return row === undefined ? null : { start: row[0], end: row[1], asn: { asn: 9009, org } };
};
const classes = parseAsnClasses('asn,name,class,source\n9009,M247 Europe SRL,vpn,x4bnet-vpn');

void describe('vpn-range calibration: scoring through the index', () => {
  const feeds = [
    vpnHostFeed('surfshark', 'surfshark', ['45.20.0.1', '45.20.1.1', '45.20.2.1']),
    storedFeed('tor-exits', 'tor', ['45.20.3.9/32', '45.40.0.1/32']),
  ];
  const detector = (rule: { minExits: number; maxAddresses: number }) => {
    const index = new FeedIndex(feeds, classes, [], { routedRange: rangeOf, vpnRangeRule: rule });
    return (ip: Parameters<typeof detect>[0]) => detect(ip, () => null, index);
  };
  const exit = (text: string, provider: string) => ({ ip: parseIp(text)!, provider });

  void it('held-out exits caught, and the provider the rule named', () => {
    const heldOut = [
      exit('45.20.2.200', 'surfshark'),
      exit('45.20.3.1', 'nordvpn'),
      exit('45.99.0.1', 'pia'),
    ];
    assert.deepEqual(scoreHeldOut(heldOut, detector({ minExits: 3, maxAddresses: 1024 })), {
      exits: 3,
      caught: 2,
      namedByRule: 2,
      namedByRuleRight: 1,
      namedOther: 1,
    });
    assert.equal(scoreHeldOut(heldOut, detector({ minExits: 4, maxAddresses: 1024 })).caught, 0);
  });

  void it('a Tor relay inside an expanded block is claimed; one outside is not', () => {
    const tor = {
      name: 'Tor exit relays',
      addresses: [parseIp('45.20.3.9')!, parseIp('45.40.0.1')!],
    };
    assert.deepEqual(claimedIn([tor], detector({ minExits: 3, maxAddresses: 1024 })), [
      { group: 'Tor exit relays', addresses: 2, claimed: 1 },
    ]);
    assert.deepEqual(claimedIn([tor], detector({ minExits: 3, maxAddresses: 512 })), [
      { group: 'Tor exit relays', addresses: 2, claimed: 0 },
    ]);
  });
});

const splitsOf = (recalls: number[], named = 0, right = 0): HeldOutScore[] =>
  recalls.map((r) => ({
    exits: 1000,
    caught: Math.round(r * 1000),
    namedByRule: named,
    namedByRuleRight: right,
  }));

function result(
  minExits: number,
  prefix: number,
  recalls: number[],
  extra: Partial<RuleResult> = {},
): RuleResult {
  return {
    rule: { minExits, maxAddresses: 2 ** (32 - prefix) },
    splits: splitsOf(recalls),
    claimed: [{ group: 'Tor exit relays', addresses: 1000, claimed: 10 }],
    expandedV4: 2 ** (32 - prefix) * (6 - minExits),
    older: splitsOf([0.4])[0]!,
    ...extra,
  };
}

void describe('vpn-range calibration: the choice', () => {
  void it('the least space within one standard error of the best admissible score', () => {
    const narrow = result(3, 22, [0.7, 0.71, 0.72]); // mean 0.71, well below
    const middle = result(3, 21, [0.748, 0.75, 0.752]); // within one error of the best
    const best = result(2, 21, [0.745, 0.752, 0.759]); // best (error 0.004), wider
    assert.equal(chooseRule([narrow, middle, best]), middle);
  });

  void it('a rule over a bound is not admissible: 1 % claimed, 98 % named right', () => {
    const overClaim = result(2, 20, [0.9, 0.9, 0.9], {
      claimed: [{ group: 'cloud aws', addresses: 1000, claimed: 11 }],
    });
    const misnames = result(2, 19, [0.95, 0.95, 0.95], { splits: splitsOf([0.95, 0.95], 100, 97) });
    const fine = result(3, 22, [0.7, 0.7, 0.7]);
    assert.equal(chooseRule([overClaim, misnames, fine]), fine);
    assert.equal(chooseRule([overClaim, misnames]), null);
    const atBound = result(2, 20, [0.9, 0.9, 0.9], { splits: splitsOf([0.9, 0.9], 100, 98) });
    assert.equal(chooseRule([atBound, fine]), atBound);
  });

  void it('with LOPO and the time split: the mean of three recalls, and the 2 % bound on another provider', () => {
    const score = (exits: number, caught: number, namedOther = 0) => ({
      exits,
      caught,
      namedByRule: 0,
      namedByRuleRight: 0,
      namedOther,
    });
    // held-out alone would choose the /22; LOPO and time split lift the /21 over it
    const narrow = result(3, 22, [0.72, 0.72, 0.72], {
      lopo: score(100, 40),
      time: score(100, 50),
    });
    const wide = result(3, 21, [0.7, 0.7, 0.7], { lopo: score(100, 60), time: score(100, 70) });
    assert.equal(chooseRule([narrow, wide]), wide);
    // another provider named on 3 % of the LOPO exits: not admissible
    const misnames = result(3, 21, [0.7, 0.7, 0.7], {
      lopo: score(100, 60, 3),
      time: score(100, 70),
    });
    assert.equal(chooseRule([narrow, misnames]), narrow);
  });
});
