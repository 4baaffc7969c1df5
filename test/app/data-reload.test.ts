// GeoIP/ASN files swapped on disk are reloaded without a restart: the new
// data is served at once (cached answers of the old data are not), and a
// broken file leaves the old data in place.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { reloadGeoData } from '../../src/deps.js';
import { buildMmdb, cityRecord } from '../helpers/mmdb-writer.js';
import { dataOf, get, serviceData, silentLog, startService } from '../helpers/service.js';

function city(name: string, country: string): Buffer {
  return buildMmdb({
    databaseType: 'GeoLite2-City',
    networks: [
      {
        network: '81.2.69.0/24',
        data: cityRecord({ country, city: name, latitude: 51.5, longitude: -0.1 }),
      },
    ],
  });
}

describe('reloading the GeoIP data', () => {
  it('serves the swapped file at once and keeps the old data when the new file is broken', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'ipintel-reload-'));
    const path = join(dir, 'city.mmdb');
    await writeFile(path, city('London', 'GB'));
    const service = await startService({ env: { GEOIP_DB: path, RATE_LIMIT_MAX: '1000' } });
    t.after(async () => {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    });
    const data = await serviceData(service.config);

    const before = await get(service.baseUrl, '/ip/81.2.69.142');
    assert.equal(dataOf(before.body)['city'], 'London');
    assert.equal((await get(service.baseUrl, '/ip/81.2.69.142')).headers.get('x-cache'), 'HIT');

    // written to a new file and renamed, as a careful operator (or updater) would
    await writeFile(`${path}.new`, city('Paris', 'FR'));
    await import('node:fs/promises').then((fs) => fs.rename(`${path}.new`, path));
    await reloadGeoData(service.config, data, silentLog);
    const after = await get(service.baseUrl, '/ip/81.2.69.142');
    assert.equal(dataOf(after.body)['city'], 'Paris');
    assert.equal(dataOf(after.body)['country'], 'FR');
    assert.equal(after.headers.get('x-cache'), 'MISS', 'the old answer is not served from cache');

    await writeFile(path, 'not an mmdb file');
    await assert.rejects(reloadGeoData(service.config, data, silentLog), /GEOIP_DB/);
    const still = await get(service.baseUrl, '/ip/81.2.69.142');
    assert.equal(still.status, 200);
    assert.equal(dataOf(still.body)['city'], 'Paris');
  });
});
