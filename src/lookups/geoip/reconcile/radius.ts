// accuracyRadiusKm: the radius around the answered point within which the
// address lies for about two answers in three (MaxMind's meaning of
// accuracy_radius). Each answer's bucket (reconcile.ts: the answered
// country's continent, agreement distance, GeoLite2's stated radius, country
// agreement, whether it names a city) has the split-conformal ⅔ quantile of
// the development truth's errors in it (conformalQuantile: coverage of at
// least ⅔ for addresses nobody calibrated on, however few rows a bucket
// holds), calibrated by `npm run eval-location` (docs/data.md) and shipped in
// resources/location-rule.json. A bucket with too few rows takes its parent's
// radius: `NA|d10|s50|unanimous|city` → `NA|d10|s50|unanimous` → `NA|d10|s50`
// → `NA|d10` → `NA` → `all`.

/** The share of answers a radius should hold. */
export const RADIUS_QUANTILE = 2 / 3;
/**
 * Fewer calibration rows than this: the bucket takes its parent's radius.
 * Below it a bucket's coverage on the one calibration set it got is noisier
 * than the 62–72 % band it is held to (docs/data.md, round 12).
 */
export const MIN_BUCKET_ROWS = 30;

/**
 * A geofeed's answer with a point: its own bucket, calibrated like the
 * others when the development truth has enough such rows (it has 6: it
 * takes the overall radius).
 */
export const GEOFEED_BUCKET = 'geofeed|city';

export type RadiusTable = Readonly<Record<string, number>>;

/** A bucket and its parents, most specific first, ending with `all`. */
export function bucketChain(bucket: string): string[] {
  const parts = bucket.split('|');
  const chain: string[] = [];
  for (let n = parts.length; n > 0; n--) chain.push(parts.slice(0, n).join('|'));
  chain.push('all');
  return chain;
}

/** The radius for a bucket; null for an answer without a point (no bucket) or an empty table. */
export function radiusOf(bucket: string | null, table: RadiusTable): number | null {
  if (bucket === null) return null;
  for (const key of bucketChain(bucket)) {
    const km = table[key];
    if (km !== undefined) return km;
  }
  return null;
}

/** The q-quantile (nearest rank, rounded up) of finite values; Infinity counts as a value. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * The split-conformal q-quantile of n calibration values: the value of rank
 * ⌈(n + 1) · q⌉ (at most n). For a new value exchangeable with them, the
 * chance it lies at or below this is at least q whatever n is; the plain
 * rank ⌈n · q⌉ falls short by up to 1 / (n + 1), which a 10–60-row bucket
 * feels.
 */
export function conformalQuantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.ceil((sorted.length + 1) * q));
  return sorted[Math.max(0, rank - 1)] ?? Number.NaN;
}

/**
 * Radii from calibration rows (bucket, error km): the conformal ⅔ quantile of each
 * bucket (and each parent) that holds at least MIN_BUCKET_ROWS, rounded up
 * to a whole km, at least 1.
 */
export function calibrateRadii(
  rows: readonly { bucket: string; errorKm: number }[],
): Record<string, number> {
  const byKey = new Map<string, number[]>();
  for (const row of rows) {
    for (const key of bucketChain(row.bucket)) {
      let list = byKey.get(key);
      if (list === undefined) byKey.set(key, (list = []));
      list.push(row.errorKm);
    }
  }
  const table: Record<string, number> = {};
  for (const [key, errors] of [...byKey].sort(([a], [b]) => a.localeCompare(b))) {
    if (errors.length < MIN_BUCKET_ROWS) continue;
    const km = conformalQuantile(errors, RADIUS_QUANTILE);
    if (Number.isFinite(km)) table[key] = Math.max(1, Math.ceil(km));
  }
  return table;
}
