// The hot path writes coordinates from their integer form (× 10^4); every
// value the data can hold must read exactly as JSON writes the number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_COORDINATE } from '../../../src/data/compiled-set.js';
import { coordinateText, writeCoordinate } from '../../../src/lookups/geoip/geoip.js';

describe('coordinateText', () => {
  it('equals JSON.stringify(scaled / 10^4) for every value from -180 to 180 in steps of 0.0001', () => {
    for (let scaled = -1_800_000; scaled <= 1_800_000; scaled++) {
      const want = JSON.stringify(scaled / 1e4);
      if (coordinateText(scaled) !== want) {
        assert.fail(`${scaled}: ${coordinateText(scaled)} ≠ ${want}`);
      }
    }
  });

  it('an unknown coordinate is null', () => {
    assert.equal(coordinateText(NO_COORDINATE), 'null');
  });

  it('writeCoordinate (the bulk path) writes the same bytes for every value, unknown included', () => {
    const out = Buffer.alloc(16);
    for (let scaled = -1_800_000; scaled <= 1_800_000; scaled++) {
      const text = out.toString('latin1', 0, writeCoordinate(out, 0, scaled));
      if (text !== coordinateText(scaled))
        assert.fail(`${scaled}: ${text} ≠ ${coordinateText(scaled)}`);
    }
    assert.equal(out.toString('latin1', 0, writeCoordinate(out, 0, NO_COORDINATE)), 'null');
  });
});
