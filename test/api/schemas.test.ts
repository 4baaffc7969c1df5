// The record types of the lookups and the zod schemas that document them
// (OpenAPI) must not drift: checked at compile time, and on sample records.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { z } from 'zod';
import { cidrRecordSchema, errorBodySchema, geoIpRecordSchema } from '../../src/api/schemas.js';
import { ERROR_STATUS } from '../../src/kit/errors.js';
import { calculateCidr, type Cidr6Record, type CidrRecord } from '../../src/lookups/cidr.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';

type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// compile-time: a failing check is a type error under `tsc --noEmit`
const geoIpMatches: Equal<GeoIpRecord, z.output<typeof geoIpRecordSchema>> = true;
// the schema is one object for both families: each record type must fit it,
// and it must have no key that neither has
type Fits<A, B> = A extends B ? true : false;
type CidrSchema = z.output<typeof cidrRecordSchema>;
const cidr4Fits: Fits<CidrRecord, CidrSchema> = true;
const cidr6Fits: Fits<Cidr6Record, CidrSchema> = true;
const cidrKeys: Equal<keyof CidrSchema, keyof CidrRecord | keyof Cidr6Record> = true;
const cidrMatches = cidr4Fits && cidr6Fits && cidrKeys;

describe('schemas and records agree', () => {
  it('the types are equal (compile time)', () => {
    assert.equal(geoIpMatches && cidrMatches, true);
  });

  it('a computed CIDR record passes its schema, without extra keys', () => {
    for (const range of ['10.1.2.3/13', '2001:db8::1/3', '2001:db8::1/100']) {
      const parsed = cidrRecordSchema.strict().safeParse(calculateCidr(range));
      assert.ok(parsed.success, range);
    }
  });

  it('the GeoIP schema refuses made-up values', () => {
    const good: GeoIpRecord = {
      ip: '8.8.8.8',
      country: 'US',
      city: null,
      region: null,
      timezone: null,
      latitude: null,
      longitude: null,
      accuracyRadiusKm: null,
      isp: null,
      asn: 'AS15169',
      org: null,
      bogon: false,
    };
    assert.ok(geoIpRecordSchema.safeParse(good).success);
    assert.ok(!geoIpRecordSchema.safeParse({ ...good, country: 'USA' }).success);
    assert.ok(!geoIpRecordSchema.safeParse({ ...good, asn: '15169' }).success);
    assert.ok(!geoIpRecordSchema.safeParse({ ...good, accuracyRadiusKm: -5 }).success);
    const missing: Partial<GeoIpRecord> = { ...good };
    delete missing.city;
    assert.ok(!geoIpRecordSchema.safeParse(missing).success);
  });

  it('the error schema lists every code of the catalog', () => {
    for (const code of Object.keys(ERROR_STATUS)) {
      assert.ok(errorBodySchema.safeParse({ error: { code, message: 'm' } }).success, code);
    }
    assert.ok(!errorBodySchema.safeParse({ error: { code: 'MADE_UP', message: 'm' } }).success);
  });
});
