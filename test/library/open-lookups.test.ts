// The library (src/library/) against the service: a DATA_DIR with real feed
// formats (VPN list, Tor exits, a relay's and a network's geofeeds, fetched
// by the updater from a loopback server) and an overrides file, opened by
// openLookups and served by the service over loopback; geo() and vpn() of
// 1,000 seeded addresses equal /ip/:ip and /ip/:ip/vpn, key order included;
// lookup() has geoip-lite's shape, keys in the order geoip-lite itself writes.
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { iso31662 } from 'iso-3166';
import { openLookups, type Lookups } from '../../src/library/index.js';
import { DEFAULT_FEEDS } from '../../src/lookups/vpn/feeds/default-feeds.js';
import { GEOFEED_FEEDS } from '../../src/lookups/geofeed/geofeed-feeds.js';
import { feedsDir } from '../../src/lookups/vpn/feeds/feed-store.js';
import { updateFeeds } from '../../src/lookups/vpn/feeds/feed-updater.js';
import { formatIpv4, formatIpv6, parseIp } from '../../src/net/ip.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';
import { get, silentLog, startService, type TestService } from '../helpers/service.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const geoipLite = createRequire(import.meta.url)('geoip-lite') as {
  lookup(ip: string | number): Record<string, unknown> | null;
};

/** feed id → fixture file the loopback server serves for it */
const FEED_FILES: Record<string, string> = {
  'x4b-vpn': 'feeds/x4b-vpn-ipv4.txt',
  'tor-exits': 'feeds/tor-bulk-exit-list.txt',
  'apple-icloud-private-relay': 'geofeeds/relay-example.csv',
  'cloudflare-warp': 'geofeeds/warp-example.csv',
  'geofeed-eastlink': 'geofeeds/network-example.csv',
};

/** The fixtures' networks: where the feeds, geofeeds and overrides speak. */
function fixturePrefixes(): string[] {
  return Object.values(FEED_FILES).flatMap((file) =>
    readFileSync(join(FIXTURES, file), 'utf8')
      .split('\n')
      .map((line) =>
        line
          .replace(/^\uFEFF/, '')
          .split(',')[0]!
          .trim(),
      )
      .filter((text) => /^[0-9a-f.:]+(\/\d+)?$/i.test(text)),
  );
}

const random = seededRandom();

const toNumber = (text: string): number => (parseIp(text) as { value: number }).value;

/** 1,000 addresses: random IPv4 and IPv6 (bogons among them), the fixtures' networks, and mapped forms. */
function addresses(): string[] {
  const out: string[] = [];
  const prefixes = fixturePrefixes();
  for (const prefix of prefixes) out.push(prefix.split('/')[0]!);
  while (out.length < 1000) {
    const roll = random.below(10);
    if (roll < 6) out.push(formatIpv4(random.u32()));
    else if (roll < 8) {
      // global unicast mostly, now and then anywhere
      const groups = Array.from({ length: 8 }, () => random.below(0x10000));
      if (random.chance(0.8)) groups[0] = 0x2000 | (groups[0]! & 0x1fff);
      out.push(formatIpv6(groups));
    } else if (roll < 9) out.push(`::ffff:${formatIpv4(random.u32())}`);
    else {
      // inside a fixture network: a feed, geofeed or override answers
      const base = random.pick(prefixes).split('/')[0]!;
      out.push(
        base.includes(':') ? base.replace(/::$/, `::${random.below(0x10000).toString(16)}`) : base,
      );
    }
  }
  return out;
}

describe('openLookups', () => {
  let dir: string;
  let service: TestService;
  let lookups: Lookups;
  const sample = addresses();

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ipintel-library-'));
    const server = await startFeedServer(
      Object.fromEntries(
        Object.entries(FEED_FILES).map(([id, file]) => [
          `/${id}`,
          { body: readFileSync(join(FIXTURES, file)) },
        ]),
      ),
    );
    const feeds = [...DEFAULT_FEEDS, ...GEOFEED_FEEDS]
      .filter((f) => f.id in FEED_FILES)
      .map((f) => ({ ...f, url: server.url(`/${f.id}`), minPrefixes: 1 }));
    try {
      const results = await updateFeeds({ dataDir: feedsDir(dir), feeds });
      assert.deepEqual(
        results.map((r) => [r.ok, r.feed]),
        feeds.map((f) => [true, f.id]),
      );
    } finally {
      await server.close();
    }
    // the operator's word, over a network's geofeed and over the data
    writeFileSync(
      join(dir, 'overrides.csv'),
      'network,country,region,city,label\n24.89.225.128/26,US,Massachusetts,Boston,office\n8.8.8.8/30,,,Mountain View,dns\n',
    );
    service = await startService({ env: { DATA_DIR: dir, RATE_LIMIT_MAX: '1000000' } });
    lookups = await openLookups({ env: {}, dataDir: dir, logger: silentLog });
  });

  after(async () => {
    await service?.close();
    lookups?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers geo() and vpn() with the service's records, byte for byte as JSON", async () => {
    for (const ip of sample) {
      const [geo, vpn] = await Promise.all([
        get(service.baseUrl, `/ip/${ip}`),
        get(service.baseUrl, `/ip/${ip}/vpn`),
      ]);
      assert.equal(geo.status, 200, ip);
      withSeed(random, () => {
        assert.equal(JSON.stringify({ data: lookups.geo(ip) }), geo.text, ip);
        assert.equal(JSON.stringify({ data: lookups.vpn(ip) }), vpn.text, ip);
      });
    }
    // the sample reached what the feeds, geofeeds and overrides say
    const records = sample.map((ip) => lookups.vpn(ip));
    for (const flag of ['isVpn', 'isTor', 'isRelay', 'isHosting'] as const) {
      assert.ok(
        records.some((r) => r[flag]),
        flag,
      );
    }
    assert.equal(lookups.geo('24.89.225.130').city, 'Boston');
    assert.equal(lookups.geo('24.89.200.1').city, 'Halifax');
  });

  it('refuses what the API refuses, with its code and message', async () => {
    for (const bad of ['nope', '1.2.3', '010.1.1.1', 'fe80::1%eth0', '']) {
      const res = await get(service.baseUrl, `/ip/${encodeURIComponent(bad)}`);
      if (res.status !== 400) continue; // '' is another route over HTTP
      const body = res.body as { error: { code: string; message: string } };
      for (const call of [() => lookups.geo(bad), () => lookups.vpn(bad)]) {
        assert.throws(call, (error: { code?: string; message?: string }) => {
          assert.equal(error.code, body.error.code);
          assert.equal(error.message, body.error.message);
          return true;
        });
      }
    }
    assert.throws(() => lookups.geo(''), { code: 'INVALID_IP' });
    // a configuration the service refuses, the library refuses the same way
    await assert.rejects(openLookups({ env: { PROXY_LIST_MAX_AGE_HOURS: 'soon' } }), {
      name: 'ConfigError',
      message: /PROXY_LIST_MAX_AGE_HOURS/,
    });
  });

  it("answers lookup() with geoip-lite's object, made from the record", () => {
    const keyOrder = (ip: string) => Object.keys(geoipLite.lookup(ip)!);
    const isoCodes = new Set(iso31662.map((e) => e.code));
    let withRegion = 0;
    let coded = 0;
    withSeed(random, () => {
      for (const ip of sample) {
        const record = lookups.geo(ip);
        const answer = lookups.lookup(ip);
        const placed = record.country !== null || record.latitude !== null || record.city !== null;
        if (record.bogon || !placed) {
          assert.equal(answer, null, ip);
          continue;
        }
        assert.ok(answer !== null, ip);
        const v4 = !record.ip.includes(':');
        assert.deepEqual(Object.keys(answer), keyOrder(v4 ? '8.8.8.8' : '2001:4860:4860::8888'));
        assert.equal(answer.country, record.country ?? '');
        assert.equal(answer.city, record.city ?? '');
        assert.equal(answer.timezone, record.timezone ?? '');
        assert.deepEqual(answer.ll, [record.latitude, record.longitude]);
        assert.deepEqual([answer.metro, answer.area], [0, record.accuracyRadiusKm ?? 0]);
        assert.equal(
          answer.eu,
          ['DE', 'FR', 'IE', 'NL', 'SE'].includes(answer.country) ? '1' : answer.eu,
        );
        if (['US', 'GB', 'CH', 'NO', 'CA'].includes(answer.country)) assert.equal(answer.eu, '0');
        if (record.region !== null) {
          withRegion++;
          if (answer.region !== '') {
            coded++;
            assert.ok(isoCodes.has(`${answer.country}-${answer.region}`), `${ip} ${answer.region}`);
          }
        } else assert.equal(answer.region, '');
        if (v4) {
          const range = answer.range as [number, number];
          const value = lookups.lookup(record.ip)!.range as [number, number];
          assert.deepEqual(range, value);
          const n = toNumber(record.ip);
          assert.ok(range[0] <= n && n <= range[1], ip);
          // geoip-lite takes an IPv4 address as its number too
          assert.deepEqual(lookups.lookup(n), answer);
          // and every address of the range answers the same place
          for (const end of range) {
            const other = lookups.lookup(end)!;
            assert.deepEqual({ ...other, range: 0 }, { ...answer, range: 0 }, `${ip} ${end}`);
          }
        } else assert.equal(answer.range, '');
      }
    });
    // an override's network and a geofeed's prefix bound the range
    for (const [ip, first, last] of [
      ['8.8.8.9', '8.8.8.8', '8.8.8.11'],
      ['24.89.225.130', '24.89.225.128', '24.89.225.191'],
      ['24.89.200.1', '24.89.192.0', '24.89.223.255'],
    ] as const) {
      const answer = lookups.lookup(ip)!;
      const [start, end] = answer.range as [number, number];
      assert.ok(start >= toNumber(first) && end <= toNumber(last), `${ip}: ${start}-${end}`);
      for (const at of [start, end]) {
        assert.deepEqual({ ...lookups.lookup(at)!, range: 0 }, { ...answer, range: 0 }, ip);
      }
    }
    // the names of the data mostly have a code (the rest answer '', as in geoip-lite)
    assert.ok(withRegion > 100 && coded / withRegion > 0.8, `${coded} of ${withRegion}`);
    const us = sample
      .map((ip) => lookups.geo(ip))
      .find((r) => r.country === 'US' && r.region === 'California');
    if (us !== undefined) assert.equal(lookups.lookup(us.ip)!.region, 'CA');
    for (const nothing of [
      'nope',
      '',
      '10.1.2.3',
      '192.168.0.1',
      '::1',
      'fe80::1%eth0',
      -1,
      2 ** 32,
    ]) {
      assert.equal(lookups.lookup(nothing), null, String(nothing));
    }
  });

  it('reads edited data again on reload(), and refuses calls once closed', async () => {
    const ip = '8.8.8.8';
    assert.equal(lookups.geo(ip).city, 'Mountain View');
    writeFileSync(join(dir, 'overrides.csv'), 'network,city,label\n8.8.8.0/24,Reloaded City,dns\n');
    await lookups.reload();
    assert.equal(lookups.geo(ip).city, 'Reloaded City');
    assert.equal(lookups.lookup(ip)!.city, 'Reloaded City');
    assert.ok(lookups.dataSets().some((d) => d.kind === 'geoip'));
    const other = await openLookups({ env: {}, dataDir: dir, logger: silentLog });
    other.close();
    assert.throws(() => other.geo(ip), { code: 'SERVICE_UNAVAILABLE' });
    assert.throws(() => other.lookup(ip), { code: 'SERVICE_UNAVAILABLE' });
    await assert.rejects(other.reload(), { code: 'SERVICE_UNAVAILABLE' });
  });
});
