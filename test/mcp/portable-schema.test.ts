// The tool-schema portability check (test/helpers/schema-portability.ts) finds
// each kind of problem the MCP Inspector's --strict lint warns on, and
// portableSchema (src/mcp/portable-schema.ts) removes the one zod produces
// (nullable fields as `type: [T, "null"]`) without changing what validates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { portableSchema } from '../../src/mcp/portable-schema.js';
import { portabilityFindings } from '../helpers/schema-portability.js';

describe('tool-schema portability check', () => {
  const table: { name: string; schema: unknown; want: string[] }[] = [
    {
      name: 'a type array',
      schema: { type: 'object', properties: { a: { type: ['string', 'null'] } } },
      want: ['.properties.a: type is an array ["string","null"]'],
    },
    {
      name: 'a bare true as a property schema',
      schema: { type: 'object', properties: { a: true } },
      want: ['.properties.a: bare true where a schema object is expected'],
    },
    {
      name: 'additionalProperties: false is fine',
      schema: { type: 'object', additionalProperties: false },
      want: [],
    },
    {
      name: 'a remote $ref',
      schema: { $ref: 'https://example.com/s.json' },
      want: ['(root): $ref outside the document (https://example.com/s.json)'],
    },
    {
      name: 'an untyped item schema',
      schema: { type: 'array', items: { description: 'anything' } },
      want: ['.items: no validating keyword (accepts anything)'],
    },
    {
      name: 'anyOf branches of one type each',
      schema: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'x' },
      want: [],
    },
  ];
  for (const { name, schema, want } of table) {
    it(name, () => assert.deepEqual(portabilityFindings(schema), want));
  }
});

describe('portableSchema', () => {
  const record = z.object({
    city: z.string().nullable().meta({ description: 'City' }),
    latitude: z.number().nullable(),
    tags: z.array(z.union([z.string(), z.null()])),
    asn: z
      .string()
      .regex(/^AS\d+$/)
      .nullable(),
  });
  const json = z.toJSONSchema(record, { target: 'draft-7' });

  it('zod writes nullable fields as type arrays (what the check flags)', () => {
    assert.ok(portabilityFindings(json).length >= 3);
  });

  it('turns every type array into anyOf branches, keeping the other keywords', () => {
    const portable = portableSchema(json) as { properties: Record<string, unknown> };
    assert.deepEqual(portabilityFindings(portable), []);
    assert.deepEqual(portable.properties['city'], {
      description: 'City',
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
    assert.deepEqual(portable.properties['tags'], {
      type: 'array',
      items: { anyOf: [{ type: 'string' }, { type: 'null' }] },
    });
  });
});
