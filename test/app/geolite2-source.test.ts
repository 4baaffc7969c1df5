// GEOLITE2_CITY_DB (issue 42): the operator's GeoLite2 City file joins the
// location sources. With a small GEOIP_DB standing in for the GeoIP data (the
// embedded DB-IP compiles the same way, only longer), the service answers the
// reconciled location: both city sources name it in X-Location-Source, the
// radius is the GeoLite2 configuration's for the points' agreement and the
// answered continent, GET / lists GeoLite2 with its licence and its credit
// travels in X-Data-Attribution. A file that is not a City MMDB is refused,
// naming the variable.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { radiusOf } from '../../src/lookups/geoip/reconcile/radius.js';
import { loadLocationRules } from '../../src/lookups/geoip/reconcile/rule-file.js';
import { cityFile, londonAndLeeds } from '../helpers/mmdb-writer.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';

interface Geo {
  city: string | null;
  latitude: number | null;
  accuracyRadiusKm: number | null;
}

const dir = mkdtempSync(join(tmpdir(), 'ipintel-geolite2-'));
const geoipDb = join(dir, 'city.mmdb');
const geolite2 = join(dir, 'GeoLite2-City.mmdb');
writeFileSync(geoipDb, londonAndLeeds());
writeFileSync(
  geolite2,
  cityFile('GeoLite2-City', {
    // 3 km from the GeoIP data's point
    '81.2.69.0/24': { country: 'GB', city: 'London', latitude: 51.5, longitude: -0.12 },
    // 270 km from it
    '81.2.70.0/24': { country: 'GB', city: 'London', latitude: 51.5, longitude: -0.12 },
  }),
);

const radii = loadLocationRules().geolite2.radii;
const radiiOf = (prefix: string): number[] =>
  Object.entries(radii)
    .filter(([bucket]) => bucket.startsWith(prefix))
    .map(([, km]) => km);

let service: TestService;
before(async () => {
  service = await startService({
    env: { GEOIP_DB: geoipDb, GEOLITE2_CITY_DB: geolite2, DATA_DIR: join(dir, 'data') },
  });
});
after(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GEOLITE2_CITY_DB', () => {
  it('points that agree: both city sources decide, the near radius', async () => {
    const res = await get(service.baseUrl, '/ip/81.2.69.160');
    const geo = dataOf<Geo>(res.body);
    assert.equal(geo.city, 'London');
    assert.match(res.headers.get('x-location-source') ?? '', /^geoip-db, geolite2\b/);
    assert.ok(radiiOf('d10').includes(geo.accuracyRadiusKm!), `${geo.accuracyRadiusKm}`);
    // a British answer: Europe's bucket (its own radius, or the pooled one where Europe's is thin)
    const european = ['unanimous', 'split'].map((agree) => radiusOf(`d10|${agree}|city|EU`, radii));
    assert.ok(european.includes(geo.accuracyRadiusKm), `${geo.accuracyRadiusKm}`);
  });

  it('points far apart: the chosen rule keeps the first source, with the far radius', async () => {
    const res = await get(service.baseUrl, '/ip/81.2.70.1');
    const geo = dataOf<Geo>(res.body);
    assert.equal(geo.city, 'Leeds');
    assert.ok(radiiOf('far').includes(geo.accuracyRadiusKm!), `${geo.accuracyRadiusKm}`);
    assert.ok(
      geo.accuracyRadiusKm! >
        dataOf<Geo>((await get(service.baseUrl, '/ip/81.2.69.160')).body).accuracyRadiusKm!,
    );
  });

  it('GET / lists GeoLite2 with its licence; its credit is in X-Data-Attribution', async () => {
    const info = dataOf<{ locationSources: { id: string; licence: string }[] }>(
      (await get(service.baseUrl, '/')).body,
    );
    assert.deepEqual(
      info.locationSources.map((s) => s.id),
      ['geoip-db', 'geolite2', 'registry', 'ip2location'],
    );
    assert.equal(info.locationSources[1]!.licence, 'GeoLite2 EULA (CC BY-SA 4.0 terms)');
    const credits = (await get(service.baseUrl, '/ip/81.2.69.160')).headers.get(
      'x-data-attribution',
    );
    assert.match(credits ?? '', /GeoLite2 data created by MaxMind/);
  });

  it('a file that is not a City MMDB is refused, naming the variable', async () => {
    const bad = join(dir, 'bad.mmdb');
    writeFileSync(bad, 'not an mmdb file'.repeat(100));
    await assert.rejects(
      startService({
        env: { GEOIP_DB: geoipDb, GEOLITE2_CITY_DB: bad, DATA_DIR: join(dir, 'd2') },
      }),
      /GEOLITE2_CITY_DB: cannot open .* as an MMDB file/,
    );
  });
});
