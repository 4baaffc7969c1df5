// Runs the calibration of the vpn-range rule (docs/detection.md, "Choosing the
// rule's two numbers on the feeds alone") over a set of stored feeds: every
// candidate rule scored on the held-out splits, checked against the servers
// that are not VPN exits, and the choice. The feeds, the ASN table and the
// classes are passed in; scripts/calibrate-vpn-range.ts prints the result and
// the published-feeds replay test checks that the default is its choice.
import type { Ip } from '../../src/net/ip.js';
import type { GeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import type { AsnClassTable } from '../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../src/lookups/vpn/index/detection-index.js';
import type { StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';
import {
  candidateRules,
  holdOutSplit,
  negativeGroups,
  olderSnapshot,
  type NegativeGroup,
  type Split,
} from './range-calibration.js';
import { chooseRule, claimedIn, pooled, scoreHeldOut, type RuleResult } from './range-choice.js';
import { leaveOneOutSplits, watcherTimeSplit } from './generalisation.js';
import { expandVpnRanges, type VpnRangeRule } from '../../src/lookups/vpn/index/vpn-ranges.js';

export const SPLITS = 10;
export const HELD_OUT = 0.1;

export interface Calibration {
  readonly splits: readonly Split[];
  readonly older: Split;
  readonly lopo: readonly Split[];
  readonly time: Split;
  readonly groups: readonly NegativeGroup[];
  readonly results: readonly RuleResult[];
  /** null: no candidate is admissible */
  readonly chosen: RuleResult | null;
}

/** A smaller run (the replay test's): fewer held-out splits, fewer candidate rules. */
export interface CalibrationScope {
  readonly splits?: number;
  readonly candidates?: readonly VpnRangeRule[];
}

export function calibrate(
  stored: readonly StoredFeed[],
  asn: GeoIpLookup,
  classes: AsnClassTable,
  onRule: () => void = () => {},
  scope: CalibrationScope = {},
): Calibration {
  const routedRange = (value: number) => asn.routedV4(value);
  const networkOfV6 = (ip: Ip) => asn.networkAt(asn.networkIndex(ip));
  const sizes = asn.routedSizesV4();
  const detectorFor = (feeds: readonly StoredFeed[], rule: VpnRangeRule) => {
    const index = new FeedIndex(feeds, classes, [], {
      routedRange,
      networkOfV6,
      vpnRangeRule: rule,
      routedSizes: () => sizes,
    });
    return (ip: Ip) => detect(ip, (a) => asn.network(a), index);
  };
  const expandedV4 = (rule: VpnRangeRule): number => {
    const { byProvider, ownNetwork, shared } = expandVpnRanges(stored, routedRange, classes, rule);
    const cidrs = [...shared, ...[...byProvider.values(), ...ownNetwork.values()].flat()];
    return cidrs.reduce((n, c) => n + 2 ** (32 - Number(c.slice(c.indexOf('/') + 1))), 0);
  };
  const splits = Array.from({ length: scope.splits ?? SPLITS }, (_, i) =>
    holdOutSplit(stored, HELD_OUT, i + 1),
  );
  const older = olderSnapshot(stored);
  const groups = negativeGroups(stored);
  const lopo = leaveOneOutSplits(stored);
  const time = watcherTimeSplit(stored);
  const results = (scope.candidates ?? candidateRules()).map((rule): RuleResult => {
    const result = {
      rule,
      splits: splits.map((s) => scoreHeldOut(s.heldOut, detectorFor(s.feeds, rule))),
      claimed: claimedIn(groups, detectorFor(stored, rule)),
      expandedV4: expandedV4(rule),
      older: scoreHeldOut(older.heldOut, detectorFor(older.feeds, rule)),
      lopo: pooled(lopo.map((s) => scoreHeldOut(s.heldOut, detectorFor(s.feeds, rule)))),
      time: scoreHeldOut(time.heldOut, detectorFor(time.feeds, rule)),
    };
    onRule();
    return result;
  });
  return { splits, older, lopo, time, groups, results, chosen: chooseRule(results) };
}
