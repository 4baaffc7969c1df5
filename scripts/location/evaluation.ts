// Scoring location answers against the development truth, and choosing a
// rule by cross-validation as docs/data.md ("how the rule is chosen") writes
// it down: folds stratified by continent, score = macro average over the
// continents with ≥ 30 addresses of each one's median error, country share
// not below DB-IP's on the training folds, ties to the earlier rule.
import { continentOf } from '../../src/lookups/geoip/continents.js';
import {
  distanceKm,
  reconcile,
  type ReconcileRule,
  type Reconciled,
  type SourceAnswer,
} from '../../src/lookups/geoip/reconcile/reconcile.js';
import {
  calibrateRadii,
  quantile,
  radiusOf,
  type RadiusTable,
} from '../../src/lookups/geoip/reconcile/radius.js';

export const FOLDS = 5;
/** the `stated` choice's bounds: the agreement classes' (docs/data.md, round 12) */
export const STATED_KM = [10, 50, 200] as const;
export const MIN_CONTINENT = 30;

export interface TruthRow {
  ip: string;
  latitude: number;
  longitude: number;
  /** null for the rows whose source names none */
  country: string | null;
  continent: string;
  kind: string;
  fold: number;
  answers: SourceAnswer[];
}

/** Rough continent boxes, only for truth rows without a country (the southern-Africa rows). */
function continentOfPoint(latitude: number, longitude: number): string {
  if (longitude < -30) return latitude < 12 ? 'SA' : 'NA';
  if (longitude > 110 && latitude < -10) return 'OC';
  if (latitude < 36 && longitude < 52) return 'AF';
  return longitude > 40 ? 'AS' : 'EU';
}

export function continentOfRow(
  country: string | null,
  latitude: number,
  longitude: number,
): string {
  return (country === null ? null : continentOf(country)) ?? continentOfPoint(latitude, longitude);
}

/** Stable fold numbers: per continent, rows in address order dealt round-robin. */
export function assignFolds<T extends { continent: string; fold: number }>(rows: T[]): void {
  const next = new Map<string, number>();
  for (const row of rows) {
    const n = next.get(row.continent) ?? 0;
    row.fold = n % FOLDS;
    next.set(row.continent, n + 1);
  }
}

export interface Scored {
  row: TruthRow;
  answer: Reconciled;
  errorKm: number;
  countryRight: boolean | null;
  radiusKm: number | null;
}

export function score(row: TruthRow, answer: Reconciled): Scored {
  const l = answer.location;
  const errorKm =
    l.latitude === null || l.longitude === null
      ? Number.POSITIVE_INFINITY
      : distanceKm(row.latitude, row.longitude, l.latitude, l.longitude);
  return {
    row,
    answer,
    errorKm,
    countryRight: row.country === null ? null : l.country === row.country,
    radiusKm: null,
  };
}

export interface Summary {
  n: number;
  /** null when no row names a true country */
  countryShare: number | null;
  medianKm: number;
  within25: number;
  within100: number;
  /** share of answers with a radius whose error is within it; null when none has one */
  radiusHolds: number | null;
  withRadius: number;
}

export function summarise(scored: readonly Scored[]): Summary {
  const countryRows = scored.filter((s) => s.countryRight !== null);
  const errors = scored.map((s) => s.errorKm);
  const radius = scored.filter((s) => s.radiusKm !== null);
  return {
    n: scored.length,
    countryShare:
      countryRows.length === 0
        ? null
        : countryRows.filter((s) => s.countryRight).length / countryRows.length,
    medianKm: scored.length === 0 ? Number.NaN : quantile(errors, 0.5),
    within25: errors.filter((e) => e <= 25).length / Math.max(1, errors.length),
    within100: errors.filter((e) => e <= 100).length / Math.max(1, errors.length),
    radiusHolds:
      radius.length === 0
        ? null
        : radius.filter((s) => s.errorKm <= s.radiusKm!).length / radius.length,
    withRadius: radius.length,
  };
}

export function byContinent(scored: readonly Scored[]): Map<string, Scored[]> {
  const groups = new Map<string, Scored[]>();
  for (const s of scored) {
    let list = groups.get(s.row.continent);
    if (list === undefined) groups.set(s.row.continent, (list = []));
    list.push(s);
  }
  return new Map([...groups].sort(([, a], [, b]) => b.length - a.length));
}

/** The criterion's score (lower is better): mean of the large continents' median errors. */
export function macroMedian(scored: readonly Scored[]): number {
  const medians = [...byContinent(scored).values()]
    .filter((g) => g.length >= MIN_CONTINENT)
    .map((g) =>
      quantile(
        g.map((s) => s.errorKm),
        0.5,
      ),
    );
  return medians.reduce((a, b) => a + b, 0) / Math.max(1, medians.length);
}

export type SourceFilter = (answer: SourceAnswer) => boolean;

export function apply(rows: readonly TruthRow[], rule: ReconcileRule, use: SourceFilter): Scored[] {
  return rows.map((row) => score(row, reconcile(row.answers.filter(use), rule)));
}

/** The family of docs/data.md, the simplest (today's) rule first. */
export function ruleFamily(): ReconcileRule[] {
  const family: ReconcileRule[] = [
    { country: 'first', nearKm: 0, near: 'first', far: 'first', disagreeing: 'keep' },
  ];
  const choices = ['first', 'second', 'named', 'stated'] as const;
  for (const country of ['first', 'majority'] as const)
    for (const disagreeing of ['keep', 'country-only'] as const)
      for (const nearKm of [10, 25, 50, 100, 200])
        for (const near of choices)
          for (const far of choices) {
            const rule: ReconcileRule = { country, nearKm, near, far, disagreeing };
            if (near !== 'stated' && far !== 'stated') family.push(rule);
            // round 12: GeoLite2's point where it states a radius within S km
            else for (const statedKm of STATED_KM) family.push({ ...rule, statedKm });
          }
  return family;
}

export function ruleName(rule: ReconcileRule): string {
  const stated = rule.statedKm === undefined ? '' : ` stated≤${rule.statedKm} km`;
  return `country=${rule.country} near(≤${rule.nearKm} km)=${rule.near} far=${rule.far} disagreeing=${rule.disagreeing}${stated}`;
}

/** The best rule on `rows`: lowest macro median among those whose country share is not below the baseline's. */
export function choose(
  rows: readonly TruthRow[],
  family: readonly ReconcileRule[],
  use: SourceFilter,
): ReconcileRule {
  const baseline = summarise(apply(rows, family[0]!, use)).countryShare;
  let best = family[0]!;
  let bestScore = macroMedian(apply(rows, best, use));
  for (const rule of family.slice(1)) {
    const scored = apply(rows, rule, use);
    if ((summarise(scored).countryShare ?? 0) < (baseline ?? 0)) continue;
    const s = macroMedian(scored);
    if (s < bestScore) [best, bestScore] = [rule, s];
  }
  return best;
}

function withRadii(scored: Scored[], radii: RadiusTable): Scored[] {
  for (const s of scored) s.radiusKm = radiusOf(s.answer.bucket, radii);
  return scored;
}

function calibrationRows(scored: readonly Scored[]): { bucket: string; errorKm: number }[] {
  return scored.flatMap((s) =>
    s.answer.bucket === null ? [] : [{ bucket: s.answer.bucket, errorKm: s.errorKm }],
  );
}

export interface CrossValidated {
  /** every row scored by the rule and radii its fold did not see */
  heldOut: Scored[];
  chosenPerFold: ReconcileRule[];
}

/** The cross-validation of the criterion: rule and radii from four folds, judged on the fifth. */
export function crossValidate(
  rows: readonly TruthRow[],
  family: readonly ReconcileRule[],
  use: SourceFilter,
): CrossValidated {
  const heldOut: Scored[] = [];
  const chosenPerFold: ReconcileRule[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const training = rows.filter((r) => r.fold !== fold);
    const rule = choose(training, family, use);
    chosenPerFold.push(rule);
    const radii = calibrateRadii(calibrationRows(apply(training, rule, use)));
    heldOut.push(
      ...withRadii(
        apply(
          rows.filter((r) => r.fold === fold),
          rule,
          use,
        ),
        radii,
      ),
    );
  }
  return { heldOut, chosenPerFold };
}

/** The shipped choice: the rule and radii from all folds together. */
export function finalChoice(
  rows: readonly TruthRow[],
  family: readonly ReconcileRule[],
  use: SourceFilter,
): { rule: ReconcileRule; radii: Record<string, number> } {
  const rule = choose(rows, family, use);
  return { rule, radii: calibrateRadii(calibrationRows(apply(rows, rule, use))) };
}
