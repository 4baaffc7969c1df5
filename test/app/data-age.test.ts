// The age warnings of the location sources that come as feeds (issue 42):
// geofeeds, relay lists and the clouds' range files, stored in DATA_DIR as
// the updater stores them with their fetch times, through the real service.
// A copy fetched more than DATA_MAX_AGE_DAYS ago is one warning in GET / and
// /readyz, which stays ready; copies fetched since are not named.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { StoredFeed } from '../../src/lookups/vpn/feeds/feed-types.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import { storedFeed, writeFeeds } from '../helpers/vpn-feeds.js';

const DAY_MS = 86_400_000;
const fetched = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString();

/** a network's geofeed of one /24 in Halifax, fetched `daysAgo` days ago */
const geofeed = (id: string, third: number, daysAgo: number): StoredFeed =>
  storedFeed(id, 'geofeed', [`24.89.${third}.0/24`], {
    places: [['CA', 'CA-NS', 'Halifax']],
    placeOf: [0],
    fetchedAt: fetched(daysAgo),
  });

const dir = mkdtempSync(join(tmpdir(), 'ipintel-data-age-'));
const services: TestService[] = [];
after(async () => {
  for (const service of services) await service.close();
  rmSync(dir, { recursive: true, force: true });
});

/** /readyz and GET / of a service on a DATA_DIR holding `feeds`: their warnings about location sources */
async function warningsWith(name: string, feeds: StoredFeed[]): Promise<string[]> {
  const dataDir = join(dir, name);
  await writeFeeds(dataDir, feeds);
  const service = await startService({ env: { DATA_DIR: dataDir } });
  services.push(service);
  const ready = await get(service.baseUrl, '/readyz');
  assert.equal(ready.status, 200);
  const readiness = dataOf<{ status: string; warnings: string[] }>(ready.body);
  assert.equal(readiness.status, 'ready');
  const info = dataOf<{ warnings: string[] }>((await get(service.baseUrl, '/')).body);
  const about = (warnings: string[]) => warnings.filter((w) => w.startsWith('location source'));
  assert.deepEqual(about(info.warnings), about(readiness.warnings));
  return about(readiness.warnings);
}

describe('geofeeds, relay lists and cloud range files fetched long ago', () => {
  it('one stale copy: named, with its age and the limit', async () => {
    const warnings = await warningsWith('one', [
      geofeed('geofeed-old', 224, 100),
      geofeed('geofeed-fresh', 225, 1),
    ]);
    assert.deepEqual(warnings, [
      'location source "geofeed=geofeed-old" was fetched 100 days ago (more than 45): run `npm run update-data` or set FEED_UPDATE_INTERVAL_HOURS',
    ]);
  });

  it('several: one warning naming the oldest three, the cloud as X-Location-Source names it', async () => {
    const warnings = await warningsWith('several', [
      geofeed('geofeed-a', 224, 50),
      geofeed('geofeed-b', 225, 60),
      geofeed('geofeed-c', 226, 70),
      geofeed('geofeed-fresh', 227, 2),
      storedFeed('aws', 'hosting', ['3.5.140.0/23'], {
        regions: ['us-east-1'],
        regionOf: [0],
        fetchedAt: fetched(80),
      }),
    ]);
    assert.deepEqual(warnings, [
      'location sources "cloud-region=aws", "geofeed=geofeed-c", "geofeed=geofeed-b" and 1 more were fetched up to 80 days ago (more than 45): run `npm run update-data` or set FEED_UPDATE_INTERVAL_HOURS',
    ]);
  });

  it('none older than DATA_MAX_AGE_DAYS: no warning', async () => {
    assert.deepEqual(await warningsWith('fresh', [geofeed('geofeed-fresh', 224, 3)]), []);
  });
});
