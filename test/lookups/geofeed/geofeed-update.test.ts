// Geofeeds through the feed updater, as `npm run update-data` runs them:
// fetched from a real HTTP server on loopback, validated, stored and swapped;
// a bad publication keeps the stored copy. Then every recorded copy in
// ../shared/fixtures/geofeeds (when that folder exists) replayed the same way.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeofeedIndex } from '../../../src/lookups/geofeed/geofeed-index.js';
import { GEOFEED_FEEDS, operatorGeofeeds } from '../../../src/lookups/geofeed/geofeed-feeds.js';
import { readGeofeed } from '../../../src/lookups/geofeed/parse-geofeed.js';
import { PlaceResolver } from '../../../src/lookups/geofeed/place-resolve.js';
import { DEFAULT_FEEDS, resolveFeeds } from '../../../src/lookups/vpn/feeds/default-feeds.js';
import { deserialiseFeed, feedFileName } from '../../../src/lookups/vpn/feeds/feed-store.js';
import type { StoredFeed } from '../../../src/lookups/vpn/feeds/feed-types.js';
import { updateFeeds, type FeedSpec } from '../../../src/lookups/vpn/feeds/feed-updater.js';
import { parseIp } from '../../../src/net/ip.js';
import { startFeedServer, type FeedServer } from '../../helpers/feed-server.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'geofeeds');
const RECORDED = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'shared',
  'fixtures',
  'geofeeds',
);

function spec(id: string, url: string): FeedSpec {
  const known = GEOFEED_FEEDS.find((f) => f.id === id);
  assert.ok(known, id);
  return { ...known, url };
}

function stored(dir: string, id: string): StoredFeed {
  const name = feedFileName(id);
  return deserialiseFeed(readFileSync(join(dir, name), 'utf8'), name);
}

describe('geofeeds in the feed registry', () => {
  it('has a feed id for every recorded copy, relays named as relays', () => {
    const ids = new Set(DEFAULT_FEEDS.map((f) => f.id));
    for (const id of ['apple-icloud-private-relay', 'cloudflare-warp']) {
      assert.equal(DEFAULT_FEEDS.find((f) => f.id === id)?.kind, 'relay');
    }
    if (!existsSync(RECORDED)) return;
    for (const file of readdirSync(RECORDED).filter((f) => f.endsWith('.csv'))) {
      assert.ok(ids.has(file.replace(/\.csv$/, '')), file);
    }
  });

  it('turns a known feed without a default source on only when its URL is given', () => {
    const ids = (env: Record<string, string>) => resolveFeeds({ urls: env }).map((f) => f.id);
    assert.ok(!ids({}).includes('geofeed-starlink-sample-2026'));
    assert.ok(
      ids({ 'geofeed-starlink-sample-2026': 'http://127.0.0.1:1/feed.csv' }).includes(
        'geofeed-starlink-sample-2026',
      ),
    );
  });

  it("names the operator's own feeds by host, and refuses what is not an http(s) URL", () => {
    const specs = operatorGeofeeds(
      'https://geo.example.net/feed.csv, https://geo.example.net/v6.csv\nhttp://Other.Example/x',
      new Set(['geofeed-other-example']),
    );
    assert.deepEqual(
      specs.map((s) => [s.id, s.kind, s.url]),
      [
        ['geofeed-geo-example-net', 'geofeed', 'https://geo.example.net/feed.csv'],
        ['geofeed-geo-example-net-2', 'geofeed', 'https://geo.example.net/v6.csv'],
        ['geofeed-other-example-2', 'geofeed', 'http://Other.Example/x'],
      ],
    );
    assert.throws(
      () => operatorGeofeeds('ftp://geo.example.net/feed.csv', new Set()),
      /GEOFEED_URLS/,
    );
  });
});

describe('geofeeds through the updater', () => {
  let server: FeedServer;
  let dir: string;
  const relay = readFileSync(join(FIXTURES, 'relay-example.csv'), 'utf8');

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ipintel-geofeeds-'));
    server = await startFeedServer({
      '/relay.csv': { body: relay },
      '/network.csv': { body: readFileSync(join(FIXTURES, 'network-example.csv')) },
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (id: string, path: string, minPrefixes = 1) =>
    updateFeeds({ dataDir: dir, feeds: [{ ...spec(id, server.url(path)), minPrefixes }] });

  it('stores a relay list and a network geofeed with their places', async () => {
    const results = [
      ...(await run('apple-icloud-private-relay', '/relay.csv')),
      ...(await run('geofeed-starlink', '/network.csv')),
    ];
    assert.deepEqual(
      results.map((r) => [r.feed, r.ok, r.prefixes]),
      [
        ['apple-icloud-private-relay', true, 6],
        ['geofeed-starlink', true, 5],
      ],
    );
    const apple = stored(dir, 'apple-icloud-private-relay');
    assert.equal(apple.kind, 'relay');
    assert.equal(apple.places?.length, 4);
    const network = stored(dir, 'geofeed-starlink');
    assert.equal(network.kind, 'geofeed');
    assert.equal(network.publishedAt, '2026-08-01T10:00:00Z');
  });

  it('keeps the stored copy when a publication is cut, emptied, gutted or not a geofeed', async () => {
    await run('apple-icloud-private-relay', '/relay.csv');
    const before = readFileSync(join(dir, feedFileName('apple-icloud-private-relay')), 'utf8');
    const bad = {
      '/cut.csv': { cutAfter: 100, body: relay },
      '/empty.csv': { body: '' },
      '/comments.csv': { body: '# nothing published today\n' },
      '/html.csv': { body: '<html>\n<body>\n<h1>503</h1>\n</body>\n</html>\n' },
      '/gone.csv': { body: 'not found', status: 404 },
    };
    for (const [path, route] of Object.entries(bad)) {
      server.route(path, route);
      const [result] = await run('apple-icloud-private-relay', path);
      assert.equal(result?.ok, false, path);
      assert.equal(
        readFileSync(join(dir, feedFileName('apple-icloud-private-relay')), 'utf8'),
        before,
        path,
      );
    }
    // a list shrunk under its floor is refused too (Apple's: 10,000 prefixes)
    const [shrunk] = await updateFeeds({
      dataDir: dir,
      feeds: [spec('apple-icloud-private-relay', server.url('/relay.csv'))],
    });
    assert.match(shrunk?.error ?? '', /only 6 prefixes, expected ≥ 10000/);
  });

  it('stores a feed with a bad row, the row skipped and counted', async () => {
    server.route('/one-bad.csv', { body: `${relay}172.224.300.0/27,GB,GB-EN,London,\n` });
    const [result] = await run('apple-icloud-private-relay', '/one-bad.csv');
    assert.equal(result?.ok, true);
    assert.equal(stored(dir, 'apple-icloud-private-relay').skippedRows, 1);
  });
});

/** The recorded copies: the cut files, and Apple's whole list when zstd can unpack it. */
function recordedCopies(): { id: string; body: string }[] {
  const out = readdirSync(RECORDED)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => ({ id: f.replace(/\.csv$/, ''), body: readFileSync(join(RECORDED, f), 'utf8') }));
  const whole = join(RECORDED, 'apple-icloud-private-relay.full.csv.zst');
  if (existsSync(whole)) {
    try {
      const body = execFileSync('zstd', ['-dc', whole], { maxBuffer: 64 * 1024 * 1024 }).toString(
        'utf8',
      );
      out.push({ id: 'apple-icloud-private-relay', body });
    } catch {
      // no zstd on this machine: the cut copy stands for the whole list
    }
  }
  return out;
}

describe(
  'the recorded geofeeds replayed through the updater',
  { skip: !existsSync(RECORDED) },
  () => {
    it('stores every copy whole: every row a prefix, the most specific one answering', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ipintel-recorded-geofeeds-'));
      try {
        for (const { id, body } of recordedCopies()) {
          const server = await startFeedServer({ '/feed.csv': { body } });
          try {
            const [result] = await updateFeeds({
              dataDir: dir,
              feeds: [spec(id, server.url('/feed.csv'))],
            });
            assert.equal(result?.ok, true, `${id}: ${result?.error ?? ''}`);
            const expected = readGeofeed(body, id);
            const feed = stored(dir, id);
            // nothing lost but the rows the reader skips (and a prefix's repeats)
            assert.equal(
              feed.prefixes.length,
              new Set(expected.rows.map((r) => r.prefix)).size,
              id,
            );
            assert.equal(feed.skippedRows ?? 0, expected.skipped, id);
            // each prefix's first address answers a country of its feed
            const index = GeofeedIndex.build([feed], (places) => new PlaceResolver(null, places));
            const countries = new Set(expected.rows.map((r) => r.country));
            for (const row of expected.rows.filter((r) => r.country !== '').slice(0, 2000)) {
              const at = parseIp(row.prefix.split('/')[0]!)!;
              const located = index.locate(at);
              assert.ok(located !== null && countries.has(located.country), `${id} ${row.prefix}`);
            }
          } finally {
            await server.close();
          }
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
);
