// The second half of `npm run eval-detection`: recall over the VPN providers'
// own exits in ../shared/fixtures/vpn-exits (when that folder exists; it is an
// evaluation set, never a feed), isProxy on open-proxy lists loaded and not
// loaded, and the false-positive rates on residential and cloud addresses.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PROJECT_ROOT } from '../src/kit/project-root.js';
import type { Ip } from '../src/net/ip.js';
import type { VpnDetection } from '../src/lookups/vpn/detect.js';
import {
  anyFlag,
  parseAddressLines,
  proxyHostsOfText,
  sampleV4,
  scoreExits,
  totalOf,
  type ExitScore,
} from './detection/exit-evaluation.js';
import type { LabelledAddress } from './detection/evaluation.js';
import {
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseGoogleCloud,
} from '../src/lookups/vpn/feeds/parse-cloud-json.js';
import { parseMonosansJson } from '../src/lookups/vpn/feeds/parse-proxy-lists.js';
import { parseCidrList } from '../src/lookups/vpn/feeds/parse-text-lists.js';
import type { StoredFeed } from '../src/lookups/vpn/feeds/feed-types.js';
import { feedsAsOf, leaveProviderOut, providersWithLists } from './detection/generalisation.js';
import { providerName } from '../src/lookups/vpn/providers.js';

const SHARED = resolve(PROJECT_ROOT, '..', 'shared', 'fixtures');
/** the providers whose exits are as current as their lists (issue 23) */
const CURRENT = [
  'mullvad',
  'nordvpn',
  'pia',
  'protonvpn',
  'surfshark',
  'torguard',
  'tunnelbear',
  'windscribe',
];

type Detector = (ip: Ip) => VpnDetection;
type Out = (line?: string) => void;

const pct = (n: number, d: number) => (d === 0 ? 'n/a' : `${((100 * n) / d).toFixed(1)}%`);

function row(s: ExitScore): string {
  return [
    s.provider.padEnd(24),
    String(s.addresses).padStart(5),
    pct(s.isVpn, s.addresses).padStart(7),
    pct(s.byRange, s.addresses).padStart(7),
    pct(s.anyFlag, s.addresses).padStart(7),
    `${s.namedRight}/${s.named}`.padStart(9),
    pct(s.namedRight, s.named).padStart(7),
  ].join('  ');
}

function exits(detect: Detector, out: Out, set = 'vpn-exits'): void {
  const dir = join(SHARED, set);
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort();
  const scores = new Map<string, ExitScore>();
  for (const file of files) {
    const id = file.replace(/\.txt$/, '');
    scores.set(
      id,
      scoreExits(id, parseAddressLines(readFileSync(join(dir, file), 'utf8')), detect),
    );
  }
  out(`VPN exits (${dir}; evaluation only, never loaded as a feed)`);
  out(HEADER);
  for (const s of scores.values()) out(row(s));
  if (set === 'vpn-exits') {
    const current = CURRENT.map((id) => scores.get(id)).filter((s): s is ExitScore => !!s);
    out(row(totalOf('= 8 with current lists', current)));
  }
  out(row(totalOf(`= all ${scores.size}`, [...scores.values()])));
}

const HEADER = `${'provider'.padEnd(24)}  ${'n'.padStart(5)}  ${'isVpn'.padStart(7)}  ${'range'.padStart(7)}  ${'any'.padStart(7)}  ${'named ok'.padStart(9)}  ${'right'.padStart(7)}`;

/**
 * The feeds whose fixture copies postdate 2026-06-01 (../shared/fixtures/feeds
 * SOURCES.md): left out for the strict time split of vpn-exits-dev.
 */
const LATER_THAN_SPLIT = [
  'protonvpn',
  'windscribe',
  'tunnelbear',
  'pia',
  'mullvad',
  'airvpn',
  'x4b-vpn',
  'x4b-vpn-v6',
];

/** Builds a detector over a set of feeds, as the service would. */
export type DetectorOf = (feeds: readonly StoredFeed[]) => Detector;

/**
 * Leave-one-provider-out on the feeds: for each provider with its own list,
 * its lists and its gluetun entries dropped, its lists' exits scored.
 */
function leaveOneOut(stored: readonly StoredFeed[], detectorOf: DetectorOf, out: Out): void {
  out('Leave-one-provider-out on the feeds (its lists and its gluetun entries dropped)');
  out(`${HEADER}  ${'other'.padStart(7)}  lists`);
  const scores: ExitScore[] = [];
  let others = 0;
  for (const provider of providersWithLists(stored).keys()) {
    const left = leaveProviderOut(stored, provider);
    const detect = detectorOf(left.feeds);
    const score = scoreExits(provider, left.exits, detect);
    const other = otherNamed(provider, left.exits, detect);
    scores.push(score);
    others += other;
    out(`${row(score)}  ${pct(other, score.addresses).padStart(7)}  ${left.lists.join(' ')}`);
  }
  const pooled = totalOf('= pooled', scores);
  out(`${row(pooled)}  ${pct(others, pooled.addresses).padStart(7)}`);
}

/** Exits answered with a provider that is not theirs. */
function otherNamed(provider: string, ips: readonly Ip[], detect: Detector): number {
  const want = providerName(provider);
  return ips.filter((ip) => {
    const named = detect(ip).provider;
    return named !== null && named !== want;
  }).length;
}

/** The time split of vpn-exits-dev: every feed (above), then only the copies of ≤ 2026-06-01. */
function timeSplit(stored: readonly StoredFeed[], detectorOf: DetectorOf, out: Out): void {
  const asOf = feedsAsOf(stored, LATER_THAN_SPLIT);
  out(
    `Time split, strict: provider lists of ≤ 2026-06-01 only (left out: ${LATER_THAN_SPLIT.join(', ')})`,
  );
  exits(detectorOf(asOf), out, 'vpn-exits-dev');
}

/** The generalisation protocols; each rebuilds the index from a subset of the feeds. */
export function reportGeneralisation(
  stored: readonly StoredFeed[],
  detectorOf: DetectorOf,
  out: Out,
): void {
  if (!existsSync(join(SHARED, 'vpn-exits-dev'))) return;
  out();
  leaveOneOut(stored, detectorOf, out);
  out();
  timeSplit(stored, detectorOf, out);
}

function proxies(detect: Detector, out: Out): void {
  const dir = join(SHARED, 'feeds', 'providers');
  const lists: [string, Ip[]][] = [];
  const monosans = join(dir, 'proxies-monosans.json');
  if (existsSync(monosans)) {
    const hosts = parseMonosansJson(readFileSync(monosans, 'utf8'), 'eval').prefixes;
    lists.push(['monosans proxies.json (loaded: host and exit_ip)', hostsOf(hosts)]);
  }
  const firehol = join(dir, 'proxies-firehol.netset');
  if (existsSync(firehol)) {
    const prefixes = parseCidrList(readFileSync(firehol, 'utf8'), 'eval').prefixes;
    lists.push(['FireHOL proxies (loaded)', hostsOf(prefixes.filter((p) => p.endsWith('/32')))]);
  }
  const clarketm = join(dir, 'proxies-clarketm.txt');
  if (existsSync(clarketm)) {
    lists.push(['clarketm/spys.me (NOT loaded)', proxyHostsOfText(readFileSync(clarketm, 'utf8'))]);
  }
  out('isProxy on open-proxy lists');
  for (const [name, ips] of lists) {
    const hit = ips.filter((ip) => detect(ip).isProxy).length;
    const any = ips.filter((ip) => anyFlag(detect(ip))).length;
    out(
      `  ${name}: isProxy ${hit}/${ips.length} = ${pct(hit, ips.length)}; any flag ${pct(any, ips.length)}`,
    );
  }
}

function hostsOf(prefixes: readonly string[]): Ip[] {
  return parseAddressLines(prefixes.map((p) => p.replace(/\/(32|128)$/, '')).join('\n'));
}

function negatives(detect: Detector, labels: readonly LabelledAddress[], out: Out): void {
  out('False positives');
  for (const category of ['residential', 'mobile'] as const) {
    const rows = labels.filter((l) => l.category === category);
    const flagged = rows.filter((l) => {
      const d = detect(l.ip);
      return d.isVpn || d.isProxy || d.isHosting || d.isTor;
    });
    out(
      `  ${category} (labelled-addresses.csv): ${flagged.length}/${rows.length} flagged (VPN/proxy/hosting/Tor) = ${pct(flagged.length, rows.length)}${flagged.length > 0 ? `: ${flagged.map((l) => l.ip.text).join(' ')}` : ''}`,
    );
  }
  const feeds = join(SHARED, 'feeds');
  const clouds: [string, string, (b: string, f: string) => { prefixes: string[] }][] = [
    ['AWS', 'aws.json', parseAwsIpRanges],
    ['GCP', 'gcp.json', parseGoogleCloud],
    ['Azure', 'azure.json', parseAzureServiceTags],
  ];
  for (const [name, file, parse] of clouds) {
    if (!existsSync(join(feeds, file))) continue;
    const sample = sampleV4(parse(readFileSync(join(feeds, file), 'utf8'), name).prefixes, 300);
    const vpn = sample.filter((ip) => detect(ip).isVpn).length;
    const hosting = sample.filter((ip) => detect(ip).isHosting).length;
    out(
      `  random ${name} addresses: isVpn ${vpn}/${sample.length} = ${pct(vpn, sample.length)}; isHosting ${pct(hosting, sample.length)}`,
    );
  }
}

export function reportExits(detect: Detector, labels: readonly LabelledAddress[], out: Out): void {
  out();
  if (!existsSync(join(SHARED, 'vpn-exits'))) {
    out(`(${SHARED}/vpn-exits not present: exit recall not measured)`);
  } else {
    exits(detect, out);
    if (existsSync(join(SHARED, 'vpn-exits-dev'))) {
      out();
      out('Time split, every feed loaded');
      exits(detect, out, 'vpn-exits-dev');
    }
  }
  out();
  proxies(detect, out);
  out();
  negatives(detect, labels, out);
}
