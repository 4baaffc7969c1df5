// EXPORT_DIR through the real service process on loopback: the export is
// built by its child process at start, served at GET /export/<file> behind
// METRICS_TOKEN with the manifest's SHA-256 as ETag (304 for If-None-Match
// and If-Modified-Since, HEAD, Content-Length), and rebuilt after a data swap
// (a new feed file, then SIGHUP) with a new ETag and the new answer inside —
// without a restart. The data is small (GEOIP_DB and ASN_DB files of a few
// networks) so that each build takes seconds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import { after, before, describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { EXPORT_FILES } from '../../src/kit/export-files.js';
import { writeSmallGeoData } from './small-geo-data.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { storedFeed, vpnHostFeed, writeFeeds } from '../helpers/vpn-feeds.js';
import { until } from '../helpers/wait.js';

const TOKEN = 'export-test-token-0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let dir: string;
let service: SpawnedService;

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`http://127.0.0.1:${service.port}${path}`, init);
}

async function manifestOf(): Promise<{ files: { name: string; sha256: string; bytes: number }[] }> {
  const res = await request(`/export/${EXPORT_FILES.manifest}`, { headers: AUTH });
  assert.equal(res.status, 200);
  return (await res.json()) as { files: { name: string; sha256: string; bytes: number }[] };
}

/** The anonymous-ip file's ETag once the export has one (the start's build is running). */
async function builtEtag(unlike: string | null): Promise<string> {
  let etag: string | null = null;
  await until(
    async () => {
      const res = await request(`/export/${EXPORT_FILES.anonymous}`, {
        method: 'HEAD',
        headers: AUTH,
      });
      etag = res.status === 200 ? res.headers.get('etag') : null;
      return etag !== null && etag !== unlike;
    },
    120_000,
    250,
  );
  return etag!;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-export-serving-'));
  const { city, asn } = await writeSmallGeoData(dir);
  await writeFeeds(join(dir, 'data'), [vpnHostFeed('mullvad', 'mullvad', ['185.65.134.10'])]);
  service = await spawnService({
    GEOIP_DB: city,
    ASN_DB: asn,
    DATA_DIR: join(dir, 'data'),
    EXPORT_DIR: join(dir, 'export'),
    METRICS_TOKEN: TOKEN,
    FEED_UPDATE_INTERVAL_HOURS: '0',
  });
});

after(async () => {
  service?.kill('SIGTERM');
  await service?.exited;
  await rm(dir, { recursive: true, force: true });
});

describe('EXPORT_DIR: the export kept current and served to operators', () => {
  let firstEtag: string;

  it('builds the files at start and serves them with the manifest’s SHA-256 as ETag', async () => {
    firstEtag = await builtEtag(null);
    const res = await request(`/export/${EXPORT_FILES.anonymous}`, { headers: AUTH });
    assert.equal(res.status, 200);
    const body = Buffer.from(await res.arrayBuffer());
    const sha = createHash('sha256').update(body).digest('hex');
    assert.equal(res.headers.get('etag'), `"${sha}"`);
    assert.equal(res.headers.get('content-length'), String(body.length));
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.ok(Date.parse(res.headers.get('last-modified') ?? '') > 0, 'Last-Modified');
    const entry = (await manifestOf()).files.find((f) => f.name === EXPORT_FILES.anonymous);
    assert.deepEqual([entry?.sha256, entry?.bytes], [sha, body.length]);
    const reader = new Reader<Record<string, unknown>>(body);
    assert.equal(reader.get('185.65.134.10')?.['is_anonymous_vpn'], true);
    assert.equal(reader.get('81.2.69.20'), null, 'not flagged yet');
    // the files the keeper was asked for (EXPORT_ONLY's default: the MMDB files), nothing half-written
    assert.deepEqual((await readdir(join(dir, 'export'))).sort(), [
      EXPORT_FILES.anonymous,
      EXPORT_FILES.asn,
      EXPORT_FILES.city,
      EXPORT_FILES.manifest,
    ]);
  });

  it('answers 304 to If-None-Match and If-Modified-Since, and HEAD without a body', async () => {
    const path = `/export/${EXPORT_FILES.city}`;
    const full = await request(path, { headers: AUTH });
    assert.equal(full.status, 200);
    const etag = full.headers.get('etag')!;
    const modified = full.headers.get('last-modified')!;
    await full.arrayBuffer();
    const byEtag = await request(path, { headers: { ...AUTH, 'if-none-match': etag } });
    assert.equal(byEtag.status, 304);
    assert.equal(byEtag.headers.get('etag'), etag);
    const byDate = await request(path, { headers: { ...AUTH, 'if-modified-since': modified } });
    assert.equal(byDate.status, 304);
    const stale = await request(path, { headers: { ...AUTH, 'if-none-match': '"other"' } });
    assert.equal(stale.status, 200);
    await stale.arrayBuffer();
    const head = await request(path, { method: 'HEAD', headers: AUTH });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), full.headers.get('content-length'));
    assert.equal((await head.arrayBuffer()).byteLength, 0);
  });

  it('refuses a caller without the METRICS_TOKEN, and names no file it does not know', async () => {
    const anonymous = await request(`/export/${EXPORT_FILES.city}`);
    assert.equal(anonymous.status, 401);
    assert.equal(
      ((await anonymous.json()) as { error: { code: string } }).error.code,
      'UNAUTHORIZED',
    );
    const wrong = await request(`/export/${EXPORT_FILES.city}`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    assert.equal(wrong.status, 401);
    await wrong.arrayBuffer();
    for (const name of ['city.mmdb', '..%2Fcity.mmdb', '%2E%2E%2Fexport%2Fipintel-city.mmdb']) {
      const res = await request(`/export/${name}`, { headers: AUTH });
      assert.equal(res.status, 404, name);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
    }
  });

  it('rebuilds after a data swap (a new feed, SIGHUP): a new ETag, the new answer inside', async () => {
    await writeFeeds(join(dir, 'data'), [
      storedFeed('nordvpn', 'vpn', ['81.2.69.20/32'], { provider: 'nordvpn' }),
    ]);
    service.kill('SIGHUP');
    const etag = await builtEtag(firstEtag);
    assert.notEqual(etag, firstEtag);
    const res = await request(`/export/${EXPORT_FILES.anonymous}`, { headers: AUTH });
    const reader = new Reader<Record<string, unknown>>(Buffer.from(await res.arrayBuffer()));
    assert.equal(reader.get('81.2.69.20')?.['is_anonymous_vpn'], true);
    // the node's old copy is stale now
    const old = await request(`/export/${EXPORT_FILES.anonymous}`, {
      headers: { ...AUTH, 'if-none-match': firstEtag },
    });
    assert.equal(old.status, 200);
    await old.arrayBuffer();
    // the build is counted when its child has exited, a moment after its files are
    // served: the count is waited for, not read once
    let builds: string[] = [];
    await until(
      async () => {
        const metrics = await (await request('/metrics', { headers: AUTH })).text();
        builds = metrics.split('\n').filter((line) => line.startsWith('ipintel_export_builds{'));
        return !builds.includes('ipintel_export_builds{result="ok"} 1');
      },
      120_000,
      50,
    );
    assert.ok(builds.includes('ipintel_export_builds{result="ok"} 2'), builds.join('\n'));
    assert.ok(builds.includes('ipintel_export_builds{result="failed"} 0'), builds.join('\n'));
  });
});
