// `npm run calibrate-vpn-range`: chooses the vpn-range rule's two numbers
// (VPN_RANGE_MIN_EXITS, VPN_RANGE_MAX_PREFIX) from the feeds in DATA_DIR alone,
// by the criterion of docs/detection.md ("Choosing the rule's two numbers on
// the feeds alone"). It never reads ../shared/fixtures/vpn-exits: the
// evaluation set measures the chosen rule afterwards (npm run eval-detection).
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { loadEmbedded } from '../src/lookups/geoip/compile/compile-sources.js';
import { createGeoIpLookup } from '../src/lookups/geoip/geoip.js';
import { loadAsnClasses } from '../src/lookups/vpn/asn-classes.js';
import { readStoredFeeds } from '../src/lookups/vpn/index/detection-index.js';
import { feedsDir } from '../src/lookups/vpn/feeds/feed-store.js';
import { calibrate, HELD_OUT, SPLITS } from './detection/range-calibrate.js';
import {
  admissible,
  meanAndError,
  namedRightShare,
  recallOf,
  scoreOf,
} from './detection/range-choice.js';
import type { VpnRangeRule } from '../src/lookups/vpn/index/vpn-ranges.js';

const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const prefixOf = (rule: VpnRangeRule) => `/${32 - Math.log2(rule.maxAddresses)}`;

const config = loadConfig(process.env);
const asn = createGeoIpLookup({
  tables: await loadEmbedded(pino({ level: 'warn' }, pino.destination(2))),
});
const { stored, problems } = await readStoredFeeds(feedsDir(config.dataDir));
for (const problem of problems) out(`skipped: ${problem}`);
if (!stored.some((f) => f.kind === 'vpn' && f.provider !== undefined)) {
  out(`No provider list in ${feedsDir(config.dataDir)}: nothing to calibrate on.`);
  process.exit(1);
}

const { splits, older, lopo, time, groups, results, chosen } = calibrate(
  stored,
  asn,
  await loadAsnClasses(),
  () => process.stderr.write('.'),
);
process.stderr.write('\n');
out(`Feeds: ${stored.length} from ${feedsDir(config.dataDir)}`);
out(
  `Held out: ${pct(HELD_OUT)} of each own list, ${SPLITS} splits (${splits[0]!.heldOut.length} exits in the first)`,
);
out(`Not VPN exits: ${groups.map((g) => `${g.name} ${g.addresses.length}`).join(', ')}`);
out(`Older snapshot: ${older.heldOut.length} own-list exits not in gluetun's list`);
out(
  `Leave-one-provider-out: ${lopo.length} providers, ${lopo.reduce((n, s) => n + s.heldOut.length, 0)} exits`,
);
out(`Time split in the feeds (watcher copies as the lists): ${time.heldOut.length} exits`);
out();

const cols = [
  'exits',
  'block',
  'score',
  'held-out',
  '± se',
  'lopo',
  'other',
  'time',
  'named ok',
  'worst claim',
  'expanded',
  'older',
  'ok',
];
out(cols.join('\t'));
for (const r of results) {
  const { mean, error } = meanAndError(r.splits);
  const worst = r.claimed.reduce((a, c) => Math.max(a, c.claimed / c.addresses), 0);
  out(
    [
      r.rule.minExits,
      prefixOf(r.rule),
      pct(scoreOf(r).mean),
      pct(mean),
      pct(error),
      r.lopo === undefined ? '-' : pct(recallOf(r.lopo)),
      r.lopo === undefined ? '-' : pct((r.lopo.namedOther ?? 0) / Math.max(1, r.lopo.exits)),
      r.time === undefined ? '-' : pct(recallOf(r.time)),
      pct(namedRightShare(r.splits)),
      pct(worst),
      r.expandedV4,
      pct(recallOf(r.older)),
      admissible(r) ? 'yes' : 'no',
    ].join('\t'),
  );
}
out();
if (chosen === null) {
  out('No candidate is admissible: keep the rule off (VPN_RANGE_MIN_EXITS=0).');
} else {
  out(
    `Chosen: VPN_RANGE_MIN_EXITS=${chosen.rule.minExits} VPN_RANGE_MAX_PREFIX=${prefixOf(chosen.rule).slice(1)}`,
  );
  for (const c of chosen.claimed) out(`  claims ${c.claimed}/${c.addresses} of ${c.group}`);
}
