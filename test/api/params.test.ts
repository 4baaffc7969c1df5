// ipParams answers through a plain twin on the hot path (withPlainParser):
// for every input, validate() must answer exactly what zod's own parse of
// the same schema answers — the value, or the same error code and message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ipParam, ipParams } from '../../src/api/params.js';
import { cidrQuery } from '../../src/routes/cidr-routes.js';
import { AppError } from '../../src/kit/errors.js';
import { validate } from '../../src/http/validate.js';

/** the same schema without a twin: zod alone */
const zodOnly = z.object({ ip: ipParam });

function outcome(schema: z.ZodType, input: unknown): unknown {
  try {
    return { value: validate(schema, input, 'NOT_FOUND') };
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return { code: error.code, message: error.message };
  }
}

const INPUTS: unknown[] = [
  { ip: '8.8.8.8' },
  { ip: '2606:4700:4700::1111' },
  { ip: '2001:DB8:0:0:0:0:0:1' },
  { ip: '::ffff:192.0.2.1' },
  { ip: '10.0.0.1' },
  { ip: '010.1.1.1' },
  { ip: '1.2.3' },
  { ip: 'fe80::1%eth0' },
  { ip: '' },
  { ip: 'x'.repeat(300) },
  { ip: '8.8.8.8', extra: 'dropped' },
  { ip: 42 },
  {},
];

describe('ipParams', () => {
  for (const input of INPUTS) {
    it(`${JSON.stringify(input).slice(0, 60)}: the twin answers as zod does`, () => {
      assert.deepEqual(outcome(ipParams, input), outcome(zodOnly, input));
    });
  }
});

describe('the /cidr query', () => {
  const zodOnly = z.object(cidrQuery.shape);
  const inputs: unknown[] = [
    { range: '10.0.0.0/8' },
    { range: '2001:db8::/32' },
    { range: 'nonsense' },
    { range: '' },
    { range: ['10.0.0.0/8', '10.0.0.0/9'] },
    {},
    { range: '10.0.0.0/8', other: 'x' },
  ];
  for (const input of inputs) {
    it(`${JSON.stringify(input)}: the twin answers as zod does`, () => {
      assert.deepEqual(outcome(cidrQuery, input), outcome(zodOnly, input));
    });
  }
});
