// /cidr writes its record by hand (the record holds only dotted quads and
// numbers); it must be JSON.stringify's text byte for byte.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calculateCidr } from '../../src/lookups/cidr.js';
import { cidrJson } from '../../src/routes/cidr-routes.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('cidrJson', () => {
  it('equals JSON.stringify of the record for every prefix length and random addresses', () => {
    const random = seededRandom();
    for (let i = 0; i < 20_000; i++) {
      const address = random.u32();
      const range = `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}/${i % 33}`;
      const record = calculateCidr(range);
      assert.ok(record.broadcast !== null);
      assert.equal(cidrJson(record), JSON.stringify(record), `${range} (TEST_SEED=${random.seed})`);
    }
  });
});
