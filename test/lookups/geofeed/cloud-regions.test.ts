// The clouds' own regions placing their prefixes (docs/data.md, "Cloud
// regions"): the committed table, the range parsers keeping each prefix's
// region, and the whole path through the real service — range files fetched
// from a loopback server by the updater, compiled with a geofeed, answered
// by the spawned service. Then the recorded range files of
// ../shared/fixtures/feeds (when that folder exists) placed by the table.
import { strict as assert } from 'node:assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  loadCloudRegions,
  parseCloudRegions,
  placeCloudFeed,
  type CloudRegion,
} from '../../../src/lookups/geofeed/cloud-regions.js';
import { GeofeedHolder } from '../../../src/lookups/geofeed/geofeed-holder.js';
import { GeofeedIndex } from '../../../src/lookups/geofeed/geofeed-index.js';
import { PlaceResolver } from '../../../src/lookups/geofeed/place-resolve.js';
import { subdivisionNames } from '../../../src/lookups/geofeed/subdivision-names.js';
import { loadGeoData } from '../../../src/lookups/geoip/load.js';
import { DEFAULT_FEEDS } from '../../../src/lookups/vpn/feeds/default-feeds.js';
import {
  feedFileName,
  feedsDir,
  serialiseFeed,
} from '../../../src/lookups/vpn/feeds/feed-store.js';
import type { ParsedFeed } from '../../../src/lookups/vpn/feeds/feed-types.js';
import { updateFeeds, type FeedSpec } from '../../../src/lookups/vpn/feeds/feed-updater.js';
import { parseIp } from '../../../src/net/ip.js';
import { startFeedServer, type FeedServer } from '../../helpers/feed-server.js';
import { getOnce } from '../../helpers/http-get.js';
import { spawnService, type SpawnedService } from '../../helpers/spawned-service.js';
import type { GeoIpRecord } from '../../../src/lookups/geoip/geoip.js';

const OWN = join(import.meta.dirname, '..', '..', 'fixtures', 'cloud-regions');
const RECORDED = join(import.meta.dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'feeds');
const RECORDED_FILES: Readonly<Record<string, string>> = {
  aws: 'aws.json',
  gcp: 'gcp.json',
  azure: 'azure.json',
  oracle: 'oracle.json',
};

const table = loadCloudRegions();
const row = (provider: string, region: string): CloudRegion => {
  const found = table.get(provider)?.get(region);
  assert.ok(found, `${provider} ${region} in resources/cloud-regions.csv`);
  return found;
};

/** A default feed's spec with its URL replaced (Azure's page lookup dropped) and any size accepted. */
function spec(id: string, url: string): FeedSpec {
  const known = DEFAULT_FEEDS.find((f) => f.id === id);
  assert.ok(known, id);
  const rest: FeedSpec = { ...known, url, minPrefixes: 1 };
  delete (rest as { linkPattern?: RegExp }).linkPattern;
  return rest;
}

function parsed(id: string, body: string): ParsedFeed {
  return spec(id, '').parser(body, id);
}

/** The region parsed for a prefix, or null. */
function regionOf(feed: ParsedFeed, prefix: string): string | null {
  const i = feed.prefixes.indexOf(prefix);
  assert.notEqual(i, -1, prefix);
  const at = feed.regions?.regionOf[i] ?? -1;
  return at === -1 ? null : feed.regions!.regions[at]!;
}

describe('the cloud regions table (resources/cloud-regions.csv)', () => {
  it('places regions of every provider, each row with its documentation page', () => {
    for (const provider of ['aws', 'gcp', 'azure', 'oracle']) {
      const rows = [...(table.get(provider)?.values() ?? [])];
      assert.ok(rows.filter((r) => r.country !== '').length >= 3, provider);
      for (const r of rows) assert.match(r.source, /^https:\/\//, `${provider} ${r.region}`);
    }
    // global and anycast scopes are listed without a place
    assert.equal(row('aws', 'GLOBAL').country, '');
    assert.equal(row('gcp', 'global').country, '');
  });

  it('refuses a malformed row, naming its line', () => {
    const head = 'provider,region,country,subdivision,city,documented,source\n';
    const url = 'https://example.com/regions';
    const bad: [string, RegExp][] = [
      [`aws,r-1,DE,FR-IDF,Paris,x,${url}`, /line 2: subdivision FR-IDF is not one of DE/],
      [`aws,r-1,DE,,,x,${url}\naws,r-1,DE,,,x,${url}`, /line 3: aws r-1 listed twice/],
      [`aws,r-1,DE,,,x,http://example.com`, /not an https URL/],
      [`nimbus,r-1,DE,,,x,${url}`, /unknown provider/],
      [`aws,r-1,,,Paris,x,${url}`, /a city without a country/],
    ];
    for (const [rows, message] of bad) {
      assert.throws(() => parseCloudRegions(head + rows), message);
    }
    assert.throws(() => parseCloudRegions(`aws,r-1,DE,,,x,${url}`), /expected header/);
  });
});

describe('the cloud range parsers keep each prefix’s region', () => {
  const own = (name: string) => readFileSync(join(OWN, name), 'utf8');

  it('AWS: a prefix listed for two services once, with its region; GLOBAL kept as named', () => {
    const aws = parsed('aws', own('aws.json'));
    assert.equal(aws.prefixes.filter((p) => p === '52.219.170.0/23').length, 1);
    assert.equal(regionOf(aws, '52.219.170.0/23'), 'eu-central-1');
    assert.equal(regionOf(aws, '2a05:d070:b000::/40'), 'eu-central-1');
    assert.equal(regionOf(aws, '205.251.249.0/24'), 'GLOBAL');
  });

  it('Azure: a prefix of the global tag and a regional one takes the region', () => {
    const azure = parsed('azure', own('azure.json'));
    assert.equal(regionOf(azure, '4.147.0.0/16'), 'australiaeast');
    assert.equal(regionOf(azure, '4.199.128.0/17'), 'australiacentral');
    assert.equal(regionOf(azure, '4.144.0.0/17'), null);
  });

  it("GCP's scope and Oracle's region", () => {
    assert.equal(regionOf(parsed('gcp', own('gcp.json')), '34.35.0.0/16'), 'africa-south1');
    assert.equal(regionOf(parsed('oracle', own('oracle.json')), '129.80.0.0/16'), 'us-ashburn-1');
  });
});

describe('stored cloud feeds read for placing', () => {
  it('places the good files; a damaged one and one stored before regions were kept are not placed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipintel-cloud-stored-'));
    try {
      const own = (name: string) => readFileSync(join(OWN, name), 'utf8');
      const results = await Promise.all(
        ['gcp', 'oracle'].map(async (id) => {
          const server = await startFeedServer({ '/f.json': { body: own(`${id}.json`) } });
          try {
            return await updateFeeds({ dataDir: dir, feeds: [spec(id, server.url('/f.json'))] });
          } finally {
            await server.close();
          }
        }),
      );
      assert.ok(results.flat().every((r) => r.ok));
      // gcp's regions cut short: one index per prefix no more
      const gcpFile = join(dir, feedFileName('gcp'));
      const gcp = JSON.parse(readFileSync(gcpFile, 'utf8')) as { regionOf: number[] };
      writeFileSync(gcpFile, JSON.stringify({ ...gcp, regionOf: gcp.regionOf.slice(1) }));
      // an aws file as stored before this change: prefixes, no regions
      const aws = parsed('aws', own('aws.json'));
      writeFileSync(
        join(dir, feedFileName('aws')),
        serialiseFeed({
          format: 'ipintel-feed/1',
          feed: 'aws',
          kind: 'hosting',
          url: '',
          fetchedAt: '2026-01-01T00:00:00.000Z',
          publishedAt: null,
          prefixes: aws.prefixes,
        }),
      );
      const holder = await GeofeedHolder.open({ feedsDir: dir, geoip: () => null });
      assert.deepEqual(
        holder.current.feeds.map((f) => [f.feed, f.kind]),
        [['oracle', 'cloud-region']],
      );
      assert.equal(holder.problems.length, 1, holder.problems.join('\n'));
      assert.match(holder.problems[0]!, /gcp\.feed\.json.*bad regions/);
      assert.equal(holder.current.locate(parseIp('129.80.0.1')!)?.country, 'US');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cloud regions through the real service', () => {
  let server: FeedServer;
  let service: SpawnedService;
  let bare: SpawnedService;
  let dir: string;
  before(async () => {
    const body = (name: string) => ({ body: readFileSync(join(OWN, name), 'utf8') });
    server = await startFeedServer({
      '/aws.json': body('aws.json'),
      '/gcp.json': body('gcp.json'),
      '/azure.json': body('azure.json'),
      '/oracle.json': body('oracle.json'),
      '/geofeed.csv': body('geofeed.csv'),
    });
    dir = mkdtempSync(join(tmpdir(), 'ipintel-cloud-regions-'));
    const results = await updateFeeds({
      // where the service reads DATA_DIR's feeds
      dataDir: feedsDir(dir),
      feeds: [
        ...['aws', 'gcp', 'azure', 'oracle'].map((id) => spec(id, server.url(`/${id}.json`))),
        // AWS's own geofeed, over two of its range prefixes
        spec('geofeed-aws', server.url('/geofeed.csv')),
      ],
    });
    assert.deepEqual(
      results.filter((r) => !r.ok).map((r) => [r.feed, r.error]),
      [],
    );
    service = await spawnService({ DATA_DIR: dir, LOG_LEVEL: 'warn' });
    // the same data without feeds: what the tables alone answer
    bare = await spawnService({ LOG_LEVEL: 'warn' });
  });
  after(async () => {
    service?.kill();
    bare?.kill();
    await service?.exited;
    await bare?.exited;
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const lookup = (ip: string) => lookupOn(service.port, ip);

  async function lookupOn(port: number, ip: string) {
    const reply = await getOnce(port, `/ip/${ip}`);
    assert.equal(reply.status, 200, reply.body);
    const { data } = JSON.parse(reply.body) as { data: GeoIpRecord };
    return { ...data, source: String(reply.headers['x-location-source'] ?? '') };
  }

  /**
   * Each test address with its region's row, and what the tables alone
   * answer for it (the same service without feeds): a region places an
   * address only where the tables name another country.
   */
  const CASES = [
    ['52.93.126.135', 'aws', 'eu-central-1'],
    ['52.93.127.27', 'aws', 'eu-west-1'],
    ['52.93.244.7', 'aws', 'eu-central-1'],
    ['2a05:d070:b000::1', 'aws', 'eu-central-1'],
    // a Local Zone's prefix: its range file says us-east-1, the tables say Houston
    ['15.181.232.9', 'aws', 'us-east-1'],
    ['129.80.1.1', 'oracle', 'us-ashburn-1'],
    ['34.35.0.9', 'gcp', 'africa-south1'],
    ['4.147.0.9', 'azure', 'australiaeast'],
  ] as const;

  it('a region places an address where the tables name another country: its country, city, point and time zone as documented', async () => {
    const placed: string[] = [];
    for (const [ip, provider, region] of CASES) {
      const tables = await lookupOn(bare.port, ip);
      const documented = row(provider, region);
      if (tables.country === documented.country) continue;
      placed.push(ip);
      const answer = await lookup(ip);
      assert.equal(answer.source, `cloud-region=${provider}`, ip);
      assert.equal(answer.country, documented.country, ip);
      assert.equal(answer.city, documented.city === '' ? null : documented.city, ip);
      if (documented.city === 'Frankfurt am Main') {
        assert.deepEqual([answer.region, answer.timezone], ['Hesse', 'Europe/Berlin']);
        // the data's point of Frankfurt am Main, not the country's
        assert.ok(Math.abs(answer.latitude! - 50.11) < 0.2, String(answer.latitude));
        assert.ok(Math.abs(answer.longitude! - 8.68) < 0.2, String(answer.longitude));
      }
      if (documented.city === '') {
        // a region documented only as a country: no city or point is made up
        assert.deepEqual([answer.city, answer.latitude], [null, null], ip);
      }
    }
    assert.ok(
      placed.length >= 2,
      `the cases hold addresses the tables put elsewhere: ${placed.join(', ')}`,
    );
  });

  it("where the tables agree on the country, their place stands (finer than a region's or as fine)", async () => {
    const kept: string[] = [];
    for (const [ip, provider, region] of CASES) {
      const tables = await lookupOn(bare.port, ip);
      if (tables.country !== row(provider, region).country) continue;
      kept.push(ip);
      const answer = await lookup(ip);
      assert.doesNotMatch(answer.source, /cloud-region/, ip);
      assert.deepEqual(
        [answer.country, answer.region, answer.city, answer.latitude, answer.longitude],
        [tables.country, tables.region, tables.city, tables.latitude, tables.longitude],
        ip,
      );
    }
    assert.ok(kept.length >= 4, `the cases hold addresses the tables agree on: ${kept.join(', ')}`);
  });

  it("a network's geofeed wins: the same prefix, and a shorter one holding a region's", async () => {
    const same = await lookup('52.219.170.9');
    assert.equal(same.source, 'geofeed=geofeed-aws');
    assert.equal(same.city, 'Berlin');
    const shorter = await lookup('3.5.140.9');
    assert.equal(shorter.source, 'geofeed=geofeed-aws');
    assert.equal(shorter.city, 'Busan');
  });

  it('places no global scope, no prefix without a region and no unknown region', async () => {
    for (const ip of [
      '205.251.249.9',
      '2600:9000:3000::1',
      '34.8.0.9',
      '4.144.0.9',
      '15.230.221.9',
    ]) {
      const answer = await lookup(ip);
      assert.doesNotMatch(answer.source, /cloud-region/, ip);
    }
    // the unknown region is a logged problem, and the service runs
    const problems = service
      .logLines<{ problem?: string; msg?: string }>()
      .filter((l) => l.msg === 'geofeed file or cloud region skipped')
      .map((l) => l.problem ?? '')
      .filter((p) => p.includes('xx-nowhere-1'));
    assert.equal(problems.length, 1, service.stdout());
    assert.match(problems[0]!, /aws: region xx-nowhere-1 \(1 prefixes\) is not in/);
    assert.ok(!service.stdout().includes('"region GLOBAL'), 'GLOBAL is skipped silently');
  });

  it("names each cloud's source in GET /", async () => {
    const reply = await getOnce(service.port, '/');
    const info = JSON.parse(reply.body) as {
      data: {
        locationSources: { id: string; kind: string }[];
        geofeeds: { id: string; kind: string; prefixes: number; skippedRows: number }[];
      };
    };
    const ids = info.data.locationSources.filter((s) => s.kind === 'cloud-region').map((s) => s.id);
    assert.deepEqual(ids.sort(), [
      'cloud-region=aws',
      'cloud-region=azure',
      'cloud-region=gcp',
      'cloud-region=oracle',
    ]);
    const aws = info.data.geofeeds.find((f) => f.id === 'aws' && f.kind === 'cloud-region');
    // 10 distinct prefixes: 7 placed; GLOBAL ×2 and the unknown region not
    assert.deepEqual([aws?.prefixes, aws?.skippedRows], [7, 3]);
  });
});

describe(
  'the recorded range files placed by the table',
  {
    skip: existsSync(RECORDED)
      ? false
      : 'no ../shared/fixtures/feeds here: the recorded range files are replayed where they exist (CI)',
  },
  () => {
    it('places each region the table documents at its country; reports the others', async () => {
      const geo = await loadGeoData(
        { geoipDb: null, asnDb: null, dataDir: '/nonexistent' },
        pino({ level: 'silent' }),
      );
      const names = await subdivisionNames();
      for (const [id, file] of Object.entries(RECORDED_FILES)) {
        const path = join(RECORDED, file);
        if (!existsSync(path)) continue;
        const feed = parsed(id, readFileSync(path, 'utf8'));
        const regions = feed.regions;
        assert.ok(regions !== undefined && regions.regions.length > 0, id);
        const { placed, problems } = placeCloudFeed(
          { feed: id, fetchedAt: '', publishedAt: null, prefixes: feed.prefixes, ...regions },
          table,
        );
        assert.ok(placed.prefixes.length > 0, id);
        // every region named is placed, a global scope, or a reported problem
        for (const name of regions.regions) {
          const known = table.get(id)?.get(name);
          const reported = problems.some((p) => p.includes(`region ${name} (`));
          assert.ok(known !== undefined ? !reported : reported, `${id} ${name}`);
        }
        const index = GeofeedIndex.build(
          [placed],
          (places) => new PlaceResolver(geo.tables.geoip, places, names),
        );
        // every placed prefix answers its region's country, from the compiled table
        placed.prefixes.forEach((prefix, i) => {
          const [country] = placed.places[placed.placeOf[i]!]!;
          const first = parseIp(prefix.slice(0, prefix.indexOf('/')));
          assert.ok(first !== null, prefix);
          const answer = index.locate(first);
          assert.equal(answer?.country, country, `${id} ${prefix}`);
          assert.equal(answer?.kind, 'cloud-region');
        });
      }
    });
  },
);
