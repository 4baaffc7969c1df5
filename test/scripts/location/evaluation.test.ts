// The evaluation's machinery (scripts/location/evaluation.ts) on a made-up
// truth where the better rule is known: folds stratified by continent, the
// rule chosen on training folds, the macro average keeping the small
// continent's say, the country share guard, and radii judged held out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FOLDS,
  apply,
  assignFolds,
  choose,
  continentOfRow,
  crossValidate,
  macroMedian,
  ruleFamily,
  summarise,
  type TruthRow,
} from '../../../scripts/location/evaluation.js';
import type { SourceAnswer } from '../../../src/lookups/geoip/reconcile/reconcile.js';

const at = (
  source: string,
  country: string,
  latitude: number,
  longitude: number,
  city: string | null = 'X',
): SourceAnswer => ({
  source,
  kind: 'city',
  location: { country, city, region: null, timezone: null, latitude, longitude },
});

/**
 * 150 European rows where DB-IP is right and GeoLite2 ~110 km off, and 50
 * North American rows where GeoLite2 is right and DB-IP ~330 km off: a rule
 * taking DB-IP's point when the two are near and GeoLite2's when they are far
 * wins both; a plain average of errors would let Europe's rows decide.
 */
function truth(): TruthRow[] {
  const rows: TruthRow[] = [];
  for (let i = 0; i < 150; i++) {
    const lat = 45 + (i % 10) * 0.5;
    rows.push({
      ip: `10.0.${i}.1`,
      latitude: lat,
      longitude: 5,
      country: 'FR',
      continent: continentOfRow('FR', lat, 5),
      kind: 'probe',
      fold: 0,
      // DB-IP exact; GeoLite2 ~ 110 km north
      answers: [at('dbip', 'FR', lat, 5), at('geolite2', 'FR', lat + 1, 5)],
    });
  }
  for (let i = 0; i < 50; i++) {
    const lat = 35 + (i % 10) * 0.5;
    rows.push({
      ip: `10.1.${i}.1`,
      latitude: lat,
      longitude: -100,
      country: 'US',
      continent: continentOfRow('US', lat, -100),
      kind: 'anchor',
      fold: 0,
      // DB-IP ~ 330 km south; GeoLite2 exact
      answers: [at('dbip', 'US', lat - 3, -100), at('geolite2', 'US', lat, -100)],
    });
  }
  assignFolds(rows);
  return rows;
}

const both = () => true;

describe('choosing the rule by cross-validation', () => {
  it('deals each continent round-robin over the folds', () => {
    const rows = truth();
    for (const continent of ['EU', 'NA']) {
      const counts = Array.from(
        { length: FOLDS },
        (_, f) => rows.filter((r) => r.continent === continent && r.fold === f).length,
      );
      assert.ok(
        Math.max(...counts) - Math.min(...counts) <= 1,
        `${continent}: ${counts.join(', ')}`,
      );
    }
  });

  it('the macro average lets the smaller continent decide against the larger one', () => {
    const rows = truth();
    const family = ruleFamily();
    const chosen = choose(rows, family, both);
    // DB-IP near (within 200 km it is Europe's answer), GeoLite2 far (North America's)
    const scored = apply(rows, chosen, both);
    const firstOnly = apply(rows, family[0]!, both);
    assert.ok(macroMedian(scored) < macroMedian(firstOnly));
    assert.equal(chosen.far, 'second');
    assert.equal(chosen.near, 'first');
    assert.ok(chosen.nearKm >= 200, `${chosen.nearKm}`);
  });

  it('held out, the chosen rules keep the gain; every answer has a radius that holds', () => {
    const rows = truth();
    const { heldOut, chosenPerFold } = crossValidate(rows, ruleFamily(), both);
    assert.equal(chosenPerFold.length, FOLDS);
    assert.equal(heldOut.length, rows.length);
    const s = summarise(heldOut);
    assert.equal(s.countryShare, 1);
    assert.ok(s.medianKm < 1, `${s.medianKm}`);
    assert.equal(s.withRadius, rows.length);
    assert.ok((s.radiusHolds ?? 0) >= 2 / 3, `${s.radiusHolds}`);
  });
});
