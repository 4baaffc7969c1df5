// The hot path builds the GeoIP record's JSON from memoised fragments; it
// must be byte for byte what serialising the record object gives.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadConfig } from '../../../src/config.js';
import { loadServiceData, type ServiceData } from '../../../src/deps.js';
import { createGeoIpLookup } from '../../../src/lookups/geoip/geoip.js';
import { formatIpv6, parseIp } from '../../../src/net/ip.js';

let data: ServiceData;
before(async () => {
  data = await loadServiceData(loadConfig({}), pino({ level: 'silent' }));
});

function randomAddresses(count: number): string[] {
  const out: string[] = [];
  const byte = () => Math.floor(Math.random() * 256);
  for (let i = 0; i < count; i++) {
    out.push(`${byte()}.${byte()}.${byte()}.${byte()}`);
    const groups = Array.from({ length: 8 }, () => Math.floor(Math.random() * 0x10000));
    groups[0] = 0x2000 + ((groups[0] ?? 0) % 0x2000); // mostly global unicast
    out.push(formatIpv6(groups));
  }
  return out;
}

describe('GeoIP record JSON', () => {
  it('lookupJson(ip) equals JSON.stringify(lookup(ip)) for random and special addresses', () => {
    const geoip = createGeoIpLookup(data.geo);
    const fixed = [
      '8.8.8.8',
      '1.1.1.1',
      '10.0.0.1',
      '::1',
      '2001:db8::1',
      '2606:4700::1111',
      '0.0.0.0',
    ];
    for (const text of [...fixed, ...randomAddresses(2000)]) {
      const ip = parseIp(text);
      assert.ok(ip, text);
      const json = geoip.lookupJson(ip);
      assert.equal(json, JSON.stringify(geoip.lookup(ip)), text);
      // the same answer twice (now from the memo)
      assert.equal(geoip.lookupJson(ip), json, text);
    }
  });
});
