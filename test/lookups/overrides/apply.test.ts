// What a row does to an answer: its fields over the data's, the data's
// values that would contradict it dropped, detection marked with its label.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  overrideDetection,
  overrideGeoRecord,
  overrideNetwork,
  type OverridableGeoRecord,
} from '../../../src/lookups/overrides/apply.js';
import { parseCidr } from '../../../src/net/cidr-match.js';
import type { OverrideFields, OverrideRow } from '../../../src/lookups/overrides/rows.js';

const DATA: OverridableGeoRecord & { ip: string; bogon: boolean } = {
  ip: '8.8.8.8',
  country: 'US',
  city: 'Mountain View',
  region: 'California',
  timezone: 'America/Los_Angeles',
  latitude: 37.422,
  longitude: -122.085,
  isp: 'Google LLC',
  asn: 'AS15169',
  org: 'Google LLC',
  bogon: false,
};

const row = (fields: OverrideFields, label = 'lab'): OverrideRow => ({
  line: 2,
  cidr: parseCidr('8.8.8.0/24')!,
  label,
  fields,
});

describe('overrideGeoRecord', () => {
  const table: { name: string; fields: OverrideFields; want: Partial<typeof DATA> }[] = [
    {
      name: 'a city alone keeps the rest',
      fields: { city: 'Palo Alto' },
      want: { city: 'Palo Alto' },
    },
    {
      name: 'another country drops the old place',
      fields: { country: 'DE', city: 'Berlin' },
      want: {
        country: 'DE',
        city: 'Berlin',
        region: null,
        timezone: null,
        latitude: null,
        longitude: null,
      },
    },
    { name: 'the same country keeps the place', fields: { country: 'US' }, want: {} },
    {
      name: 'another AS drops the old names',
      fields: { asn: 64500 },
      want: { asn: 'AS64500', org: null, isp: null },
    },
    { name: 'the same AS keeps them', fields: { asn: 15169, org: 'G' }, want: { org: 'G' } },
  ];
  for (const { name, fields, want } of table) {
    it(name, () => {
      const record = overrideGeoRecord({ ...DATA }, fields);
      assert.deepEqual(record, { ...DATA, ...want });
      // the record's key order is the data's
      assert.deepEqual(Object.keys(record), Object.keys(DATA));
    });
  }
});

describe('overrideNetwork', () => {
  const base = { asn: 15169, org: 'Google LLC', isp: null };
  it('names the row’s AS with the row’s names, never the data’s of another AS', () => {
    assert.equal(overrideNetwork(base, {}), base);
    assert.deepEqual(overrideNetwork(base, { asn: 64500 }), { asn: 64500, org: null, isp: null });
    assert.deepEqual(overrideNetwork(base, { org: 'X' }), { asn: 15169, org: 'X', isp: null });
    assert.deepEqual(overrideNetwork(null, { asn: 1, isp: 'I' }), { asn: 1, org: null, isp: 'I' });
    // no AS from either side: the data's answer stands
    assert.equal(overrideNetwork(null, { org: 'X' }), null);
  });
});

describe('overrideDetection', () => {
  const detection = () => ({
    ip: '8.8.8.8',
    isVpn: false,
    isProxy: false,
    isHosting: true,
    isMobile: false,
    isTor: false,
    confidence: 'medium',
    asn: 'AS15169',
    org: 'Google LLC',
    reasons: ['asn:15169 hosting'],
  });

  it('a flag: the operator’s word, confidence high, the label in reasons', () => {
    const d = overrideDetection(detection(), row({ isVpn: true, isHosting: false }, 'office-vpn'));
    assert.deepEqual(
      [d.isVpn, d.isHosting, d.confidence, d.reasons],
      [true, false, 'high', ['asn:15169 hosting', 'override:office-vpn']],
    );
  });

  it('an AS or org alone: noted in reasons, confidence unchanged', () => {
    const d = overrideDetection(detection(), row({ asn: 64500 }));
    assert.deepEqual([d.asn, d.org, d.confidence], ['AS64500', null, 'medium']);
    assert.ok(d.reasons.includes('override:lab'));
  });

  it('nothing of detection: the answer is untouched', () => {
    assert.deepEqual(overrideDetection(detection(), row({ city: 'X' })), detection());
  });

  it('provider is set where the answer has that field', () => {
    const withProvider = { ...detection(), provider: null as string | null };
    assert.equal(
      overrideDetection(withProvider, row({ provider: 'Acme VPN' })).provider,
      'Acme VPN',
    );
    const without = overrideDetection(detection(), row({ provider: 'Acme VPN' }));
    assert.equal('provider' in without, false);
  });
});
