// Data swapped on disk is reloaded without a restart, and the very next
// answer comes from the new data: GeoIP and VPN answers are computed from the
// in-memory tables on every request (no server-side cache could serve the old
// data), with their full Cache-Control lifetime and no X-Cache. A broken file
// leaves the old data in place.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { vpnRecordSchema } from '../../src/api/lookup-schemas.js';
import { reloadGeoData } from '../../src/composition.js';
import { DataReloader } from '../../src/life/reloader.js';
import { buildMmdb, cityRecord } from '../helpers/mmdb-writer.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { asnCsv, flatCity, publishRelease, updateFromLoopback } from '../helpers/geo-release.js';
import { storedFeed, vpnHostFeed } from '../helpers/vpn-feeds.js';
import {
  dataOf,
  get,
  serviceData,
  silentLog,
  startService,
  type JsonResponse,
  type TestService,
} from '../helpers/service.js';

const ADDRESS = '81.2.69.142';

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

function asn(number: number, org: string): Buffer {
  return buildMmdb({
    databaseType: 'GeoLite2-ASN',
    networks: [
      {
        network: '81.2.69.0/24',
        data: { autonomous_system_number: number, autonomous_system_organization: org },
      },
    ],
  });
}

/** Written to a new file and renamed in, as a careful operator (or updater) would. */
async function swap(path: string, content: Buffer | string): Promise<void> {
  await writeFile(`${path}.new`, content);
  await rename(`${path}.new`, path);
}

/** A temporary DATA_DIR (compiled tables, feeds), removed with the service. */
async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ipintel-reload-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(t: TestContext, env: Record<string, string>): Promise<TestService> {
  const service = await startService({ env: { RATE_LIMIT_MAX: '1000', ...env } });
  t.after(() => service.close());
  return service;
}

/** An in-memory answer: 200, the route's whole lifetime, no X-Cache. */
function assertInMemory(res: JsonResponse, cacheControl: string): void {
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('cache-control'), cacheControl);
  assert.equal(res.headers.get('x-cache'), null);
}

const GEOIP_LIFETIME = 'public, max-age=86400';
const VPN_LIFETIME = 'public, max-age=21600';

describe('reloading the GeoIP data', () => {
  it('serves the swapped GEOIP_DB at once and keeps the old data when the new file is broken', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'city.mmdb');
    await writeFile(path, city('London', 'GB'));
    const service = await serve(t, { GEOIP_DB: path, DATA_DIR: dir });
    const data = await serviceData(service.config);

    const before = await get(service.baseUrl, `/ip/${ADDRESS}`);
    assertInMemory(before, GEOIP_LIFETIME);
    assert.equal(dataOf(before.body)['city'], 'London');

    await swap(path, city('Paris', 'FR'));
    await reloadGeoData(service.config, data, silentLog);
    const after = await get(service.baseUrl, `/ip/${ADDRESS}`);
    assertInMemory(after, GEOIP_LIFETIME);
    assert.deepEqual(
      [dataOf(after.body)['city'], dataOf(after.body)['country']],
      ['Paris', 'FR'],
      'the first answer after the reload is from the new file',
    );

    await writeFile(path, 'not an mmdb file');
    await assert.rejects(reloadGeoData(service.config, data, silentLog), /GEOIP_DB/);
    const still = await get(service.baseUrl, `/ip/${ADDRESS}`);
    assertInMemory(still, GEOIP_LIFETIME);
    assert.equal(dataOf(still.body)['city'], 'Paris');
  });

  it('a swapped ASN_DB changes the GeoIP network and the VPN verdict at once', async (t) => {
    const dir = await tempDir(t);
    const path = join(dir, 'asn.mmdb');
    // AS20712 has no class of its own; AS15169 is classed hosting (resources/asn-classes.csv)
    await writeFile(path, asn(20712, 'Andrews & Arnold Ltd'));
    const service = await serve(t, { ASN_DB: path, DATA_DIR: dir });
    const data = await serviceData(service.config);

    const geoBefore = await get(service.baseUrl, `/ip/${ADDRESS}`);
    assertInMemory(geoBefore, GEOIP_LIFETIME);
    assert.equal(dataOf(geoBefore.body)['asn'], 'AS20712');
    const vpnBefore = await get(service.baseUrl, `/ip/${ADDRESS}/vpn`);
    assertInMemory(vpnBefore, VPN_LIFETIME);
    const verdictBefore = vpnRecordSchema.parse(dataOf(vpnBefore.body));
    assert.deepEqual([verdictBefore.asn, verdictBefore.isHosting], ['AS20712', false]);

    await swap(path, asn(15169, 'Google LLC'));
    await reloadGeoData(service.config, data, silentLog);
    const geoAfter = await get(service.baseUrl, `/ip/${ADDRESS}`);
    assertInMemory(geoAfter, GEOIP_LIFETIME);
    assert.deepEqual(
      [dataOf(geoAfter.body)['asn'], dataOf(geoAfter.body)['org']],
      ['AS15169', 'Google LLC'],
    );
    const vpnAfter = await get(service.baseUrl, `/ip/${ADDRESS}/vpn`);
    assertInMemory(vpnAfter, VPN_LIFETIME);
    const verdictAfter = vpnRecordSchema.parse(dataOf(vpnAfter.body));
    assert.deepEqual([verdictAfter.asn, verdictAfter.isHosting], ['AS15169', true]);
    assert.ok(verdictAfter.reasons.includes('asn:15169 hosting'), verdictAfter.reasons.join());
  });
});

describe('reloading the VPN feeds', () => {
  it('a feed file added to DATA_DIR/feeds is visible on the first answer after the reload', async (t) => {
    const dir = await tempDir(t);
    const service = await serve(t, { DATA_DIR: dir });
    const data = await serviceData(service.config);

    const before = await get(service.baseUrl, `/ip/${ADDRESS}/vpn`);
    assertInMemory(before, VPN_LIFETIME);
    assert.equal(vpnRecordSchema.parse(dataOf(before.body)).isTor, false);

    await mkdir(join(dir, 'feeds'));
    await swap(
      join(dir, 'feeds', 'tor-exits.feed.json'),
      `${JSON.stringify({
        format: 'ipintel-feed/1',
        feed: 'tor-exits',
        kind: 'tor',
        url: 'http://127.0.0.1/',
        fetchedAt: '2026-01-01T00:00:00.000Z',
        publishedAt: null,
        prefixes: [`${ADDRESS}/32`],
      })}\n`,
    );
    await data.vpn.reload({ ifChanged: true });
    const after = await get(service.baseUrl, `/ip/${ADDRESS}/vpn`);
    assertInMemory(after, VPN_LIFETIME);
    const verdict = vpnRecordSchema.parse(dataOf(after.body));
    assert.deepEqual([verdict.isTor, verdict.isProxy, verdict.confidence], [true, true, 'high']);
    assert.ok(verdict.reasons.includes('tor-exit'), verdict.reasons.join());
  });
});

describe('one reloader for the data', () => {
  it('new ASN tables alone rebuild the vpn ranges: the first answer after the timer tick follows them', async (t) => {
    const dir = await tempDir(t);
    const publisher = await startFeedServer({});
    t.after(() => publisher.close());
    /** what `npm run update-data` leaves in DATA_DIR/tables for one release */
    const update = async (asn: number, org: string): Promise<void> => {
      publishRelease(publisher, flatCity('London', 'GB'), asnCsv(asn, org));
      const results = await updateFromLoopback(publisher, dir);
      assert.ok(
        results.every((r) => r.outcome !== 'failed'),
        results.map((r) => r.error).join(),
      );
    };
    // 81.2.69.0/24 routed by a fixed-line ISP (classed `isp`: never expanded)
    // with three exits of one provider in it; the feeds never change below
    await update(812, 'Rogers Communications Canada Inc.');
    await mkdir(join(dir, 'feeds'));
    const feed = vpnHostFeed('mullvad', 'mullvad', ['81.2.69.1', '81.2.69.2', '81.2.69.3']);
    await writeFile(join(dir, 'feeds', 'mullvad.feed.json'), `${JSON.stringify(feed)}\n`);
    const service = await serve(t, { DATA_DIR: dir });
    const data = await serviceData(service.config);
    const reloader = new DataReloader(service.config, data, silentLog);
    const verdict = async () =>
      vpnRecordSchema.parse(dataOf((await get(service.baseUrl, `/ip/${ADDRESS}/vpn`)).body));

    const before = await verdict();
    assert.deepEqual([before.asn, before.isVpn], ['AS812', false], before.reasons.join());

    // the same /24 now routed by an AS nobody classed: three exits make it VPN space
    await update(64511, 'Example Servers');
    await reloader.reload({ reason: 'timer', ifChanged: true });
    const after = await verdict();
    assert.deepEqual([after.asn, after.isVpn], ['AS64511', true], after.reasons.join());
    assert.ok(
      after.reasons.some((r) => r.startsWith('vpn-range:')),
      after.reasons.join(),
    );
  });

  it('runs reloads one after the other, never two at once', async (t) => {
    const dir = await tempDir(t);
    const service = await serve(t, { DATA_DIR: dir });
    const data = await serviceData(service.config);
    const reloader = new DataReloader(service.config, data, silentLog);
    let running = 0;
    let most = 0;
    const reload = data.vpn.reload.bind(data.vpn);
    data.vpn.reload = async (options) => {
      running++;
      most = Math.max(most, running);
      try {
        return await reload(options);
      } finally {
        running--;
      }
    };
    await mkdir(join(dir, 'feeds'));
    await writeFile(
      join(dir, 'feeds', 'tor-exits.feed.json'),
      `${JSON.stringify(storedFeed('tor-exits', 'tor', [`${ADDRESS}/32`]))}\n`,
    );
    await Promise.all([
      reloader.reload({ reason: 'timer', ifChanged: true }),
      reloader.reload({ reason: 'SIGHUP', ifChanged: false }),
      reloader.reload({ reason: 'update', ifChanged: true }),
    ]);
    assert.equal(most, 1);
    const verdict = vpnRecordSchema.parse(
      dataOf((await get(service.baseUrl, `/ip/${ADDRESS}/vpn`)).body),
    );
    assert.equal(verdict.isTor, true);
  });
});
