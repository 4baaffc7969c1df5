// The GeoIP record writes coordinates from their integer form (× 10^4); every
// value the data can hold must read exactly as JSON writes the number.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NO_COORDINATE } from '../../../src/lookups/geoip/compiled-set.js';
import { writeCoordinate } from '../../../src/lookups/geoip/geoip.js';

const written = (scaled: number, out = Buffer.alloc(16)) =>
  out.toString('latin1', 0, writeCoordinate(out, 0, scaled));

describe('writeCoordinate', () => {
  it('equals JSON.stringify(scaled / 10^4) for every value from -180 to 180 in steps of 0.0001', () => {
    const out = Buffer.alloc(16);
    for (let scaled = -1_800_000; scaled <= 1_800_000; scaled++) {
      const want = JSON.stringify(scaled / 1e4);
      const got = written(scaled, out);
      if (got !== want) assert.fail(`${scaled}: ${got} ≠ ${want}`);
    }
  });

  it('an unknown coordinate is null', () => {
    assert.equal(written(NO_COORDINATE), 'null');
  });
});
