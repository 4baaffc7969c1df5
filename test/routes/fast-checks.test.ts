// The hottest routes check their input and write their record by hand; the
// schemas document them. Each hand-written piece must agree with its schema
// (or JSON.stringify) on every input, the hostile ones included.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkIpParams, ipParams } from '../../src/api/params.js';
import { AppError } from '../../src/errors.js';
import { validate } from '../../src/http/validate.js';
import { calculateCidr } from '../../src/lookups/cidr.js';
import { checkCidrQuery, cidrJson, cidrQuery } from '../../src/routes/cidr-routes.js';
import { seededRandom } from '../helpers/seeded-random.js';

function outcome(run: () => unknown): string {
  try {
    return JSON.stringify(run());
  } catch (error) {
    if (error instanceof AppError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

const IP_INPUTS = [
  '8.8.8.8',
  '010.1.1.1',
  '1.2.3',
  '',
  '::1',
  '::ffff:1.2.3.4',
  'fe80::1%eth0',
  '2001:db8::1',
  '%',
  '256.1.1.1',
  'a'.repeat(200),
  '1.2.3.4 ',
  '::',
  'gggg::1',
];

describe('checkIpParams agrees with ipParams', () => {
  for (const text of IP_INPUTS) {
    it(JSON.stringify(text.slice(0, 30)), () => {
      assert.equal(
        outcome(() => checkIpParams({ params: { ip: text } })),
        outcome(() => validate(ipParams, { ip: text }, 'INVALID_IP')),
      );
    });
  }
});

describe('checkCidrQuery agrees with cidrQuery', () => {
  const cases: Record<string, string | string[]>[] = [
    {},
    { range: '10.0.0.0/8' },
    { range: ['10.0.0.0/8', '10.0.0.0/9'] },
    { range: '' },
    { other: 'x' },
  ];
  for (const query of cases) {
    it(JSON.stringify(query), () => {
      assert.equal(
        outcome(() => checkCidrQuery({ query }).query),
        outcome(() => validate(cidrQuery, query, 'INVALID_RANGE')),
      );
    });
  }
});

describe('cidrJson', () => {
  it('equals JSON.stringify of the record for every prefix length and random addresses', () => {
    const random = seededRandom();
    for (let i = 0; i < 20_000; i++) {
      const address = random.u32();
      const range = `${address >>> 24}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}/${i % 33}`;
      const record = calculateCidr(range);
      assert.equal(cidrJson(record), JSON.stringify(record), `${range} (TEST_SEED=${random.seed})`);
    }
  });
});
