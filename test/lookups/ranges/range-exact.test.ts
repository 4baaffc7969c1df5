// The range lists are exact: a listed block holds only addresses that
// GET /ip/:ip and /ip/:ip/vpn answer with the property, and no address with
// it is left out. On small synthetic data (GEOIP_DB and ASN_DB files written
// here, feeds of every kind, overrides, a geofeed) every elementary interval
// of all the sources (the export's cut, src/export/boundaries.ts) is checked
// at its first and last address, for every filter: the whole address space.
// On the embedded data, 10,000 seeded addresses inside each list and 10,000
// outside it, plus the edges of its blocks. The answers are the lookups'
// records in process, compared by the filter's definition (range-check.ts).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { createGeoIpLookup, type GeoIpLookup } from '../../../src/lookups/geoip/geoip.js';
import { createVpnJson, type VpnJson } from '../../../src/lookups/vpn/record-json.js';
import { boundarySources } from '../../../src/export/build-export.js';
import { mergeV4, mergeV6 } from '../../../src/export/boundaries.js';
import { parseIp } from '../../../src/net/ip.js';
import { PROJECT_ROOT } from '../../../src/kit/project-root.js';
import { ALIAS, NONE } from '../../../src/data/range-table.js';
import { PROVIDER_NAMES } from '../../../src/lookups/vpn/providers.js';
import { rangeRequest, rangeText } from '../../../src/routes/range-routes.js';
import type { RangeSources } from '../../../src/lookups/ranges/range-match.js';
import { buildMmdb, cityRecord, MmdbUint } from '../../helpers/mmdb-writer.js';
import { serviceData } from '../../helpers/service.js';
import { storedFeed, vpnHostFeed, writeFeeds } from '../../helpers/vpn-feeds.js';
import { seededRandom } from '../../helpers/seeded-random.js';
import { answersMatch, ipOf, listed, readList, type Listed, type Query } from './range-check.js';

const random = seededRandom();
const why = (text: string) => `${text} (TEST_SEED=${random.seed})`;

interface Loaded {
  geoip: GeoIpLookup;
  vpn: VpnJson;
  sources: RangeSources;
  boundaries: { v4: Uint32Array; v6: Uint32Array };
}

async function load(env: Record<string, string>): Promise<Loaded> {
  const data = await serviceData(loadConfig(env));
  const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
  const vpn = createVpnJson(geoip, data.vpn);
  const parts = boundarySources({
    geoip,
    vpn,
    feeds: data.vpn.current(),
    overrides: data.overrides.current,
    geofeeds: data.geofeeds.current,
  }).map((s) => s.boundaries());
  return {
    geoip,
    vpn,
    sources: { geoip, vpn, feeds: () => data.vpn.current() },
    boundaries: { v4: mergeV4(parts.map((b) => b.v4)), v6: mergeV6(parts.map((b) => b.v6)) },
  };
}

async function list(l: Loaded, q: Query): Promise<Record<4 | 6, Listed>> {
  let text = '';
  for await (const chunk of rangeText(
    l.sources,
    rangeRequest({ ...q, format: 'plain' }, undefined),
  ))
    text += chunk;
  return readList(text);
}

/** The answers of one address match the query. */
function expected(l: Loaded, q: Query, version: 4 | 6, n: bigint): boolean {
  const ip = ipOf(version, n);
  return answersMatch(q, l.geoip.lookup(ip), l.vpn.detection(ip), PROVIDER_NAMES);
}

const MAPPED_START = 0xffffn << 32n;
const MAPPED_END = MAPPED_START + (1n << 32n) - 1n;
const isMapped = (n: bigint) => n >= MAPPED_START && n <= MAPPED_END;

function check(l: Loaded, q: Query, lists: Record<4 | 6, Listed>, version: 4 | 6, n: bigint) {
  const inList = listed(lists[version], n);
  if (version === 6 && isMapped(n)) {
    // ::ffff:0:0/96 is answered as the IPv4 it carries: listed in IPv4 form only
    assert.equal(inList, false, why(`IPv4-mapped ${ipOf(6, n).text} is not listed`));
    return;
  }
  assert.equal(
    inList,
    expected(l, q, version, n),
    why(`${JSON.stringify(q)}: ${ipOf(version, n).text} ${inList ? 'listed' : 'not listed'}`),
  );
}

/** The starts of every elementary interval of a family (the export's cut), as BigInt. */
function intervalStarts(l: Loaded, version: 4 | 6): bigint[] {
  const { v4, v6 } = l.boundaries;
  return version === 4
    ? Array.from(v4, BigInt)
    : Array.from({ length: v6.length / 4 }, (_, i) =>
        [0, 1, 2, 3].reduce((n, w) => (n << 32n) | BigInt(v6[4 * i + w]!), 0n),
      );
}

/** Checks the first and last address of every elementary interval; how many are listed. */
async function checkEveryInterval(l: Loaded, q: Query): Promise<number> {
  const lists = await list(l, q);
  const families = (q.family === undefined ? [4, 6] : [Number(q.family)]) as (4 | 6)[];
  assert.ok(families.includes(4) || lists[4].starts.length === 0, 'family kept');
  assert.ok(families.includes(6) || lists[6].starts.length === 0, 'family kept');
  let matched = 0;
  for (const version of families) {
    const starts = intervalStarts(l, version);
    const top = version === 4 ? 2n ** 32n : 2n ** 128n;
    for (let i = 0; i < starts.length; i++) {
      const first = starts[i]!;
      check(l, q, lists, version, first);
      check(l, q, lists, version, (starts[i + 1] ?? top) - 1n);
      if (listed(lists[version], first)) matched++;
    }
  }
  return matched;
}

const OVERRIDES = [
  'network,country,city,label,isVpn,isHosting,asn,org,provider',
  // a public range moved to another country and flagged
  '81.2.69.128/25,FR,Paris,moved,,true,,,',
  // private space placed and named
  '10.0.0.0/8,DE,,corp,,,,,',
  '10.8.0.0/16,,,office-vpn,true,,64500,Example VPN,Example Corp',
  '"2a02:d0c0:1::/48",SE,,v6-moved,,,,,',
].join('\n');

/** Small City and ASN files, nested and neighbouring networks of a few countries and ASes. */
async function writeSyntheticData(dir: string): Promise<{ city: string; asn: string }> {
  const city = join(dir, 'city.mmdb');
  const asn = join(dir, 'asn.mmdb');
  const place = (country: string, name: string) => cityRecord({ country, city: name });
  await writeFile(
    city,
    buildMmdb({
      databaseType: 'GeoLite2-City',
      networks: [
        { network: '81.2.64.0/20', data: place('GB', 'London') },
        { network: '81.2.69.0/24', data: place('GB', 'Leeds') },
        { network: '81.2.70.0/23', data: place('IE', 'Dublin') },
        { network: '185.65.132.0/22', data: place('SE', 'Malmö') },
        { network: '185.65.134.0/24', data: place('SE', 'Stockholm') },
        { network: '185.220.100.0/22', data: place('DE', 'Berlin') },
        { network: '3.5.140.0/22', data: place('US', 'Ashburn') },
        { network: '24.89.192.0/18', data: place('US', 'Boston') },
        { network: '2a02:d0c0::/29', data: place('DE', 'Berlin') },
        { network: '2a02:d0c0:8000::/33', data: place('AT', 'Wien') },
        { network: '2a03:1b20::/32', data: place('SE', 'Malmö') },
        { network: '2600:1f00::/24', data: place('US', 'Ashburn') },
      ],
    }),
  );
  const as = (n: number, org: string) => ({
    autonomous_system_number: new MmdbUint(32, n),
    autonomous_system_organization: org,
  });
  await writeFile(
    asn,
    buildMmdb({
      databaseType: 'GeoLite2-ASN',
      networks: [
        { network: '81.2.64.0/19', data: as(20712, 'Andrews & Arnold Ltd') },
        { network: '185.65.134.0/23', data: as(39351, '31173 Services AB') },
        { network: '185.220.100.0/22', data: as(60729, 'Stiftung Erneuerbare Freiheit') },
        { network: '3.5.140.0/22', data: as(16509, 'Amazon.com, Inc.') },
        { network: '24.89.192.0/18', data: as(11260, 'Eastlink') },
        { network: '2a03:1b20::/32', data: as(39351, '31173 Services AB') },
        { network: '2600:1f00::/24', data: as(16509, 'Amazon.com, Inc.') },
        { network: '2a02:d0c0::/29', data: as(8767, 'M-net') },
      ],
    }),
  );
  return { city, asn };
}

const FEEDS = [
  vpnHostFeed('mullvad', 'mullvad', [
    '185.65.134.10',
    '185.65.134.20',
    '185.65.134.30',
    '2a03:1b20:1::9',
  ]),
  storedFeed('tor-exits', 'tor', ['185.220.101.1/32', '185.220.101.2/32', '2a02:d0c0::1/128']),
  storedFeed('proxies-firehol', 'proxy', ['81.2.69.0/28', '185.220.101.2/32'], {
    fetchedAt: new Date().toISOString(),
  }),
  storedFeed('aws', 'hosting', ['3.5.140.0/23', '2600:1f00::/28']),
  storedFeed('apple-icloud-private-relay', 'relay', ['24.89.200.0/24', '2a02:d0c0:2::/48'], {
    places: [
      ['US', 'US-NY', 'New York'],
      ['DE', '', 'Hamburg'],
    ],
    placeOf: [0, 1],
  }),
  storedFeed('geofeed-eastlink', 'geofeed', ['24.89.224.0/20', '24.89.240.0/21'], {
    places: [
      ['CA', 'CA-NS', 'Halifax'],
      ['CA', '', ''],
    ],
    placeOf: [0, 1],
  }),
];

const SYNTHETIC_QUERIES: Query[] = [
  ...['GB', 'IE', 'SE', 'DE', 'US', 'AT', 'FR', 'CA'].map((country) => ({ country })),
  { country: 'GB,IE' },
  { country: 'DE', family: '6' },
  ...['20712', 'AS39351', '16509', '64500', '8767'].map((asn) => ({ asn })),
  ...['vpn', 'proxy', 'tor', 'relay', 'hosting', 'mobile', 'bogon'].map((kind) => ({ kind })),
  { kind: 'vpn,tor' },
  { provider: 'Mullvad' },
  { provider: 'icloud private relay' },
  { provider: 'Example Corp' },
  { country: 'SE', kind: 'vpn' },
  { country: 'DE', asn: 'AS60729', kind: 'tor', family: '4' },
];

describe('range lists on synthetic data: every elementary interval', () => {
  let dir: string;
  let l: Loaded;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipintel-ranges-'));
    await writeFeeds(dir, FEEDS);
    await writeFile(join(dir, 'overrides.csv'), OVERRIDES);
    const files = await writeSyntheticData(dir);
    l = await load({
      DATA_DIR: dir,
      GEOIP_DB: files.city,
      ASN_DB: files.asn,
      LOG_LEVEL: 'silent',
    });
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the sources are all there: feeds, a geofeed, overrides', () => {
    const at = (text: string) => {
      const ip = parseIp(text);
      assert.ok(ip !== null, text);
      return ip;
    };
    assert.equal(l.vpn.detection(at('185.220.101.1')).isTor, true);
    assert.equal(l.geoip.lookup(at('24.89.224.1')).country, 'CA');
    assert.equal(l.geoip.lookup(at('81.2.69.200')).country, 'FR');
    assert.equal(l.vpn.detection(at('10.8.0.1')).provider, 'Example Corp');
  });

  for (const q of SYNTHETIC_QUERIES) {
    it(`${JSON.stringify(q)}: each interval's first and last address`, async () => {
      const matched = await checkEveryInterval(l, q);
      // a filter of the data's own values lists something (bogon and the rest alike)
      if (q.kind !== 'mobile') assert.ok(matched > 0, `${JSON.stringify(q)} lists something`);
    });
  }
});

const REAL_QUERIES: Query[] = [
  { country: 'US' },
  { country: 'RU' },
  { country: 'DE', family: '6' },
  { asn: 'AS14061' },
  { kind: 'hosting' },
  { kind: 'bogon' },
  { country: 'NL', kind: 'hosting', family: '4' },
];

const SAMPLES = 10_000;

/** A random address of the family: IPv4 anywhere, IPv6 mostly in global unicast. */
function randomAddress(version: 4 | 6): bigint {
  if (version === 4) return BigInt(random.u32());
  for (;;) {
    const n = random.chance(0.9) ? (1n << 125n) | random.bigBits(125) : random.bigBits(128);
    if (!isMapped(n)) return n;
  }
}

describe('range lists on the embedded data: seeded addresses inside and outside', () => {
  let dir: string;
  let l: Loaded;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipintel-ranges-real-'));
    l = await load({ DATA_DIR: dir, LOG_LEVEL: 'silent' });
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  for (const q of REAL_QUERIES) {
    it(`${JSON.stringify(q)}: ${SAMPLES} inside, ${SAMPLES} outside, and the blocks' edges`, async () => {
      const lists = await list(l, q);
      const families = (q.family === undefined ? [4, 6] : [Number(q.family)]) as (4 | 6)[];
      const nonEmpty = families.filter((v) => lists[v].starts.length > 0);
      assert.ok(nonEmpty.length > 0, `${JSON.stringify(q)} lists something`);
      // inside: a random block, a random address of it; and its first and last address
      for (let i = 0; i < SAMPLES; i++) {
        const version = random.pick(nonEmpty);
        const { starts, ends } = lists[version];
        const b = random.below(starts.length);
        const span = ends[b]! - starts[b]! + 1n;
        const bits = span.toString(2).length;
        let offset = random.bigBits(bits);
        while (offset >= span) offset = random.bigBits(bits);
        check(l, q, lists, version, starts[b]! + offset);
        if (i % 10 === 0) {
          check(l, q, lists, version, starts[b]!);
          check(l, q, lists, version, ends[b]!);
          if (starts[b]! > 0n) check(l, q, lists, version, starts[b]! - 1n);
        }
      }
      // outside: random addresses until SAMPLES are not listed
      let outside = 0;
      for (let tries = 0; outside < SAMPLES; tries++) {
        assert.ok(tries < 50 * SAMPLES, 'room outside the list');
        const version = random.pick(families);
        const n = randomAddress(version);
        if (listed(lists[version], n)) continue;
        check(l, q, lists, version, n);
        outside++;
      }
    });
  }
});

/** MaxMind's test databases: beside the repository in CI, never copied into it */
const MAXMIND = join(PROJECT_ROOT, '..', 'shared', 'fixtures', 'mmdb');

describe("range lists on MaxMind's test databases: IPv4 aliases and split blocks", () => {
  let dir: string;
  let l: Loaded | null = null;
  const queries: Query[] = [{ kind: 'bogon' }];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ipintel-ranges-maxmind-'));
    if (!existsSync(join(MAXMIND, 'GeoLite2-City-Test.mmdb'))) return;
    l = await load({
      DATA_DIR: dir,
      GEOIP_DB: join(MAXMIND, 'GeoLite2-City-Test.mmdb'),
      ASN_DB: join(MAXMIND, 'GeoLite2-ASN-Test.mmdb'),
      LOG_LEVEL: 'silent',
    });
    // the data's own countries and ASes, from the answers of the intervals
    const countries = new Set<string>();
    const asns = new Set<string>();
    for (const version of [4, 6] as const) {
      for (const n of intervalStarts(l, version)) {
        if (version === 6 && isMapped(n)) continue;
        const g = l.geoip.lookup(ipOf(version, n));
        if (g.country !== null) countries.add(g.country);
        if (g.asn !== null) asns.add(g.asn);
      }
    }
    queries.push(...[...countries].map((country) => ({ country })));
    queries.push(...[...asns].slice(0, 8).map((asn) => ({ asn })));
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("every list of the data's countries and ASes, each interval", async (t) => {
    if (l === null) return t.skip(`no MaxMind test databases at ${MAXMIND}`);
    const { v6 } = l.geoip.tables.geoip.table;
    const aliases = [...v6.values, ...v6.subValues].filter((v) => v !== NONE && (v & ALIAS) !== 0);
    assert.ok(aliases.length > 0 && v6.splitAt.length > 1, 'aliases and split blocks are there');
    assert.ok(queries.length > 3, `${queries.length} lists`);
    for (const q of queries) await checkEveryInterval(l, q);
  });
});
