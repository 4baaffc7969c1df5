// Answers of the embedded DB-IP Lite data (City + ASN), through the lookup
// the routes use. Known networks whose owner and place do not move.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import {
  createGeoIpLookup,
  type GeoIpLookup,
  type GeoIpRecord,
} from '../../../src/lookups/geoip/geoip.js';
import { parseIp } from '../../../src/net/ip.js';
import { routedSizesV4 } from '../../../src/lookups/vpn/index/asn-evidence.js';
import { serviceData } from '../../helpers/service.js';
import { seededRandom, withSeed } from '../../helpers/seeded-random.js';

let geoip: GeoIpLookup;
before(async () => {
  const data = await serviceData(loadConfig({}));
  geoip = createGeoIpLookup(data.geo);
});

function look(address: string): GeoIpRecord {
  return geoip.lookup(parseIp(address) ?? assert.fail(address));
}

function decimals(n: number): number {
  const text = String(n);
  return text.includes('.') ? (text.split('.')[1] ?? '').length : 0;
}

describe('embedded DB-IP Lite answers', () => {
  it('8.8.8.8 → US, AS15169 Google, America/Los_Angeles', () => {
    const r = look('8.8.8.8');
    assert.equal(r.country, 'US');
    assert.equal(r.asn, 'AS15169');
    assert.match(r.org ?? '', /Google/);
    assert.equal(r.isp, r.org);
    assert.equal(r.timezone, 'America/Los_Angeles');
    assert.equal(r.bogon, false);
  });

  it('1.1.1.1 → AS13335 Cloudflare', () => {
    const r = look('1.1.1.1');
    assert.equal(r.asn, 'AS13335');
    assert.match(r.org ?? '', /Cloudflare/);
  });

  const ipv6: { address: string; asn: string }[] = [
    { address: '2001:4860:4860::8888', asn: 'AS15169' }, // Google Public DNS
    { address: '2606:4700:4700::1111', asn: 'AS13335' }, // Cloudflare DNS
    { address: '2620:fe::fe', asn: 'AS19281' }, // Quad9
  ];
  for (const { address, asn } of ipv6) {
    it(`${address} → ${asn}, a country and a time zone`, () => {
      const r = look(address);
      assert.equal(r.asn, asn);
      assert.match(r.country ?? '', /^[A-Z]{2}$/);
      assert.equal(typeof r.timezone, 'string');
      assert.equal(r.ip, address);
    });
  }

  it('2000 random public IPv4 addresses: coordinates ≤ 4 decimals, a time zone wherever there are coordinates', () => {
    let located = 0;
    const random = seededRandom();
    withSeed(random, () => {
      for (let n = 0; n < 2000; n++) {
        const address = Array.from({ length: 4 }, (_, i) =>
          i === 0 ? random.below(223) + 1 : random.below(256),
        ).join('.');
        const r = look(address);
        if (r.bogon) continue;
        assert.equal(r.latitude === null, r.longitude === null, address);
        if (r.latitude === null || r.longitude === null) continue;
        located++;
        assert.ok(
          decimals(r.latitude) <= 4 && decimals(r.longitude) <= 4,
          `${address}: ${r.latitude},${r.longitude}`,
        );
        assert.ok(Math.abs(r.latitude) <= 90 && Math.abs(r.longitude) <= 180, address);
        assert.notEqual(r.timezone, null, `${address} at ${r.latitude},${r.longitude}`);
        assert.match(r.timezone ?? '', /^[A-Za-z_]+(\/[A-Za-z0-9_+-]+)*$/, address);
        if (r.country !== null) assert.match(r.country, /^[A-Z]{2}$/, address);
        if (r.asn !== null) assert.match(r.asn, /^AS\d+$/, address);
        for (const text of [r.city, r.region, r.org, r.isp]) assert.notEqual(text, '', address);
      }
      assert.ok(located > 1000, `${located} located`);
    });
  });

  it('every record has every field, null where unknown, never undefined', () => {
    for (const address of ['8.8.8.8', '10.0.0.1', '2001:db8::1', '2a0c:9a40:8::1']) {
      const r = look(address);
      for (const [field, value] of Object.entries(r))
        assert.notEqual(value, undefined, `${address}.${field}`);
      assert.equal(Object.keys(r).length, 12);
    }
  });
});

describe('each AS’s routed IPv4 space (the learned VPN networks’ denominator)', () => {
  it('summing the table’s rows by record equals walking the routed ranges one by one', () => {
    const fromRows = geoip.routedSizesV4();
    const walked = routedSizesV4((value) => geoip.routedV4(value));
    assert.ok(walked.size > 10_000, `only ${walked.size} ASes`);
    assert.deepEqual(fromRows, walked);
    // AS15169 routes 8.8.8.0/24 at least
    assert.ok((fromRows.get(15169) ?? 0) >= 256);
  });
});
