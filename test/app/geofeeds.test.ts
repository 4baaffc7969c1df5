// Geofeeds and relays through the real service: feeds fetched by the updater
// from a loopback server into a DATA_DIR, the service started on it. An
// address in a relay's egress range, in a network's geofeed, in an override
// over a geofeed, and outside all of them.
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GEOFEED_BUCKET, radiusOf } from '../../src/lookups/geoip/reconcile/radius.js';
import { loadLocationRules } from '../../src/lookups/geoip/reconcile/rule-file.js';
import { after, before, describe, it } from 'node:test';
import { GEOFEED_FEEDS } from '../../src/lookups/geofeed/geofeed-feeds.js';
import { feedsDir } from '../../src/lookups/vpn/feeds/feed-store.js';
import { updateFeeds } from '../../src/lookups/vpn/feeds/feed-updater.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'geofeeds');

/** the `/ip/:ip` answer's data */
type Geo = GeoIpRecord;

interface Vpn {
  isVpn: boolean;
  isRelay: boolean;
  provider: string | null;
  reasons: string[];
}

describe('geofeeds and relays in the service', () => {
  let dir: string;
  let service: TestService;
  let plain: TestService;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ipintel-geofeed-service-'));
    const server = await startFeedServer({
      '/relay.csv': { body: readFileSync(join(FIXTURES, 'relay-example.csv')) },
      '/warp.csv': { body: readFileSync(join(FIXTURES, 'warp-example.csv')) },
      '/network.csv': { body: readFileSync(join(FIXTURES, 'network-example.csv')) },
    });
    const files: Record<string, string> = {
      'apple-icloud-private-relay': '/relay.csv',
      'cloudflare-warp': '/warp.csv',
      'geofeed-eastlink': '/network.csv',
    };
    const feeds = GEOFEED_FEEDS.filter((f) => f.id in files).map((f) => ({
      ...f,
      url: server.url(files[f.id]!),
      minPrefixes: 1,
    }));
    try {
      const results = await updateFeeds({ dataDir: feedsDir(dir), feeds });
      assert.deepEqual(
        results.map((r) => r.ok),
        [true, true, true],
      );
    } finally {
      await server.close();
    }
    mkdirSync(dir, { recursive: true });
    // the operator's word over the network's geofeed for one /24
    writeFileSync(
      join(dir, 'overrides.csv'),
      'network,country,region,city,label\n24.89.225.0/24,US,Massachusetts,Boston,office\n',
    );
    service = await startService({ env: { DATA_DIR: dir, RATE_LIMIT_MAX: '100000' } });
    plain = await startService({ env: { RATE_LIMIT_MAX: '100000' } });
  });

  after(async () => {
    await service?.close();
    await plain?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const geo = async (ip: string) => {
    const res = await get(service.baseUrl, `/ip/${ip}`);
    assert.equal(res.status, 200);
    return { record: dataOf<Geo>(res.body), source: res.headers.get('x-location-source') };
  };
  const vpn = async (ip: string) => dataOf<Vpn>((await get(service.baseUrl, `/ip/${ip}/vpn`)).body);

  it("answers a relay's egress address as a relay, named, at the feed's place", async () => {
    for (const ip of [
      '172.224.226.0',
      '172.224.226.17',
      '172.224.226.63',
      '2a02:26f7:b3c0:4000::1',
    ]) {
      const { record, source } = await geo(ip);
      assert.deepEqual(
        [record.country, record.city, record.region],
        ['GB', 'London', 'England'],
        ip,
      );
      assert.equal(record.timezone, 'Europe/London');
      assert.notEqual(record.latitude, null);
      // a geofeed's point has the radius the data's calibration gives geofeeds
      assert.equal(
        record.accuracyRadiusKm,
        radiusOf(GEOFEED_BUCKET, loadLocationRules().default.radii),
      );
      assert.ok((record.accuracyRadiusKm ?? 0) > 0);
      assert.equal(source, 'geofeed=apple-icloud-private-relay');
      const detection = await vpn(ip);
      assert.equal(detection.isRelay, true, ip);
      assert.equal(detection.isVpn, false, ip);
      assert.equal(detection.provider, 'iCloud Private Relay');
      assert.ok(detection.reasons.includes('relay:apple-icloud-private-relay'), ip);
    }
    const paris = await geo('2a02:26f7:b3c0:4001:ffff::1');
    assert.deepEqual([paris.record.country, paris.record.city], ['FR', 'Paris']);
    const warp = await vpn('104.28.9.149');
    assert.deepEqual([warp.isRelay, warp.provider], [true, 'Cloudflare WARP']);
    assert.ok(warp.reasons.includes('relay:cloudflare-warp'));
  });

  it('gives a country-only row its country and nulls, not the data’s city', async () => {
    const { record } = await geo('104.28.9.149');
    assert.deepEqual(
      [
        record.country,
        record.region,
        record.city,
        record.latitude,
        record.longitude,
        record.accuracyRadiusKm,
      ],
      ['DO', null, null, null, null, null],
    );
    assert.equal(record.timezone, 'America/Santo_Domingo');
    assert.equal(
      record.asn,
      (await get(plain.baseUrl, '/ip/104.28.9.149').then((r) => dataOf<Geo>(r.body))).asn,
    );
  });

  it("answers a network's geofeed: the most specific prefix's country, region and city", async () => {
    const halifax = await geo('24.89.200.1');
    assert.deepEqual(
      [halifax.record.country, halifax.record.region, halifax.record.city],
      ['CA', 'Nova Scotia', 'Halifax'],
    );
    assert.equal(halifax.source, 'geofeed=geofeed-eastlink');
    const moncton = await geo('24.89.230.1');
    assert.deepEqual([moncton.record.region, moncton.record.city], ['New Brunswick', 'Moncton']);
    const country = await geo('24.89.250.1');
    assert.deepEqual(
      [country.record.country, country.record.city, country.record.latitude],
      ['CA', null, null],
    );
    const v6 = await geo('2a06:e881:7300:ab::1');
    assert.deepEqual([v6.record.country, v6.record.city], ['DE', 'Frankfurt am Main']);
    assert.equal(v6.record.timezone, 'Europe/Berlin');
    // an ISO 3166-2 code the data names otherwise (District of Columbia), its
    // city named with more words there (Washington D.C.): found, point and zone
    const dc = await geo('100.15.241.190');
    assert.deepEqual(
      [dc.record.region, dc.record.city, dc.record.timezone],
      ['District of Columbia', 'Washington', 'America/New_York'],
    );
    assert.ok(Math.abs(dc.record.latitude! - 38.9) < 0.2, String(dc.record.latitude));
    assert.ok(Math.abs(dc.record.longitude! + 77.03) < 0.2, String(dc.record.longitude));
    // a network's geofeed says where, not what
    assert.equal((await vpn('24.89.200.1')).isRelay, false);
  });

  it("lets the operator's override win over a geofeed", async () => {
    const { record, source } = await geo('24.89.225.9');
    assert.deepEqual(
      [record.country, record.region, record.city],
      ['US', 'Massachusetts', 'Boston'],
    );
    assert.equal(source, 'override');
  });

  it("answers every other address as before, X-Location-Source naming the data's sources", async () => {
    for (const ip of [
      '8.8.8.8',
      '24.89.191.255',
      '24.90.0.1',
      '172.224.227.1',
      '2a02:26f7:b3c0:4002::1',
      '10.0.0.1',
    ]) {
      const [mine, before] = await Promise.all([
        get(service.baseUrl, `/ip/${ip}`),
        get(plain.baseUrl, `/ip/${ip}`),
      ]);
      assert.equal(mine.text, before.text, ip);
      assert.equal(
        mine.headers.get('x-location-source'),
        before.headers.get('x-location-source'),
        ip,
      );
      assert.doesNotMatch(mine.headers.get('x-location-source') ?? '', /geofeed/, ip);
      const [detection, plainDetection] = await Promise.all([
        vpn(ip),
        get(plain.baseUrl, `/ip/${ip}/vpn`),
      ]);
      assert.deepEqual(detection, dataOf(plainDetection.body), ip);
    }
  });

  it('says so in POST /batch, and lists the geofeeds with their age in GET /', async () => {
    const res = await get(service.baseUrl, '/batch?include=vpn', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '["172.224.226.5","24.89.230.1"]',
    });
    const results = dataOf<{ results: { data: Geo & { vpn: Vpn } }[] }>(res.body).results;
    assert.deepEqual(
      results.map((r) => [r.data.country, r.data.city, r.data.vpn.isRelay]),
      [
        ['GB', 'London', true],
        ['CA', 'Moncton', false],
      ],
    );
    assert.match(res.headers.get('x-data-version') ?? '', /; geofeeds=[0-9a-f]{12}; /);
    const info = dataOf<{
      geofeeds: { id: string; kind: string; ageDays: number; prefixes: number }[];
    }>((await get(service.baseUrl, '/')).body);
    assert.deepEqual(
      info.geofeeds.map((g) => [g.id, g.kind, g.prefixes]),
      [
        ['apple-icloud-private-relay', 'relay', 6],
        ['cloudflare-warp', 'relay', 3],
        ['geofeed-eastlink', 'geofeed', 5],
      ],
    );
    // the network geofeed says when it was made (2026-08-01)
    const eastlink = info.geofeeds.find((g) => g.id === 'geofeed-eastlink')!;
    assert.equal(
      eastlink.ageDays,
      Math.floor((Date.now() - Date.parse('2026-08-01T10:00:00Z')) / 86_400_000),
    );
  });
});
