// DB-IP's CC BY 4.0 asks for a visible link wherever its data answers: the
// GeoIP record (location or network from DB-IP) and the VPN record (its
// network), never an error.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildMmdb, cityRecord } from '../helpers/mmdb-writer.js';
import { get, startService, type TestService } from '../helpers/service.js';

const DBIP = /IP Geolocation by DB-IP <https:\/\/db-ip\.com> \(CC BY 4\.0\)/;

describe('X-Data-Attribution', () => {
  let embedded: TestService;
  let ownCity: TestService;
  let dir: string;
  before(async () => {
    embedded = await startService({ env: { RATE_LIMIT_MAX: '1000' } });
    dir = await mkdtemp(join(tmpdir(), 'ipintel-attribution-'));
    const city = join(dir, 'city.mmdb');
    await writeFile(
      city,
      buildMmdb({
        databaseType: 'GeoLite2-City',
        networks: [
          { network: '8.8.8.0/24', data: cityRecord({ country: 'US', city: 'Somewhere' }) },
        ],
      }),
    );
    ownCity = await startService({
      env: { RATE_LIMIT_MAX: '1000', GEOIP_DB: city, DATA_DIR: join(dir, 'data') },
    });
  });
  after(async () => {
    await embedded.close();
    await ownCity.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cases = [
    { path: '/ip/8.8.8.8', why: 'GeoIP from the embedded DB-IP data' },
    { path: '/ip/8.8.8.8/vpn', why: 'VPN verdict from the DB-IP ASN data' },
    { path: '/ip', why: 'the caller, a bogon, still a DB-IP answer' },
  ];
  for (const { path, why } of cases) {
    it(`${path}: carries the DB-IP link (${why})`, async () => {
      const res = await get(embedded.baseUrl, path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('x-data-attribution') ?? '', DBIP);
    });
  }

  it('an operator GEOIP_DB with the embedded ASN: still the DB-IP link, for the network part', async () => {
    const res = await get(ownCity.baseUrl, '/ip/8.8.8.8');
    assert.equal((res.body as { data: { city: string } }).data.city, 'Somewhere');
    assert.match(res.headers.get('x-data-attribution') ?? '', DBIP);
  });

  it('errors carry none', async () => {
    const res = await get(embedded.baseUrl, '/ip/not-an-ip');
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('x-data-attribution'), null);
  });
});
