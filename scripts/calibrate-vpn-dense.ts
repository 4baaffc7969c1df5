// `npm run calibrate-vpn-dense`: chooses the VPN-dense block rule's two
// numbers (providers, share of /24s) from the feeds in DATA_DIR alone, by the
// criterion of docs/detection.md ("VPN-dense hosting blocks"). It never reads
// ../shared/fixtures/vpn-exits*: those measure the chosen rule afterwards.
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { loadEmbedded } from '../src/lookups/geoip/compile/compile-sources.js';
import { createGeoIpLookup } from '../src/lookups/geoip/geoip.js';
import { loadAsnClasses } from '../src/lookups/vpn/asn-classes.js';
import { detect } from '../src/lookups/vpn/detect.js';
import { FeedIndex, readStoredFeeds } from '../src/lookups/vpn/index/detection-index.js';
import { feedsDir } from '../src/lookups/vpn/feeds/feed-store.js';
import type { StoredFeed } from '../src/lookups/vpn/feeds/feed-types.js';
import type { VpnDenseRule } from '../src/lookups/vpn/index/vpn-dense.js';
import type { Ip } from '../src/net/ip.js';
import {
  chooseDenseRule,
  denseAdmissible,
  denseCandidates,
  denseClaimedIn,
  type DenseResult,
} from './detection/dense-calibration.js';
import { negativeGroups } from './detection/range-calibration.js';
import { pooled, recallOf, scoreHeldOut } from './detection/range-choice.js';
import { leaveOneOutSplits } from './detection/generalisation.js';

const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;

const config = loadConfig(process.env);
const asn = createGeoIpLookup({
  tables: await loadEmbedded(pino({ level: 'warn' }, pino.destination(2))),
});
const { stored, problems } = await readStoredFeeds(feedsDir(config.dataDir));
for (const problem of problems) out(`skipped: ${problem}`);
const classes = await loadAsnClasses();
const sizes = asn.routedSizesV4();
const detectorFor = (feeds: readonly StoredFeed[], rule: VpnDenseRule) => {
  const index = new FeedIndex(feeds, classes, [], {
    routedRange: (value) => asn.routedV4(value),
    networkOfV6: (ip) => asn.networkAt(asn.networkIndex(ip)),
    vpnRangeRule: config.vpnRangeRule,
    vpnDenseRule: rule,
    routedSizes: () => sizes,
  });
  return (ip: Ip) => detect(ip, (a) => asn.network(a), index);
};

const groups = negativeGroups(stored);
const lopo = leaveOneOutSplits(stored);
out(`Feeds: ${stored.length} from ${feedsDir(config.dataDir)}`);
out(`Not VPN exits: ${groups.map((g) => `${g.name} ${g.addresses.length}`).join(', ')}`);
out(`Leave-one-provider-out: ${lopo.length} providers`);
const results: DenseResult[] = denseCandidates().map((rule) => {
  const result = {
    rule,
    claimed: denseClaimedIn(groups, detectorFor(stored, rule)),
    lopo: pooled(lopo.map((s) => scoreHeldOut(s.heldOut, detectorFor(s.feeds, rule)))),
  };
  process.stderr.write('.');
  return result;
});
process.stderr.write('\n');
out();
out('providers  share  LOPO isVpn  admissible  claimed (worst group)');
for (const r of results) {
  const worst = r.claimed.reduce((a, b) =>
    b.claimed / b.addresses > a.claimed / a.addresses ? b : a,
  );
  out(
    `${String(r.rule.minProviders).padStart(9)}  ${r.rule.minExitShare.toFixed(2)}  ${pct(recallOf(r.lopo)).padStart(10)}  ${(denseAdmissible(r) ? 'yes' : 'no').padStart(10)}  ${worst.group} ${worst.claimed}/${worst.addresses}`,
  );
}
const chosen = chooseDenseRule(results);
out();
out(
  chosen === null
    ? 'No candidate is admissible: the rule stays off.'
    : `Chosen: ≥ ${chosen.rule.minProviders} providers, ≥ ${chosen.rule.minExitShare} of the /24s`,
);
