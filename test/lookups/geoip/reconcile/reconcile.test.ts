// The reconciliation of several sources' answers (issue 42) on a small set
// with known answers, and the radius buckets' calibration and fallback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIRST_SOURCE_RULE,
  agreementClass,
  distanceKm,
  reconcile,
  type ReconcileRule,
  type SourceAnswer,
} from '../../../../src/lookups/geoip/reconcile/reconcile.js';
import {
  bucketChain,
  calibrateRadii,
  conformalQuantile,
  quantile,
  radiusOf,
} from '../../../../src/lookups/geoip/reconcile/radius.js';

const place = (
  source: string,
  country: string,
  city: string | null,
  latitude: number | null,
  longitude: number | null,
): SourceAnswer => ({
  source,
  kind: latitude === null ? 'country' : 'city',
  location: { country, city, region: null, timezone: null, latitude, longitude },
});

// Paris and Lyon (~392 km), Berlin; a country centroid of Germany
const paris = place('dbip', 'FR', 'Paris', 48.8566, 2.3522);
const lyon = place('geolite2', 'FR', 'Lyon', 45.764, 4.8357);
const franceCentroid = place('geolite2', 'FR', null, 46.2276, 2.2137);
const parisNear = place('geolite2', 'FR', 'Paris', 48.86, 2.35);
const registryFr = place('registry', 'FR', null, null, null);
const registryDe = place('registry', 'DE', null, null, null);
const ip2lDe = place('ip2location', 'DE', null, null, null);

const majority = (over: Partial<ReconcileRule> = {}): ReconcileRule => ({
  country: 'majority',
  nearKm: 25,
  near: 'first',
  far: 'named',
  disagreeing: 'keep',
  ...over,
});

test('distances are great-circle kilometres', () => {
  assert.ok(Math.abs(distanceKm(48.8566, 2.3522, 45.764, 4.8357) - 392) < 3);
  assert.equal(distanceKm(10, 10, 10, 10), 0);
  assert.equal(agreementClass(null), 'single');
  assert.equal(agreementClass(5), 'd10');
  assert.equal(agreementClass(300), 'far');
});

test("the first source's rule answers DB-IP's location whole", () => {
  const out = reconcile([registryDe, ip2lDe, paris], FIRST_SOURCE_RULE);
  assert.deepEqual(out.location, paris.location);
  assert.deepEqual(out.decidedBy, ['dbip']);
  assert.equal(out.bucket, 'single|split|city|EU');
});

test('the country is the majority; a city source of another country gives no point', () => {
  const out = reconcile([paris, registryDe, ip2lDe], majority({ disagreeing: 'country-only' }));
  assert.equal(out.location.country, 'DE');
  assert.equal(out.location.latitude, null);
  assert.equal(out.bucket, null);
  assert.deepEqual(out.decidedBy, ['registry', 'ip2location']);
  const kept = reconcile([paris, registryDe, ip2lDe], majority());
  assert.equal(kept.location.country, 'DE');
  assert.equal(kept.location.city, null, 'Paris is not a German city: the place names go');
  assert.equal(kept.location.latitude, 48.8566);
  assert.equal(kept.bucket, 'single|overruled|nocity|EU');
});

test('a tie goes to the city sources; unanimous answers say so', () => {
  const tie = reconcile([paris, registryDe], majority());
  assert.equal(tie.location.country, 'FR');
  assert.equal(tie.bucket, 'single|split|city|EU');
  const all = reconcile([paris, registryFr], majority());
  assert.deepEqual(all.decidedBy, ['dbip', 'registry']);
  assert.equal(all.bucket, 'single|unanimous|city|EU');
});

test('two city sources: near and far choices, centroids lose to a named city', () => {
  const near = reconcile([paris, parisNear, registryFr], majority({ near: 'second' }));
  assert.equal(near.location.latitude, 48.86);
  assert.equal(near.bucket, 'd10|unanimous|city|EU');
  const far = reconcile([paris, lyon, registryFr], majority({ far: 'second' }));
  assert.equal(far.location.city, 'Lyon');
  assert.equal(far.bucket, 'far|unanimous|city|EU');
  const centroid = reconcile([franceCentroid, paris], majority({ far: 'named' }));
  assert.equal(centroid.location.city, 'Paris');
  assert.deepEqual(centroid.decidedBy, ['dbip', 'geolite2']);
});

test('radii: the split-conformal ⅔ quantile per bucket, rounded up; a small bucket takes its parent', () => {
  assert.equal(quantile([1, 2, 3], 2 / 3), 2);
  // rank ⌈(n + 1) · q⌉: one rank up where n · q falls short, never past the last
  assert.equal(conformalQuantile([1, 2, 3], 2 / 3), 3);
  assert.equal(conformalQuantile([1, 2, 3, 4, 5], 2 / 3), 4);
  assert.equal(conformalQuantile([5, 1, 4, 2, 3, 6], 2 / 3), 5);
  assert.equal(conformalQuantile([1], 2 / 3), 1);
  assert.deepEqual(bucketChain('d10|unanimous|city'), [
    'd10|unanimous|city',
    'd10|unanimous',
    'd10',
    'all',
  ]);
  const rows = [
    ...Array.from({ length: 12 }, (_, i) => ({ bucket: 'd10|unanimous|city', errorKm: i + 0.5 })),
    ...Array.from({ length: 3 }, () => ({ bucket: 'd10|split|city', errorKm: 500 })),
  ];
  const radii = calibrateRadii(rows);
  assert.equal(radii['d10|unanimous|city'], 9); // 9th of 12 errors (8.5: rank ⌈13 · ⅔⌉), rounded up
  assert.equal(radii['d10|split|city'], undefined, 'three rows are too few');
  assert.equal(radiusOf('d10|split|city', radii), radii['d10']);
  assert.equal(radiusOf(null, radii), null);
  assert.equal(radiusOf('far|split|city', radii), radii['all']);
});

test("the bucket ends with the answered country's continent; a thin continent takes the pooled bucket", () => {
  const chicago = place('dbip', 'US', 'Chicago', 41.88, -87.63);
  const nairobi = place('dbip', 'KE', 'Nairobi', -1.29, 36.82);
  // the answered country decides the continent, not a source that disagrees with it
  const us = reconcile([chicago, registryFr], FIRST_SOURCE_RULE);
  assert.equal(us.location.country, 'US');
  assert.equal(us.bucket, 'single|split|city|NA');
  const ke = reconcile([nairobi, place('registry', 'KE', null, null, null)], FIRST_SOURCE_RULE);
  assert.equal(ke.bucket, 'single|unanimous|city|AF');
  const unknownCountry = reconcile([place('dbip', 'ZZ', 'Nowhere', 1, 1)], FIRST_SOURCE_RULE);
  assert.equal(unknownCountry.bucket, 'single|unanimous|city', 'no continent: the pooled bucket');
  assert.deepEqual(bucketChain(ke.bucket), [
    'single|unanimous|city|AF',
    'single|unanimous|city',
    'single|unanimous',
    'single',
    'all',
  ]);

  const rows = [
    ...Array.from({ length: 12 }, (_, i) => ({ bucket: 'single|split|city|NA', errorKm: 300 + i })),
    ...Array.from({ length: 12 }, (_, i) => ({ bucket: 'single|split|city|EU', errorKm: 10 + i })),
    ...Array.from({ length: 12 }, (_, i) => ({
      bucket: 'single|unanimous|city|EU',
      errorKm: 20 + i,
    })),
    // two African rows: too few for a bucket of their own
    ...Array.from({ length: 2 }, () => ({ bucket: 'single|unanimous|city|AF', errorKm: 900 })),
  ];
  const radii = calibrateRadii(rows);
  assert.equal(radiusOf(us.bucket, radii), 308, "North America's own quantile (9th of 12)");
  assert.equal(radiusOf('single|split|city|EU', radii), 18, "Europe's own");
  assert.ok(radii['single|split|city']! > 18 && radii['single|split|city']! < 308, 'pooled');
  assert.equal(radii['single|unanimous|city|AF'], undefined, 'two rows are too few');
  assert.equal(radiusOf(ke.bucket, radii), radii['single|unanimous|city']);
  assert.equal(radiusOf(unknownCountry.bucket, radii), radii['single|unanimous|city']);
});
