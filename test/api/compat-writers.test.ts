// The compatible formats' hot path (src/api/compat/record-slices.ts: a
// place's, an AS's and a verdict's text made once) writes, byte for byte,
// what the formats make of the whole record (ipinfoRecord, ipApiJson,
// geoip2Record): for seeded addresses of every kind (bogons go the whole
// record's way, as an address an override or a geofeed covers does), and for
// several ip-api field selections.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { geoip2Record, geoip2Writer, type GeoIp2Service } from '../../src/api/compat/geoip2.js';
import { fieldSelection, ipApiJson, ipApiWriter } from '../../src/api/compat/ip-api.js';
import { ipinfoRecord, ipinfoWriter } from '../../src/api/compat/ipinfo.js';
import { RecordSlices, writtenText } from '../../src/api/compat/record-slices.js';
import { isBogon } from '../../src/lookups/geoip/bogons.js';
import { createGeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import { createVpnJson } from '../../src/lookups/vpn/record-json.js';
import { loadConfig } from '../../src/config.js';
import { parseIp, type Ip } from '../../src/net/ip.js';
import { seededAddresses } from '../helpers/compat.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';
import { serviceData } from '../helpers/service.js';

const random = seededRandom();

async function lookups() {
  const data = await serviceData(loadConfig({ LOG_LEVEL: 'silent' }));
  const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
  const vpnJson = createVpnJson(geoip, data.vpn);
  const whole = (ip: Ip, flagged: boolean) => ({
    geo: geoip.lookup(ip),
    flags: flagged ? vpnJson.detection(ip) : null,
  });
  return { geoip, vpnJson, slices: new RecordSlices(geoip, vpnJson), whole };
}

/** What a writer answers, or the body of the failure it throws. */
function outcome(write: () => string): string {
  try {
    return write();
  } catch (error) {
    return `failure: ${(error as Error).message}`;
  }
}

describe('the compatible formats written from record slices', () => {
  it('equal the formats made of the whole record, for 3,000 seeded addresses', async () => {
    const { slices, whole } = await lookups();
    const addresses = seededAddresses(random, 3000).map((text) => parseIp(text)!);
    const ipinfo = ipinfoWriter(slices, (ip) => {
      const w = whole(ip, true);
      return { geo: w.geo, flags: w.flags! };
    });
    const ipApi = ipApiWriter(slices, whole);
    const selections = [
      undefined,
      '66846719',
      'status,country,lat,lon,timezone,offset,as,query',
      'proxy,hosting,mobile,query',
    ].map(fieldSelection);
    const services: GeoIp2Service[] = ['country', 'city', 'insights'];
    const geoip2 = services.map((service) =>
      geoip2Writer(service, slices, (ip) => whole(ip, service === 'insights')),
    );
    withSeed(random, () => {
      for (const ip of addresses) {
        const detection = whole(ip, true);
        assert.equal(
          writtenText(ipinfo(ip)),
          JSON.stringify(ipinfoRecord(detection.geo, detection.flags)),
          ip.text,
        );
        if (!isBogon(ip)) {
          for (const selection of selections) {
            assert.equal(
              writtenText(ipApi(ip, selection)),
              ipApiJson(detection.geo, detection.flags, selection),
              `${ip.text} ${selection.mask}`,
            );
          }
        }
        services.forEach((service, i) => {
          const flags = service === 'insights' ? detection.flags : null;
          assert.equal(
            outcome(() => writtenText(geoip2[i]!(ip))),
            outcome(() => JSON.stringify(geoip2Record(service, detection.geo, flags))),
            `${service} ${ip.text}`,
          );
        });
      }
    });
  });
});
