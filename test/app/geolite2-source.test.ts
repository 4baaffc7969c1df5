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
import { MmdbDouble, buildMmdb, cityRecord } from '../helpers/mmdb-writer.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';

/** the `/ip/:ip` answer's data */
type Geo = GeoIpRecord;

const dir = mkdtempSync(join(tmpdir(), 'ipintel-geolite2-'));
const geoipDb = join(dir, 'city.mmdb');
const geolite2 = join(dir, 'GeoLite2-City.mmdb');
writeFileSync(
  geoipDb,
  buildMmdb({
    databaseType: 'GeoIP2-City',
    networks: [
      {
        network: '81.2.69.0/24',
        data: cityRecord({ country: 'GB', city: 'London', latitude: 51.5142, longitude: -0.0931 }),
      },
      {
        network: '81.2.70.0/24',
        data: cityRecord({ country: 'GB', city: 'Leeds', latitude: 53.8008, longitude: -1.5491 }),
      },
      {
        network: '81.2.71.0/24',
        data: cityRecord({ country: 'GB', city: 'Leeds', latitude: 53.8008, longitude: -1.5491 }),
      },
    ],
  }),
);
writeFileSync(
  geolite2,
  buildMmdb({
    databaseType: 'GeoLite2-City',
    networks: [
      // 3 km from the GeoIP data's point
      {
        network: '81.2.69.0/24',
        data: cityRecord({ country: 'GB', city: 'London', latitude: 51.5, longitude: -0.12 }),
      },
      // 270 km from it, and GeoLite2 states 100 km
      {
        network: '81.2.70.0/24',
        data: cityRecord({ country: 'GB', city: 'London', latitude: 51.5, longitude: -0.12 }),
      },
      // 335 km from it, and GeoLite2 states 20 km
      {
        network: '81.2.71.0/24',
        data: cityRecord({
          country: 'GB',
          city: 'Brighton',
          latitude: 50.8225,
          longitude: -0.1372,
          accuracyRadius: 20,
        }),
      },
    ],
  }),
);

// ip-location-db's flat layout (no accuracy_radius): the Brighton network as that copy has it
const flatGeolite2 = join(dir, 'geolite2-flat.mmdb');
writeFileSync(
  flatGeolite2,
  buildMmdb({
    databaseType: 'city',
    networks: [
      {
        network: '81.2.71.0/24',
        data: {
          city: 'Brighton',
          country_code: 'GB',
          latitude: new MmdbDouble(50.8225),
          longitude: new MmdbDouble(-0.1372),
          state1: 'England',
        },
      },
    ],
  }),
);

const rules = loadLocationRules();
const { rule, radii } = rules.geolite2;
/** the radius of a British answer in this bucket, the country sources agreeing or not */
const britishRadii = (middle: string, table = radii): (number | null)[] =>
  ['unanimous', 'split'].map((agree) => radiusOf(`EU|${middle}|${agree}|city`, table));

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
    assert.match(res.headers.get('x-location-source') ?? '', /\bgeoip-db, geolite2\b/);
    // a British answer, the points within 10 km, GeoLite2 stating 100 km: that bucket's radius
    const want = britishRadii('d10|s200');
    assert.ok(want.includes(geo.accuracyRadiusKm), `${geo.accuracyRadiusKm} in ${want.join(', ')}`);
  });

  it('points far apart, GeoLite2 stating 100 km: the first source, with the far radius', async () => {
    const res = await get(service.baseUrl, '/ip/81.2.70.1');
    const geo = dataOf<Geo>(res.body);
    assert.equal(geo.city, 'Leeds');
    const want = britishRadii('far|s200');
    assert.ok(want.includes(geo.accuracyRadiusKm), `${geo.accuracyRadiusKm} in ${want.join(', ')}`);
    assert.ok(
      geo.accuracyRadiusKm! >
        dataOf<Geo>((await get(service.baseUrl, '/ip/81.2.69.160')).body).accuracyRadiusKm!,
    );
  });

  it("points far apart, GeoLite2 stating 20 km: the rule file's `stated` choice decides", async () => {
    const res = await get(service.baseUrl, '/ip/81.2.71.1');
    const geo = dataOf<Geo>(res.body);
    const takesGeolite2 = rule.far === 'stated' && rule.nearKm < 335 && (rule.statedKm ?? 0) >= 20;
    assert.equal(geo.city, takesGeolite2 ? 'Brighton' : 'Leeds', JSON.stringify(rule));
    const header = res.headers.get('x-location-source') ?? '';
    assert.match(header, takesGeolite2 ? /^geolite2, geoip-db\b/ : /^geoip-db, geolite2\b/);
    const want = britishRadii('far|s50');
    assert.ok(want.includes(geo.accuracyRadiusKm), `${geo.accuracyRadiusKm} in ${want.join(', ')}`);
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

  it('a copy older than its age limit: GET / and /readyz warn, and the service stays ready', async () => {
    // the copy above was built in November 2023
    const stale =
      /^location source "GeoLite2 City \(GeoLite2-City\)" is \d+ days old \(more than 35\): MaxMind's GeoLite2 EULA asks for current data/;
    const ready = await get(service.baseUrl, '/readyz');
    assert.equal(ready.status, 200);
    const readiness = dataOf<{ status: string; warnings: string[] }>(ready.body);
    assert.equal(readiness.status, 'ready');
    assert.equal(
      readiness.warnings.filter((w) => stale.test(w)).length,
      1,
      readiness.warnings.join('\n'),
    );
    const info = dataOf<{ warnings: string[] }>((await get(service.baseUrl, '/')).body);
    assert.equal(info.warnings.filter((w) => stale.test(w)).length, 1, info.warnings.join('\n'));
  });

  it('a current copy is no warning; the limit follows DATA_MAX_AGE_DAYS below 35 days', async () => {
    const recent = join(dir, 'recent-GeoLite2-City.mmdb');
    writeFileSync(
      recent,
      buildMmdb({
        databaseType: 'GeoLite2-City',
        buildEpoch: Math.floor(Date.now() / 1000) - 20 * 86_400,
        networks: [
          { network: '81.2.69.0/24', data: cityRecord({ country: 'GB', city: 'London' }) },
        ],
      }),
    );
    const geolite2Warnings = async (env: Record<string, string>): Promise<string[]> => {
      const other = await startService({
        env: { GEOIP_DB: geoipDb, GEOLITE2_CITY_DB: recent, ...env },
      });
      try {
        const ready = await get(other.baseUrl, '/readyz');
        assert.equal(ready.status, 200);
        const warnings = dataOf<{ warnings: string[] }>(ready.body).warnings;
        return warnings.filter((w) => w.includes('GeoLite2'));
      } finally {
        await other.close();
      }
    };
    assert.deepEqual(await geolite2Warnings({ DATA_DIR: join(dir, 'd3') }), []);
    const tight = await geolite2Warnings({ DATA_DIR: join(dir, 'd4'), DATA_MAX_AGE_DAYS: '10' });
    assert.equal(tight.length, 1, tight.join('\n'));
    assert.match(tight[0]!, /is 2\d days old \(more than 10\)/);
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

describe('GEOLITE2_CITY_DB naming a copy that states no accuracy_radius', () => {
  it('answers by the geolite2Flat rule and radii (docs/data.md, round 12)', async () => {
    const flat = await startService({
      env: { GEOIP_DB: geoipDb, GEOLITE2_CITY_DB: flatGeolite2, DATA_DIR: join(dir, 'flat') },
    });
    try {
      const res = await get(flat.baseUrl, '/ip/81.2.71.1');
      const geo = dataOf<Geo>(res.body);
      const { rule: flatRule, radii: flatRadii } = rules.geolite2Flat;
      assert.notEqual(flatRule.far, 'stated', 'a copy stating nothing has no use for `stated`');
      // 335 km apart: the far choice of the flat rule, nothing stated in the bucket
      assert.equal(geo.city, flatRule.far === 'second' ? 'Brighton' : 'Leeds');
      const want = britishRadii('far', flatRadii);
      assert.ok(
        want.includes(geo.accuracyRadiusKm),
        `${geo.accuracyRadiusKm} in ${want.join(', ')}`,
      );
      assert.match(res.headers.get('x-location-source') ?? '', /\bgeolite2\b/);
      // the same GEOIP_DB, another GeoLite2 file: another version and tag, so no stale 304
      const other = await get(service.baseUrl, '/ip/81.2.71.1');
      assert.notEqual(res.headers.get('x-data-version'), other.headers.get('x-data-version'));
      assert.notEqual(res.headers.get('etag'), other.headers.get('etag'));
    } finally {
      await flat.close();
    }
  });
});
