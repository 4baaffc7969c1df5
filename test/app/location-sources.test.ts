// The reconciled location through the running service (issue 42): every
// GeoIP answer's accuracyRadiusKm and X-Location-Source are what the sources'
// own files, reconciled by the shipped rule, say (test/helpers/location-reference.ts);
// POST /batch answers the same radius; GET / lists every location source with
// its version, age and licence, and X-Data-Attribution credits each one.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseIp } from '../../src/net/ip.js';
import { bucketChain } from '../../src/lookups/geoip/reconcile/radius.js';
import { loadLocationRules } from '../../src/lookups/geoip/reconcile/rule-file.js';
import { LocationReference } from '../helpers/location-reference.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import { seededRandom, testSeed } from '../helpers/seeded-random.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';

/** the `/ip/:ip` answer's data */
type Geo = GeoIpRecord;

const SEED = testSeed();

let service: TestService;
let reference: LocationReference;
before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '1000000' } });
  reference = new LocationReference();
});
after(() => service.close());

/** seeded public-looking addresses of both families, and a few known ones */
function addresses(): string[] {
  const random = seededRandom(SEED);
  const out = ['8.8.8.8', '1.1.1.1', '2.29.209.210', '2001:4860:4860::8888', '2a00:1450:4001::1'];
  for (let i = 0; i < 60; i++) {
    const v = random.u32();
    out.push(`${(v >>> 24) % 223 || 1}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`);
  }
  return out;
}

describe('the reconciled location in the service', () => {
  it("answers each address's radius and deciding sources as the sources' files reconciled say", async () => {
    let withRadius = 0;
    // answers whose radius is their answered continent's own, not the overall one
    let byContinent = 0;
    const radii = loadLocationRules().default.radii;
    for (const text of addresses()) {
      const res = await get(service.baseUrl, `/ip/${text}`);
      assert.equal(res.status, 200, text);
      const geo = dataOf<Geo>(res.body);
      const bogon = (res.body as { data: { bogon: boolean } }).data.bogon;
      const want = bogon ? null : reference.answer(parseIp(text)!);
      const header = res.headers.get('x-location-source');
      if (want === null) {
        assert.equal(geo.accuracyRadiusKm, null, `${text} (TEST_SEED=${SEED})`);
        assert.equal(header, null, text);
        continue;
      }
      assert.equal(geo.country, want.location.country, `${text} (TEST_SEED=${SEED})`);
      assert.equal(geo.accuracyRadiusKm, want.radiusKm, `${text} (TEST_SEED=${SEED})`);
      assert.equal(header, want.decidedBy.length === 0 ? null : want.decidedBy.join(', '), text);
      if (geo.latitude === null) assert.equal(geo.accuracyRadiusKm, null, text);
      else {
        withRadius++;
        assert.ok(Number.isInteger(geo.accuracyRadiusKm) && geo.accuracyRadiusKm! > 0, text);
        assert.match(header ?? '', /^dbip\b/, `${text}: DB-IP placed it`);
        // the first calibrated bucket of its chain: its continent's, unless the continent is thin
        const used = bucketChain(want.bucket!).find((key) => radii[key] !== undefined);
        if (used !== undefined && /^[A-Z]{2}(\||$)/.test(used)) byContinent++;
      }
    }
    assert.ok(withRadius > 30, `${withRadius} answers with a point`);
    assert.ok(byContinent > 0, `${byContinent} answers with their continent's own radius`);
  });

  it('a bogon has no radius and no X-Location-Source', async () => {
    const res = await get(service.baseUrl, '/ip/10.0.0.1');
    assert.equal(dataOf<Geo>(res.body).accuracyRadiusKm, null);
    assert.equal(res.headers.get('x-location-source'), null);
  });

  it('POST /batch answers the radius of GET /ip/:ip', async () => {
    const list = addresses().slice(0, 20);
    const res = await get(service.baseUrl, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(list),
    });
    assert.equal(res.status, 200);
    const results = dataOf<{ results: { data: Geo }[] }>(res.body).results;
    for (const [i, text] of list.entries()) {
      const single = dataOf<Geo>((await get(service.baseUrl, `/ip/${text}`)).body);
      assert.equal(results[i]!.data.accuracyRadiusKm, single.accuracyRadiusKm, text);
    }
  });

  it('GET / lists every location source with version, age and licence; answers credit each', async () => {
    const info = dataOf<{
      locationSources: {
        id: string;
        kind: string;
        version: string | null;
        ageDays: number;
        licence: string;
        attribution: { text: string; url: string } | null;
      }[];
    }>((await get(service.baseUrl, '/')).body);
    assert.deepEqual(
      info.locationSources.map((s) => [s.id, s.kind, s.licence]),
      [
        ['dbip', 'city', 'CC BY 4.0'],
        ['registry', 'country', 'CC BY 4.0'],
        ['ip2location', 'country', 'CC BY-SA 4.0'],
      ],
    );
    for (const s of info.locationSources) {
      assert.match(s.version ?? '', /^\d+\.\d+/, s.id);
      assert.ok(Number.isInteger(s.ageDays) && s.ageDays >= 0, s.id);
      assert.match(s.attribution?.url ?? '', /^https:\/\//, s.id);
    }
    const credits = (await get(service.baseUrl, '/ip/8.8.8.8')).headers.get('x-data-attribution');
    for (const s of info.locationSources) assert.ok(credits?.includes(s.attribution!.text), s.id);
  });
});
