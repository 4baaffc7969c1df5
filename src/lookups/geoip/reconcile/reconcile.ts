// One location from several sources (issue 42): the country by the sources'
// agreement, the point, city, region and time zone taken whole from one city
// source that agrees with it, and the bucket that names how sure the answer
// is (its radius comes from radius.ts). Pure: the compiler runs it once per
// distinct combination of source records, off the request path; the
// evaluation (scripts/eval-location.ts) runs the same function to choose the
// rule. The family of rules and the criterion are in docs/data.md.
import { continentOf } from '../continents.js';
import { UNKNOWN_LOCATION, type GeoLocation } from '../record-map.js';

/** What one source says about one address. */
export interface SourceAnswer {
  /** the source's id, e.g. `dbip`, `geolite2`, `registry`, `ip2location` */
  source: string;
  /** a city source answers a point; a country source only a country */
  kind: 'city' | 'country';
  location: GeoLocation;
  /**
   * the radius the source states for its own answer (MaxMind's
   * `location.accuracy_radius`), km; absent where it states none
   */
  statedKm?: number | null;
}

/**
 * `stated`: the second city source's point where it states a radius of at
 * most the rule's `statedKm`, else the first's.
 */
export type PointChoice = 'first' | 'second' | 'named' | 'stated';

/** One member of the family of rules (docs/data.md, "how the rule is chosen"). */
export interface ReconcileRule {
  /** the first city source's country, or the majority of the sources answering one */
  country: 'first' | 'majority';
  /** two city sources' points within this many km are "near" */
  nearKm: number;
  near: PointChoice;
  far: PointChoice;
  /** no city source answers the chosen country: keep the first one's point, or answer the country only */
  disagreeing: 'keep' | 'country-only';
  /** the bound of the `stated` choice, km (only read when a choice is `stated`) */
  statedKm?: number | undefined;
}

/** Today's answer: DB-IP's, whole. */
export const FIRST_SOURCE_RULE: ReconcileRule = {
  country: 'first',
  nearKm: 0,
  near: 'first',
  far: 'first',
  disagreeing: 'keep',
};

export interface Reconciled {
  location: GeoLocation;
  /** the sources that decided the answer (X-Location-Source), in source order */
  decidedBy: string[];
  /** how sure: see radius.ts; null for an answer without a point */
  bucket: string | null;
}

const EARTH_RADIUS_KM = 6371.0088;

/** Great-circle distance in km. */
export function distanceKm(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a =
    Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(a)));
}

export const hasPoint = (l: GeoLocation): boolean => l.latitude !== null && l.longitude !== null;

/** The agreement distance's class, the first part of a bucket. */
export function agreementClass(km: number | null): string {
  if (km === null) return 'single';
  if (km <= 10) return 'd10';
  if (km <= 50) return 'd50';
  if (km <= 200) return 'd200';
  return 'far';
}

/** A stated radius's class, with the agreement classes' bounds; null when none is stated. */
export function statedClass(km: number | null | undefined): string | null {
  if (km === null || km === undefined) return null;
  if (km <= 10) return 's10';
  if (km <= 50) return 's50';
  if (km <= 200) return 's200';
  return 's+';
}

function majorityCountry(answers: readonly SourceAnswer[]): string | null {
  const votes = new Map<string, number>();
  for (const a of answers) {
    const c = a.location.country;
    if (c !== null) votes.set(c, (votes.get(c) ?? 0) + 1);
  }
  let best: string | null = null;
  let bestVotes = 0;
  // answers come city sources first, so a tie goes to the earlier source's country
  for (const a of answers) {
    const c = a.location.country;
    if (c === null) continue;
    const n = votes.get(c)!;
    if (n > bestVotes) [best, bestVotes] = [c, n];
  }
  return best;
}

function pick(
  choice: PointChoice,
  first: SourceAnswer,
  second: SourceAnswer,
  statedKm: number,
): SourceAnswer {
  if (choice === 'first') return first;
  if (choice === 'second') return second;
  if (choice === 'stated') {
    const stated = second.statedKm;
    return stated !== null && stated !== undefined && stated <= statedKm ? second : first;
  }
  // a source without a city answers a country or region centroid
  if (first.location.city === null && second.location.city !== null) return second;
  return first;
}

/**
 * The answer for one address from its sources' answers, given in priority
 * order (city sources before country sources; the embedded DB-IP first).
 */
export function reconcile(answers: readonly SourceAnswer[], rule: ReconcileRule): Reconciled {
  const ordered = [...answers].sort(
    (a, b) => Number(a.kind === 'country') - Number(b.kind === 'country'),
  );
  const cities = ordered.filter((a) => a.kind === 'city');
  const firstCity = cities[0];
  const country =
    rule.country === 'first' ? (firstCity?.location.country ?? null) : majorityCountry(ordered);
  if (country === null) {
    return {
      location: { ...(firstCity?.location ?? UNKNOWN_LOCATION) },
      decidedBy: [],
      bucket: null,
    };
  }
  const voters = ordered.filter((a) => a.location.country === country).map((a) => a.source);
  const unanimous = ordered.every(
    (a) => a.location.country === null || a.location.country === country,
  );
  const agreeing = cities.filter((a) => a.location.country === country && hasPoint(a.location));
  let chosen: SourceAnswer | null = null;
  let agreementKm: number | null = null;
  let stated: string | null = null;
  if (agreeing.length >= 2) {
    const [a, b] = [agreeing[0]!, agreeing[1]!];
    agreementKm = distanceKm(
      a.location.latitude!,
      a.location.longitude!,
      b.location.latitude!,
      b.location.longitude!,
    );
    stated = statedClass(b.statedKm);
    const choice = agreementKm <= rule.nearKm ? rule.near : rule.far;
    chosen = pick(choice, a, b, rule.statedKm ?? 0);
  } else if (agreeing.length === 1) {
    chosen = agreeing[0]!;
  } else if (rule.disagreeing === 'keep' && firstCity !== undefined) {
    // the point stays, the country is the sources'; the place names go with the other country
    chosen = firstCity;
  }
  if (chosen === null) {
    return {
      location: { ...UNKNOWN_LOCATION, country },
      decidedBy: voters,
      bucket: null,
    };
  }
  const location: GeoLocation =
    chosen.location.country === country
      ? { ...chosen.location }
      : { ...chosen.location, country, city: null, region: null };
  const decidedBy = [...new Set([chosen.source, ...voters])];
  if (!hasPoint(location)) return { location, decidedBy, bucket: null };
  // first, so every bucket an answer can fall back to holds one continent's
  // rows (radius.ts): a bucket pooling continents holds for the largest one
  // only (docs/data.md, round 12). The answered country's, known at compile time.
  const continent = continentOf(country);
  const parts = [
    ...(continent === null ? [] : [continent]),
    agreementClass(agreementKm),
    // what the second city source says of its own answer (docs/data.md, round 12)
    ...(stated === null ? [] : [stated]),
    unanimous ? 'unanimous' : chosen.location.country === country ? 'split' : 'overruled',
    location.city === null ? 'nocity' : 'city',
  ];
  return { location, decidedBy, bucket: parts.join('|') };
}
