// The exported files answer what the API answers: GeoIP and ASN data (in
// `npm test` a slice of the embedded data around the networks below, given as
// the operator's own files, GEOIP_DB and ASN_DB: test/export/sliced-data.ts;
// in `npm run test:full` the whole embedded data, minutes of one core), feeds of every kind (a provider's exits that the vpn-range rule
// expands, Tor, an open-proxy list, a cloud's ranges, IPv4 and IPv6) and
// overrides (a public range moved, private space given a place, an office
// VPN flagged) and RFC 8805 geofeeds (a network's and a privacy relay's,
// fetched by the updater from loopback) exported, then 20,000 (full: 100,000)
// seeded random IPv4/IPv6 addresses (half in the slice when sliced) and
// every feed and override edge read back from the files with mmdb-lib's
// reader and compared with the service's own lookups in process; a sample
// through the running service over HTTP too. The files are written by the
// command itself, `ipintel export`, as an operator runs it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { createGeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import { createVpnJson } from '../../src/lookups/vpn/record-json.js';
import { formatIpv4, formatIpv6, parseIp } from '../../src/net/ip.js';
import { cidrRanges } from '../../src/net/range-boundaries.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { startFeedServer } from '../helpers/feed-server.js';
import { GEOFEED_FEEDS } from '../../src/lookups/geofeed/geofeed-feeds.js';
import { feedsDir } from '../../src/lookups/vpn/feeds/feed-store.js';
import { updateFeeds } from '../../src/lookups/vpn/feeds/feed-updater.js';
import { storedFeed, vpnHostFeed, writeFeeds } from '../helpers/vpn-feeds.js';
import { dataOf, get, serviceData, startService, type TestService } from '../helpers/service.js';
import { entryArgs } from '../helpers/entry.js';
import { FULL, sized } from '../helpers/scale.js';
import { assertSame, openExport, type ExportReaders } from './export-check.js';
import { addressText, slicesOf, writeSlicedData, type Slice } from './sliced-data.js';

const FEEDS = [
  // three exits in one hosting /24: the vpn-range rule takes the block
  vpnHostFeed('mullvad', 'mullvad', [
    '185.65.134.10',
    '185.65.134.20',
    '185.65.134.30',
    '2a03:1b20:1::9',
  ]),
  storedFeed('tor-exits', 'tor', [
    '185.220.101.1/32',
    '185.220.101.2/32',
    '2001:67c:e60:c0c::1/128',
  ]),
  storedFeed('proxies-firehol', 'proxy', ['45.9.20.0/24', '185.220.101.2/32'], {
    // fresh: its entries count
    fetchedAt: new Date().toISOString(),
  }),
  storedFeed('aws', 'hosting', ['3.5.140.0/22', '52.94.0.0/16', '2600:1f00::/24']),
];

const OVERRIDES = [
  'network,country,city,latitude,longitude,label,isVpn,asn,org,provider',
  '8.8.8.0/24,DE,Berlin,52.52,13.405,berlin-office,,,,',
  '10.0.0.0/8,DE,,,,corp,,,,',
  '10.1.0.0/16,,Munich,,,munich,,,,',
  '10.8.0.0/16,,,,,office-vpn,true,AS64500,Example VPN,Example Corp',
  '"2001:db8::/32",FR,"Paris, 1er",,,doc-v6,,,,',
].join('\n');

const RANDOM_ADDRESSES = sized(20_000, 100_000);

/**
 * The sliced data: the real data's networks around the feeds', overrides' and
 * geofeeds' (test/fixtures/geofeeds) networks, in both families.
 */
const SLICE = [
  '8.8.0.0/20',
  '185.65.128.0/20',
  '185.220.96.0/20',
  '45.9.16.0/20',
  '3.5.128.0/20',
  '52.94.0.0/20',
  '24.89.192.0/18',
  '172.224.224.0/20',
  '104.16.0.0/20',
  '2a03:1b20::/32',
  '2001:67c:e60::/44',
  '2600:1f00::/28',
  '2a02:d0c0::/29',
  '2a02:26f7:b3c0::/40',
];

/** geofeeds by feed id: the recorded-style examples of test/fixtures/geofeeds */
const GEOFEEDS: Record<string, string> = {
  'apple-icloud-private-relay': 'relay-example.csv',
  'geofeed-eastlink': 'network-example.csv',
};
const GEOFEED_DIR = join(import.meta.dirname, '..', 'fixtures', 'geofeeds');

/** The geofeeds fetched by the updater from a loopback server into `dir`'s feeds; their prefixes. */
async function storeGeofeeds(dir: string): Promise<string[]> {
  const bodies = Object.fromEntries(
    await Promise.all(
      Object.values(GEOFEEDS).map(async (name) => [name, await readFile(join(GEOFEED_DIR, name))]),
    ),
  ) as Record<string, Buffer>;
  const server = await startFeedServer(
    Object.fromEntries(Object.keys(bodies).map((name) => [`/${name}`, { body: bodies[name]! }])),
  );
  try {
    const feeds = GEOFEED_FEEDS.filter((f) => f.id in GEOFEEDS).map((f) => ({
      ...f,
      url: server.url(`/${GEOFEEDS[f.id]!}`),
      minPrefixes: 1,
    }));
    const results = await updateFeeds({ dataDir: feedsDir(dir), feeds });
    assert.deepEqual(
      results.map((r) => r.ok),
      [true, true],
    );
  } finally {
    await server.close();
  }
  return Object.values(bodies).flatMap((body) =>
    body
      .toString('utf8')
      .split('\n')
      .map((line) =>
        line
          .replace(/^\uFEFF/, '')
          .split(',')[0]!
          .trim(),
      )
      .filter((prefix) => prefix !== '' && !prefix.startsWith('#')),
  );
}

let geofeedPrefixes: string[] = [];

let dir: string;
let readers: ExportReaders;
let lookup: (address: string) => { g: GeoIpRecord; d: VpnDetection };
let service: TestService;
let slices: Slice[] = [];
const random = seededRandom();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-export-'));
  await writeFeeds(dir, FEEDS);
  await writeFile(join(dir, 'overrides.csv'), OVERRIDES);
  geofeedPrefixes = await storeGeofeeds(dir);
  const env: Record<string, string> = {
    DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '1000000',
  };
  if (!FULL) {
    slices = slicesOf(SLICE);
    const sliced = writeSlicedData(dir, slices);
    assert.ok(sliced.cityNetworks > 200 && sliced.asnNetworks > 50, JSON.stringify(sliced));
    env['GEOIP_DB'] = sliced.geoipDb;
    env['ASN_DB'] = sliced.asnDb;
  }
  // the command itself, `ipintel export` (it starts itself again with its node
  // flags), in a process of its own while this one loads the same data: the
  // MMDB files only, the CSV (its slowest part) is tested on small data (real-readers)
  const exported = ipintelExport(env, join(dir, 'out'), 'city,asn,anonymous-ip');
  const data = await serviceData(loadConfig(env));
  const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
  const vpn = createVpnJson(geoip, data.vpn);
  lookup = (address) => {
    const ip = parseIp(address)!;
    return { g: geoip.lookup(ip), d: vpn.detection(ip) };
  };
  service = await startService({ env });
  await exported;
  readers = openExport(join(dir, 'out'));
});

/** `ipintel export --out <out> --only <only>` with `env` alone (and PATH). */
function ipintelExport(env: Record<string, string>, out: string, only: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const args = [...entryArgs('src/cli/main.ts'), 'export', '--out', out, '--only', only];
    const child = spawn(process.execPath, args, {
      env: { ...env, PATH: process.env['PATH'] ?? '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`ipintel export exited ${code}: ${stderr}`)),
    );
  });
}

after(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * A random address: in the sliced data half the time (when sliced), else
 * IPv4, IPv6 in global unicast (2000::/3), or anywhere past ::/96.
 */
function randomAddress(): string {
  if (slices.length > 0 && random.chance(0.5)) {
    const { family, start, end } = random.pick(slices);
    const span = end - start + 1n;
    return addressText(family, start + (random.bigBits(span.toString(2).length + 8) % span));
  }
  if (random.chance(0.5)) return formatIpv4(random.u32());
  const global = random.chance(0.8);
  for (;;) {
    const n = global ? (1n << 125n) | random.bigBits(125) : random.bigBits(128);
    // ::/96 is the IPv4 subtree in the file (the API calls ::a.b.c.d a bogon): its own test
    if (n >> 32n === 0n) continue;
    const groups: number[] = [];
    for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((n >> shift) & 0xffffn));
    return formatIpv6(groups);
  }
}

/** The first and last address of every feed prefix and override row, and their neighbours. */
function edges(): string[] {
  const texts = [
    ...FEEDS.flatMap((f) => f.prefixes),
    ...geofeedPrefixes,
    ...OVERRIDES.split('\n')
      .slice(1)
      .map((line) => line.replace(/^"?([^",]+)"?,.*$/, '$1')),
  ];
  const { v4, v6 } = cidrRanges(texts);
  const out: string[] = [];
  for (const r of v4) {
    for (const n of [r.start - 1, r.start, r.end, r.end + 1]) {
      if (n >= 0 && n < 2 ** 32) out.push(formatIpv4(n));
    }
  }
  for (const r of v6) {
    for (const n of [r.start - 1n, r.start, r.end, r.end + 1n]) {
      const groups: number[] = [];
      for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((n >> shift) & 0xffffn));
      out.push(formatIpv6(groups));
    }
  }
  return out;
}

describe('the exported files answer as the API', () => {
  it(`${RANDOM_ADDRESSES} seeded random IPv4 and IPv6 addresses`, () => {
    for (let i = 0; i < RANDOM_ADDRESSES; i++) {
      const address = randomAddress();
      const { g, d } = lookup(address);
      assertSame(readers, address, g, d, random.seed);
    }
  });

  it('every feed prefix and override row edge, and the addresses beside them', () => {
    const all = edges();
    assert.ok(all.length > 40);
    for (const address of all) {
      const { g, d } = lookup(address);
      assertSame(readers, address, g, d, random.seed);
    }
    // the rows of the test did reach the files (no check that cannot fail)
    assert.deepEqual(readers.city.get('8.8.8.8')?.['city'], { names: { en: 'Berlin' } });
    assert.equal(lookup('185.65.134.99').d.isVpn, true, 'the vpn-range rule expanded the /24');
    // a network's geofeed placed its /18 (the data alone says otherwise)
    assert.deepEqual(readers.city.get('24.89.192.1')?.['city'], { names: { en: 'Halifax' } });
  });

  it('an IPv4 address is found as itself and as IPv4-mapped IPv6; ::/96 is the IPv4 subtree', () => {
    for (const address of ['8.8.8.8', '1.1.1.1', '185.220.101.1', '10.8.0.1']) {
      const direct = readers.city.get(address);
      assert.deepEqual(readers.city.get(`::ffff:${address}`), direct, address);
      assert.deepEqual(readers.anonymous.get(`::ffff:${address}`), readers.anonymous.get(address));
      assert.deepEqual(readers.asn.get(`::${address}`), readers.asn.get(address));
    }
  });

  it('a sample through the running service over HTTP', async () => {
    const sample = [...edges().slice(0, 60), ...Array.from({ length: 140 }, randomAddress)];
    for (const address of sample) {
      const g = dataOf<GeoIpRecord>((await get(service.baseUrl, `/ip/${address}`)).body);
      const d = dataOf<VpnDetection>((await get(service.baseUrl, `/ip/${address}/vpn`)).body);
      assertSame(readers, address, g, d, random.seed);
    }
  });
});
