// `npm run eval-detection`: scores the VPN / proxy / hosting / mobile detector
// against resources/labelled-addresses.csv, with the embedded ASN table and
// the feeds in DATA_DIR/feeds as the running service would load them. Prints
// the rows where detector and label disagree, then per flag TP / FP / FN and
// precision / recall. Always exits 0 when it could run: the numbers are a
// report, the thresholds live in test/lookups/vpn/labelled-addresses.test.ts.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { PROJECT_ROOT } from '../src/kit/project-root.js';
import { loadEmbedded } from '../src/lookups/geoip/compile/compile-sources.js';
import { createGeoIpLookup } from '../src/lookups/geoip/geoip.js';
import {
  CATEGORIES,
  FLAGS,
  countByCategory,
  evaluate,
  parseLabelledAddresses,
  routeDetector,
  type Evaluation,
  type Flags,
} from './detection/evaluation.js';
import { detectionOptions, openDetection } from '../src/lookups/vpn/open-detection.js';
import { FeedIndex, readStoredFeeds } from '../src/lookups/vpn/index/detection-index.js';
import { loadAsnClasses } from '../src/lookups/vpn/asn-classes.js';
import type { StoredFeed } from '../src/lookups/vpn/feeds/feed-types.js';
import { feedsDir } from '../src/lookups/vpn/feeds/feed-store.js';
import { reportExits, reportGeneralisation } from './eval-exits.js';

const out = (line = ''): boolean => process.stdout.write(`${line}\n`);

function percent(value: number | null): string {
  return value === null ? 'n/a' : `${(value * 100).toFixed(1)}%`;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    out(
      cells
        .map((c, i) => c.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    );
  line(headers);
  line(widths.map((w) => '-'.repeat(w)));
  rows.forEach(line);
}

function flagList(flags: Flags): string {
  const on = FLAGS.filter((f) => flags[f]).map((f) => f.slice(2));
  return on.length === 0 ? '-' : on.join('+');
}

function report(evaluation: Evaluation): void {
  const wrong = evaluation.rows.filter((r) => r.wrong.length > 0);
  out(`Disagreements: ${wrong.length} of ${evaluation.rows.length} addresses`);
  if (wrong.length > 0) {
    table(
      ['ip', 'category', 'expected', 'detected', 'asn', 'reasons', 'note'],
      wrong.map(({ label, detection }) => [
        label.ip.text,
        label.category,
        flagList(label.expected),
        flagList(detection),
        detection.asn ?? '-',
        detection.reasons.join(' ') || '-',
        label.note,
      ]),
    );
  }
  out();
  table(
    ['flag', 'TP', 'FP', 'FN', 'TN', 'precision', 'recall'],
    FLAGS.map((flag) => {
      const s = evaluation.scores[flag];
      return [
        flag,
        String(s.truePositives),
        String(s.falsePositives),
        String(s.falseNegatives),
        String(s.trueNegatives),
        percent(s.precision),
        percent(s.recall),
      ];
    }),
  );
}

const config = loadConfig(process.env);
const feedDir = feedsDir(config.dataDir);
const labelsPath = join(PROJECT_ROOT, 'resources', 'labelled-addresses.csv');

const labels = parseLabelledAddresses(await readFile(labelsPath, 'utf8'));
// warnings (tables compiled now) go to stderr so stdout stays the report
const log = pino({ level: 'warn' }, pino.destination(2));
const asn = createGeoIpLookup({ tables: await loadEmbedded(log) });
// as the service opens it: proxy age limit and vpn-range rule from the environment
const index = (await openDetection(config, { tables: asn.tables }, log)).current();

const counts = countByCategory(labels);
out(`Labels: ${labelsPath}`);
out(`  ${labels.length} addresses: ${CATEGORIES.map((c) => `${c} ${counts[c]}`).join(', ')}`);
out(`ASN data: ${asn.tables.asn.manifest.name} (compiled tables)`);
out(`ASN classes: ${index.asnClasses.size} rows`);
out(
  `vpn-range rule: ≥ ${config.vpnRangeRule.minExits} VPN exits in one routed range of ≤ ${config.vpnRangeRule.maxAddresses} addresses (0 exits: off)`,
);
if (index.feeds.length === 0) {
  out(`Feeds: none in ${feedDir} (ASN classes and org-name rules only; no Tor list, so isProxy`);
  out('  cannot fire; run `npm run update-data` to score with feeds)');
} else {
  out(`Feeds from ${feedDir}:`);
  for (const feed of index.feeds) {
    out(`  ${feed.feed} (${feed.kind}, ${feed.prefixes} prefixes, fetched ${feed.fetchedAt})`);
  }
}
for (const problem of index.problems) out(`  skipped: ${problem}`);
out();
for (const n of index.learned) {
  out(
    `learned VPN network AS${n.asn} ${n.org ?? '?'}: ${n.exitBlocks} of ${n.blocks} /24s hold exits (${n.providers.join(', ')})${n.own === null ? '' : `; own network of ${n.own}`}`,
  );
}
const detector = routeDetector((ip) => asn.network(ip), index);
report(evaluate(labels, detector));
reportExits(detector, labels, out);
// the generalisation protocols rebuild the index from subsets of the same feeds
const options = detectionOptions(config, { tables: asn.tables });
const classes = await loadAsnClasses();
const { stored } = await readStoredFeeds(feedDir);
reportGeneralisation(
  stored,
  (feeds: readonly StoredFeed[]) =>
    routeDetector((ip) => asn.network(ip), new FeedIndex(feeds, classes, [], options)),
  out,
);
