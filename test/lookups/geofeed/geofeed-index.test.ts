// The compiled geofeeds: the most specific prefix answers, across feeds and
// families, and its place is resolved against the embedded GeoIP data.
import { strict as assert } from 'node:assert';
import { before, describe, it } from 'node:test';
import { pino } from 'pino';
import { NO_COORDINATE } from '../../../src/lookups/geoip/compiled-set.js';
import { NONE } from '../../../src/data/range-table.js';
import { GeofeedIndex, publishedAt } from '../../../src/lookups/geofeed/geofeed-index.js';
import { subdivisionNames } from '../../../src/lookups/geofeed/subdivision-names.js';
import type { StoredFeed } from '../../../src/lookups/vpn/feeds/feed-types.js';
import { PlaceResolver, cityKey } from '../../../src/lookups/geofeed/place-resolve.js';
import { loadGeoData, type GeoData } from '../../../src/lookups/geoip/load.js';
import { parseIp, type Ip } from '../../../src/net/ip.js';
import { storedFeed } from '../../helpers/vpn-feeds.js';

const ip = (text: string): Ip => parseIp(text)!;
const noData = () => new PlaceResolver(null, []);

function feed(
  id: string,
  kind: 'relay' | 'geofeed',
  rows: [string, string, string, string][],
  dates: Partial<Pick<StoredFeed, 'fetchedAt' | 'publishedAt' | 'lastModified'>> = {},
) {
  const places: [string, string, string][] = [];
  const placeOf: number[] = [];
  for (const [, country, region, city] of rows) {
    placeOf.push(places.length);
    places.push([country, region, city]);
  }
  return storedFeed(
    id,
    kind,
    rows.map(([prefix]) => prefix),
    { places, placeOf, ...dates },
  );
}

describe('GeofeedIndex', () => {
  const network = feed('geofeed-example', 'geofeed', [
    ['24.89.192.0/18', 'CA', 'CA-NS', 'Halifax'],
    ['24.89.224.0/20', 'CA', 'CA-NB', 'Moncton'],
    ['24.89.255.255/32', 'CA', '', 'Edge'],
    ['2a06:e881:7300::/40', 'DE', 'DE-HE', 'Frankfurt am Main'],
    ['2a06:e881:7300:1::/64', 'DE', 'DE-BE', 'Berlin'],
  ]);
  const index = GeofeedIndex.build([network], noData);
  const cityAt = (text: string) => index.locate(ip(text))?.city ?? null;

  it('answers the most specific prefix holding the address', () => {
    assert.equal(cityAt('24.89.192.0'), 'Halifax');
    assert.equal(cityAt('24.89.223.255'), 'Halifax');
    assert.equal(cityAt('24.89.224.0'), 'Moncton');
    assert.equal(cityAt('24.89.239.255'), 'Moncton');
    assert.equal(cityAt('24.89.240.0'), 'Halifax');
    assert.equal(cityAt('24.89.255.254'), 'Halifax');
    assert.equal(cityAt('24.89.255.255'), 'Edge');
    assert.equal(cityAt('2a06:e881:7300::1'), 'Frankfurt am Main');
    assert.equal(cityAt('2a06:e881:7300:1:ffff:ffff:ffff:ffff'), 'Berlin');
    assert.equal(cityAt('2a06:e881:7300:2::'), 'Frankfurt am Main');
    assert.equal(cityAt('2a06:e881:73ff:ffff:ffff:ffff:ffff:ffff'), 'Frankfurt am Main');
  });

  it('answers nothing outside every feed, and allocates no answer for it', () => {
    for (const text of [
      '24.89.191.255',
      '24.90.0.0',
      '0.0.0.0',
      '255.255.255.255',
      '2a06:e881:7400::',
      '::',
    ]) {
      assert.equal(index.locate(ip(text)), null, text);
      assert.equal(index.find(ip(text)), NONE, text);
    }
    assert.equal(GeofeedIndex.empty().locate(ip('24.89.192.1')), null);
    assert.equal(GeofeedIndex.empty().size, 0);
  });

  it('lists its range boundaries for other readers (the MMDB export)', () => {
    const { keys, values } = index.table.v4;
    const starts = [...keys].map((k, i) => [k, values[i] === NONE ? 'none' : 'fed']);
    assert.deepEqual(starts, [
      [0, 'none'],
      [(24 << 24) + (89 << 16) + (192 << 8), 'fed'],
      [(24 << 24) + (89 << 16) + (224 << 8), 'fed'],
      [(24 << 24) + (89 << 16) + (240 << 8), 'fed'],
      [(24 << 24) + (89 << 16) + (255 << 8) + 255, 'fed'],
      [(24 << 24) + (90 << 16), 'none'],
    ]);
  });

  it('keeps the feed first in id order for a prefix two feeds published at once give', () => {
    const a = feed('geofeed-a', 'geofeed', [['5.6.7.0/24', 'FR', '', 'Lyon']]);
    const b = feed('geofeed-b', 'geofeed', [['5.6.7.0/24', 'FR', '', 'Nice']]);
    for (const order of [
      [a, b],
      [b, a],
    ]) {
      const both = GeofeedIndex.build(order, noData);
      assert.equal(both.locate(ip('5.6.7.8'))?.city, 'Lyon');
      assert.equal(both.locate(ip('5.6.7.8'))?.feed, 'geofeed-a');
    }
  });

  it('answers a prefix two copies of a feed give from the newer publication', () => {
    const rows = (city: string): [string, string, string, string][] => [
      ['5.6.7.0/24', 'US', 'US-TX', city],
      ['2605:59c8:1200::/40', 'US', 'US-TX', city],
    ];
    const cases = [
      // the publisher's own date in the feed decides first
      {
        older: { publishedAt: '2024-01-08T00:00:00Z', fetchedAt: '2026-08-22T00:00:00Z' },
        newer: { publishedAt: '2026-08-18T00:00:00Z', fetchedAt: '2026-08-20T00:00:00Z' },
      },
      // then the server's Last-Modified (the copies fetched at one update)
      {
        older: { lastModified: '2024-01-09T05:20:49Z', fetchedAt: '2026-08-22T00:00:01Z' },
        newer: { lastModified: '2026-08-18T12:04:10Z', fetchedAt: '2026-08-22T00:00:00Z' },
      },
      // then the fetch
      {
        older: { fetchedAt: '2026-08-21T00:00:00Z' },
        newer: { fetchedAt: '2026-08-22T00:00:00Z' },
      },
    ];
    for (const { older, newer } of cases) {
      // the newer copy under either id: id order does not decide
      for (const [oldId, newId] of [
        ['geofeed-a', 'geofeed-b'],
        ['geofeed-b', 'geofeed-a'],
      ] as const) {
        const index = GeofeedIndex.build(
          [
            feed(oldId, 'geofeed', rows('Austin'), older),
            feed(newId, 'geofeed', rows('Dallas'), newer),
          ],
          noData,
        );
        for (const address of ['5.6.7.8', '2605:59c8:1234::1']) {
          assert.equal(index.locate(ip(address))?.city, 'Dallas', JSON.stringify(newer));
          assert.equal(index.locate(ip(address))?.feed, newId);
        }
      }
    }
    assert.equal(publishedAt(feed('x', 'geofeed', [], { fetchedAt: 'not a date' })), 0);
  });

  it('ignores the other kinds of feeds and the prefixes whose row gives no country', () => {
    const hosting = storedFeed('aws', 'hosting', ['5.6.0.0/16']);
    const partial = storedFeed('geofeed-p', 'geofeed', ['5.7.0.0/16', '5.8.0.0/16'], {
      places: [['SE', '', 'Malmo']],
      placeOf: [-1, 0],
    });
    const built = GeofeedIndex.build([hosting, partial], noData);
    assert.equal(built.locate(ip('5.6.0.1')), null);
    assert.equal(built.locate(ip('5.7.0.1')), null);
    assert.equal(built.locate(ip('5.8.0.1'))?.city, 'Malmo');
    assert.deepEqual(
      built.feeds.map((f) => f.feed),
      ['geofeed-p'],
    );
  });

  it('gives no coordinates or time zone it cannot find: the feed gives less than the data', () => {
    const located = index.locate(ip('24.89.192.1'))!;
    assert.equal(located.latitude, NO_COORDINATE);
    assert.equal(located.longitude, NO_COORDINATE);
    assert.equal(located.timezone, null);
    // the ISO 3166-2 code stands where no name is known for it
    assert.equal(located.region, 'CA-NS');
    assert.equal(located.kind, 'geofeed');
  });
});

describe('PlaceResolver over the embedded GeoIP data', () => {
  let index: GeofeedIndex;
  before(async () => {
    const geo: GeoData = await loadGeoData(
      { geoipDb: null, asnDb: null, dataDir: '/nonexistent' },
      pino({ level: 'silent' }),
    );
    const rows: [string, string, string, string][] = [
      ['24.89.192.0/18', 'CA', 'CA-NS', 'Halifax'],
      ['24.89.0.0/18', 'CA', 'CA-NS', ''],
      ['5.6.7.0/24', 'JP', '', 'TOKYO'],
      ['5.6.8.0/24', 'CH', '', 'Zurich'],
      ['5.6.9.0/24', 'JP', '', ''],
      ['5.6.10.0/24', 'US', '', ''],
      ['5.6.11.0/24', 'US', '', 'Nowhere Such Place'],
      ['5.6.12.0/24', 'JP', 'JP-13', 'Shinjuku'],
      ['5.6.13.0/24', 'JP', 'JP-13', ''],
      // US-DC: the data names the district "District of Columbia" and its
      // city "Washington D.C."; no row's city tells the code's name (a
      // Washington is in 22 states)
      ['5.6.14.0/24', 'US', 'US-DC', 'Washington'],
      ['5.6.15.0/24', 'US', 'US-DC', ''],
      // DE-HE: the ISO list says Hessen, CLDR Hesse (the data's); the city
      // goes on in the data (Frankfurt am Main)
      ['5.6.16.0/24', 'DE', 'DE-HE', 'Frankfurt'],
      // a code no table knows and no row teaches stays as written
      ['5.6.17.0/24', 'US', 'US-ZZ', 'Washington'],
    ];
    const names = await subdivisionNames();
    index = GeofeedIndex.build(
      [feed('geofeed-t', 'geofeed', rows)],
      (places) => new PlaceResolver(geo.tables.geoip, places, names),
    );
  });
  const at = (text: string) => index.locate(ip(text))!;

  it("finds a city's point and time zone, and names its region as the data does", () => {
    const halifax = at('24.89.192.1');
    assert.equal(halifax.city, 'Halifax');
    assert.equal(halifax.region, 'Nova Scotia');
    assert.equal(halifax.timezone, 'America/Halifax');
    assert.ok(Math.abs(halifax.latitude / 1e4 - 44.65) < 0.5, String(halifax.latitude));
    assert.ok(Math.abs(halifax.longitude / 1e4 + 63.58) < 0.5, String(halifax.longitude));
    // the same code without a city: the region's name, no point, and no time
    // zone: Nova Scotia has two (America/Glace_Bay on Cape Breton)
    const region = at('24.89.0.1');
    assert.deepEqual(
      [region.city, region.region, region.timezone, region.latitude],
      [null, 'Nova Scotia', null, NO_COORDINATE],
    );
    // a region in one zone: learned from a city row of the same code
    const tokyo = at('5.6.13.1');
    assert.deepEqual(
      [tokyo.region, tokyo.timezone, tokyo.latitude],
      ['Tokyo', 'Asia/Tokyo', NO_COORDINATE],
    );
  });

  it('finds the region of an ISO 3166-2 code the data names otherwise, and its city', () => {
    const dc = at('5.6.14.1');
    assert.deepEqual(
      [dc.city, dc.region, dc.timezone],
      ['Washington', 'District of Columbia', 'America/New_York'],
    );
    assert.ok(Math.abs(dc.latitude / 1e4 - 38.9) < 0.2, String(dc.latitude));
    assert.ok(Math.abs(dc.longitude / 1e4 + 77.03) < 0.2, String(dc.longitude));
    const district = at('5.6.15.1');
    assert.deepEqual(
      [district.region, district.timezone, district.latitude],
      ['District of Columbia', 'America/New_York', NO_COORDINATE],
    );
    const frankfurt = at('5.6.16.1');
    assert.deepEqual(
      [frankfurt.city, frankfurt.region, frankfurt.timezone],
      ['Frankfurt', 'Hesse', 'Europe/Berlin'],
    );
    assert.ok(Math.abs(frankfurt.latitude / 1e4 - 50.11) < 0.2, String(frankfurt.latitude));
    // a longer name is looked for only in a known region: no point of another Washington
    const unknown = at('5.6.17.1');
    assert.deepEqual(
      [unknown.region, unknown.latitude, unknown.timezone],
      ['US-ZZ', NO_COORDINATE, null],
    );
  });

  it('matches a city whatever its case and accents, keeping the feed’s spelling', () => {
    const tokyo = at('5.6.7.1');
    assert.equal(tokyo.city, 'TOKYO');
    assert.equal(tokyo.timezone, 'Asia/Tokyo');
    assert.notEqual(tokyo.latitude, NO_COORDINATE);
    assert.equal(at('5.6.8.1').timezone, 'Europe/Zurich');
    assert.equal(cityKey('CH', 'Zürich'), cityKey('CH', 'ZURICH'));
  });

  it('gives a country alone no point, and its time zone only when it has one', () => {
    const japan = at('5.6.9.1');
    assert.deepEqual(
      [japan.city, japan.region, japan.timezone, japan.latitude, japan.longitude],
      [null, null, 'Asia/Tokyo', NO_COORDINATE, NO_COORDINATE],
    );
    assert.equal(at('5.6.10.1').timezone, null);
    const unknown = at('5.6.11.1');
    assert.deepEqual(
      [unknown.city, unknown.latitude, unknown.timezone],
      ['Nowhere Such Place', NO_COORDINATE, null],
    );
  });
});
