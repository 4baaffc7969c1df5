// The reconciliation of several sources' answers (issue 42) on a small set
// with known answers, and the radius buckets' calibration and fallback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIRST_SOURCE_RULE,
  agreementClass,
  distanceKm,
  statedClass,
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
  assert.equal(out.bucket, 'EU|single|split|city');
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
  assert.equal(kept.bucket, 'EU|single|overruled|nocity');
});

test('a tie goes to the city sources; unanimous answers say so', () => {
  const tie = reconcile([paris, registryDe], majority());
  assert.equal(tie.location.country, 'FR');
  assert.equal(tie.bucket, 'EU|single|split|city');
  const all = reconcile([paris, registryFr], majority());
  assert.deepEqual(all.decidedBy, ['dbip', 'registry']);
  assert.equal(all.bucket, 'EU|single|unanimous|city');
});

test('two city sources: near and far choices, centroids lose to a named city', () => {
  const near = reconcile([paris, parisNear, registryFr], majority({ near: 'second' }));
  assert.equal(near.location.latitude, 48.86);
  assert.equal(near.bucket, 'EU|d10|unanimous|city');
  const far = reconcile([paris, lyon, registryFr], majority({ far: 'second' }));
  assert.equal(far.location.city, 'Lyon');
  assert.equal(far.bucket, 'EU|far|unanimous|city');
  const centroid = reconcile([franceCentroid, paris], majority({ far: 'named' }));
  assert.equal(centroid.location.city, 'Paris');
  assert.deepEqual(centroid.decidedBy, ['dbip', 'geolite2']);
});

test('GeoLite2 states its own radius: `stated` takes its point within the bound, and the bucket says it', () => {
  const stated = (answer: SourceAnswer, statedKm: number): SourceAnswer => ({
    ...answer,
    statedKm,
  });
  const rule = majority({ near: 'first', far: 'stated', statedKm: 50 });
  const sure = reconcile([paris, stated(lyon, 20), registryFr], rule);
  assert.equal(sure.location.city, 'Lyon', 'Lyon states 20 km: within the 50 km bound');
  assert.equal(sure.bucket, 'EU|far|s50|unanimous|city');
  const unsure = reconcile([paris, stated(lyon, 200), registryFr], rule);
  assert.equal(unsure.location.city, 'Paris', 'Lyon states 200 km: the first source stands');
  assert.equal(unsure.bucket, 'EU|far|s200|unanimous|city');
  const silent = reconcile([paris, lyon, registryFr], rule);
  assert.equal(silent.location.city, 'Paris', 'a source stating nothing never takes `stated`');
  assert.equal(silent.bucket, 'EU|far|unanimous|city', 'and its bucket has no stated part');
  // near points follow `near`, whatever the stated radius
  const near = reconcile(
    [paris, stated(parisNear, 5), registryFr],
    majority({ far: 'stated', statedKm: 50 }),
  );
  assert.equal(near.location.latitude, 48.8566);
  assert.equal(near.bucket, 'EU|d10|s10|unanimous|city');
  assert.deepEqual([null, 1, 10, 11, 50, 51, 200, 201, 1000].map(statedClass), [
    null,
    's10',
    's10',
    's50',
    's50',
    's200',
    's200',
    's+',
    's+',
  ]);
});

test('radii: the split-conformal ⅔ quantile per bucket, rounded up; a bucket under 30 rows takes its parent', () => {
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
    ...Array.from({ length: 32 }, (_, i) => ({ bucket: 'd10|unanimous|city', errorKm: i + 0.5 })),
    ...Array.from({ length: 29 }, () => ({ bucket: 'd10|split|city', errorKm: 500 })),
  ];
  const radii = calibrateRadii(rows);
  assert.equal(radii['d10|unanimous|city'], 22); // 22nd of 32 errors (21.5: rank ⌈33 · ⅔⌉), rounded up
  assert.equal(radii['d10|split|city'], undefined, '29 rows are too few');
  assert.equal(radiusOf('d10|split|city', radii), radii['d10']);
  assert.equal(radiusOf(null, radii), null);
  assert.equal(radiusOf('far|split|city', radii), radii['all']);
});

test("the bucket starts with the answered country's continent; a thin continent's buckets never pool with others", () => {
  const chicago = place('dbip', 'US', 'Chicago', 41.88, -87.63);
  const nairobi = place('dbip', 'KE', 'Nairobi', -1.29, 36.82);
  // the answered country decides the continent, not a source that disagrees with it
  const us = reconcile([chicago, registryFr], FIRST_SOURCE_RULE);
  assert.equal(us.location.country, 'US');
  assert.equal(us.bucket, 'NA|single|split|city');
  const ke = reconcile([nairobi, place('registry', 'KE', null, null, null)], FIRST_SOURCE_RULE);
  assert.equal(ke.bucket, 'AF|single|unanimous|city');
  const unknownCountry = reconcile([place('dbip', 'ZZ', 'Nowhere', 1, 1)], FIRST_SOURCE_RULE);
  assert.equal(unknownCountry.bucket, 'single|unanimous|city', 'no continent: the pooled bucket');
  assert.deepEqual(bucketChain(ke.bucket), [
    'AF|single|unanimous|city',
    'AF|single|unanimous',
    'AF|single',
    'AF',
    'all',
  ]);

  const rows = [
    ...Array.from({ length: 30 }, (_, i) => ({ bucket: 'NA|single|split|city', errorKm: 300 + i })),
    ...Array.from({ length: 30 }, (_, i) => ({ bucket: 'EU|single|split|city', errorKm: 10 + i })),
    ...Array.from({ length: 30 }, (_, i) => ({
      bucket: 'EU|single|unanimous|city',
      errorKm: 20 + i,
    })),
    // twenty African rows: too few for any bucket of their own, Africa's included
    ...Array.from({ length: 20 }, () => ({ bucket: 'AF|single|unanimous|city', errorKm: 900 })),
  ];
  const radii = calibrateRadii(rows);
  assert.equal(radiusOf(us.bucket, radii), 320, "North America's own quantile (21st of 30)");
  assert.equal(radiusOf('EU|single|split|city', radii), 30, "Europe's own");
  assert.equal(radii['single|split|city'], undefined, 'no bucket pools continents');
  assert.equal(radii['AF'], undefined, 'twenty rows are too few');
  assert.equal(
    radiusOf(ke.bucket, radii),
    radii['all'],
    'a thin continent takes the overall radius',
  );
  assert.equal(radiusOf(unknownCountry.bucket, radii), radii['all']);
});
