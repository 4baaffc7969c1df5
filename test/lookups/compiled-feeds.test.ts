// The detection index and the geofeeds kept compiled in DATA_DIR/tables
// (src/data/derived-tables.ts): the first open builds them from the feeds and
// writes the files, the next opens the files and answers the same without
// parsing a feed; a feed rewritten or edited, a damaged file, or other ASN or
// GeoIP tables alone, is noticed and the tables built again; a DATA_DIR
// without feeds gets nothing written; a file that cannot be written is logged.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { openGeofeeds } from '../../src/lookups/geofeed/geofeed-holder.js';
import { loadGeoData, type GeoData } from '../../src/lookups/geoip/load.js';
import { serialiseFeed } from '../../src/lookups/vpn/feeds/feed-store.js';
import { writeFileAtomic } from '../../src/kit/atomic-file.js';
import { DEFAULT_VPN_RANGE_RULE } from '../../src/lookups/vpn/index/vpn-ranges.js';
import { openDetection } from '../../src/lookups/vpn/open-detection.js';
import { parseIp, type Ip } from '../../src/net/ip.js';
import { storedFeed } from '../helpers/vpn-feeds.js';
import { writeSmallGeoData } from '../export/small-geo-data.js';

const ip = (text: string): Ip => parseIp(text)!;
/** in the VPN list, in a geofeed row, in both, in neither; both families */
const ADDRESSES = [
  '146.70.117.20',
  '100.15.241.190',
  '24.89.200.1',
  '8.8.8.8',
  '2a06:e881:7300::1',
];

let dir: string;
let geo: GeoData;
const config = () => ({
  dataDir: dir,
  proxyListMaxAgeMs: 48 * 3_600_000,
  vpnRangeRule: DEFAULT_VPN_RANGE_RULE,
});
const tables = () => join(dir, 'tables');

async function writeFeeds(vpnPrefixes: string[], dcCity: string): Promise<void> {
  const feeds = join(dir, 'feeds');
  await mkdir(feeds, { recursive: true });
  const vpn = storedFeed('x4b-vpn', 'vpn', vpnPrefixes);
  const places: [string, string, string][] = [
    ['US', 'US-DC', dcCity],
    ['CA', 'CA-NS', 'Halifax'],
    ['DE', 'DE-HE', 'Frankfurt'],
  ];
  const geofeed = storedFeed(
    'geofeed-example',
    'geofeed',
    ['100.15.241.0/24', '24.89.192.0/18', '2a06:e881:7300::/40'],
    { places, placeOf: [0, 1, 2] },
  );
  await writeFileAtomic(join(feeds, 'x4b-vpn.feed.json'), serialiseFeed(vpn));
  await writeFileAtomic(join(feeds, 'geofeed-example.feed.json'), serialiseFeed(geofeed));
}

/** What the derivations could not do (the service's logger in their place). */
let warnings: { fields: object; message: string }[] = [];
const log = { warn: (fields: object, message: string) => void warnings.push({ fields, message }) };

/** What the service answers from the feeds for ADDRESSES, and how it got there. */
async function open(data: Pick<GeoData, 'tables'> = geo) {
  const detection = (await openDetection(config(), data, log)).current();
  const geofeeds = await openGeofeeds(config(), data, log);
  const answers = ADDRESSES.map((text) => ({
    vpn: detection.matchFeeds(ip(text)),
    place: geofeeds.current.locate(ip(text)),
  }));
  return { answers, detectionOpened: detection.opened, geofeedsBuilt: geofeeds.built };
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-compiled-'));
  geo = await loadGeoData({ geoipDb: null, asnDb: null, dataDir: dir }, pino({ level: 'silent' }));
});
after(() => rm(dir, { recursive: true, force: true }));

describe('compiled detection index and geofeeds', () => {
  it('writes nothing into a DATA_DIR without feeds', async () => {
    const { detectionOpened, geofeedsBuilt } = await open();
    assert.equal(detectionOpened, false);
    assert.equal(geofeedsBuilt, false);
    assert.equal(existsSync(tables()), false);
  });

  it('builds from the feeds once, then opens the files and answers the same', async () => {
    await writeFeeds(['146.70.117.0/24'], 'Washington');
    const built = await open();
    assert.equal(built.detectionOpened, false);
    assert.equal(built.geofeedsBuilt, true);
    for (const name of ['detection.tables', 'geofeeds.tables']) {
      assert.ok((await stat(join(tables(), name))).size > 0, name);
    }
    // the feeds answer as they should
    assert.equal(built.answers[0]!.vpn.hits[0]?.feed, 'x4b-vpn');
    assert.equal(built.answers[1]!.place?.region, 'District of Columbia');
    assert.equal(built.answers[3]!.vpn.hits.length, 0);
    assert.equal(built.answers[3]!.place, null);
    const opened = await open();
    assert.equal(opened.detectionOpened, true);
    assert.equal(opened.geofeedsBuilt, false);
    assert.deepEqual(opened.answers, built.answers);
  });

  it('builds again when a feed is rewritten, and answers from the new feed', async () => {
    await writeFeeds(['185.159.157.0/24'], 'Washington D.C.');
    const rebuilt = await open();
    assert.equal(rebuilt.detectionOpened, false);
    assert.equal(rebuilt.geofeedsBuilt, true);
    assert.equal(rebuilt.answers[0]!.vpn.hits.length, 0);
    assert.equal(rebuilt.answers[1]!.place?.city, 'Washington D.C.');
    assert.equal((await open()).detectionOpened, true);
  });

  it('notices a feed edited in place (same name, new content)', async () => {
    const path = join(dir, 'feeds', 'x4b-vpn.feed.json');
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('185.159.157.0/24', '146.70.117.0/24'));
    const edited = await open();
    assert.equal(edited.detectionOpened, false);
    assert.equal(edited.answers[0]!.vpn.hits[0]?.feed, 'x4b-vpn');
  });

  it('builds again over a damaged or cut file', async () => {
    const good = await open();
    for (const name of ['detection.tables', 'geofeeds.tables']) {
      const path = join(tables(), name);
      const bytes = await readFile(path);
      await writeFile(path, bytes.subarray(0, bytes.length >> 1));
    }
    const repaired = await open();
    assert.equal(repaired.detectionOpened, false);
    assert.equal(repaired.geofeedsBuilt, true);
    assert.deepEqual(repaired.answers, good.answers);
    assert.equal((await open()).detectionOpened, true);
  });

  it('builds again what reads the ASN tables, or the GeoIP tables, when those alone change', async () => {
    const small = await writeSmallGeoData(await mkdtemp(join(tmpdir(), 'ipintel-small-geo-')));
    const silent = pino({ level: 'silent' });
    const before = await open();
    assert.equal(before.detectionOpened, true);
    assert.equal(before.geofeedsBuilt, false);
    // other ASN tables: the detection index (its vpn-range rule reads them), not the geofeeds
    const otherAsn = await loadGeoData({ geoipDb: null, asnDb: small.asn, dataDir: dir }, silent);
    const asnChanged = await open({
      tables: { geoip: geo.tables.geoip, asn: otherAsn.tables.asn },
    });
    assert.equal(asnChanged.detectionOpened, false);
    assert.equal(asnChanged.geofeedsBuilt, false);
    assert.equal(asnChanged.answers[0]!.vpn.hits[0]?.feed, 'x4b-vpn');
    assert.deepEqual(
      asnChanged.answers.map((a) => a.place),
      before.answers.map((a) => a.place),
    );
    // other GeoIP tables: the geofeeds (their places resolve against them), not the detection index
    const otherGeoip = await loadGeoData(
      { geoipDb: small.city, asnDb: null, dataDir: dir },
      silent,
    );
    const geoipChanged = await open({
      tables: { geoip: otherGeoip.tables.geoip, asn: otherAsn.tables.asn },
    });
    assert.equal(geoipChanged.detectionOpened, true);
    assert.equal(geoipChanged.geofeedsBuilt, true);
    assert.equal(geoipChanged.answers[2]!.place?.city, 'Halifax');
    // and back: each built again for the tables answering
    const back = await open();
    assert.equal(back.detectionOpened, false);
    assert.equal(back.geofeedsBuilt, true);
    assert.deepEqual(back.answers, before.answers);
    assert.deepEqual(warnings, []);
  });

  it('logs a compiled file it cannot write, and answers from the feeds all the same', async () => {
    const good = await open();
    await rm(tables(), { recursive: true, force: true });
    // a file where the folder should be: neither compiled file can be written
    await writeFile(tables(), 'not a folder');
    warnings = [];
    try {
      const unwritable = await open();
      assert.equal(unwritable.detectionOpened, false);
      assert.equal(unwritable.geofeedsBuilt, true);
      assert.deepEqual(unwritable.answers, good.answers);
      const paths = warnings.map((w) => (w.fields as { path?: string }).path);
      assert.deepEqual(paths, [
        join(tables(), 'detection.tables'),
        join(tables(), 'geofeeds.tables'),
      ]);
      for (const w of warnings) {
        assert.match(w.message, /could not keep the derived tables/);
        assert.ok((w.fields as { err?: unknown }).err instanceof Error);
      }
    } finally {
      await rm(tables(), { force: true });
      warnings = [];
    }
  });
});
