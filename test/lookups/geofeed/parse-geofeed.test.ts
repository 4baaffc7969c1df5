// The RFC 8805 reader: the format's corners (comments, BOM, CRLF, empty
// fields, IPv6 in upper case, bare addresses) and broken input (a bad
// prefix, a country that is not ISO, a truncated last line, a feed shrunk to
// nothing, a document that is not a geofeed).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseGeofeedLocations, readGeofeed } from '../../../src/lookups/geofeed/parse-geofeed.js';
import { FeedFormatError } from '../../../src/lookups/vpn/feeds/feed-types.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'geofeeds');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

describe('readGeofeed', () => {
  it('reads a BOM, CRLF, comments, blank lines, postal codes and upper-case IPv6', () => {
    const feed = readGeofeed(fixture('network-example.csv'), 'geofeed-example');
    assert.deepEqual(feed.rows, [
      { prefix: '24.89.192.0/18', country: 'CA', region: 'CA-NS', city: 'Halifax', postal: 'B3H' },
      { prefix: '24.89.224.0/20', country: 'CA', region: 'CA-NB', city: 'Moncton', postal: '' },
      { prefix: '24.89.240.0/20', country: 'CA', region: '', city: '', postal: '' },
      {
        prefix: '2a06:e881:7300::/40',
        country: 'DE',
        region: 'DE-HE',
        city: 'Frankfurt am Main',
        postal: '60311',
      },
      {
        prefix: '100.15.241.0/24',
        country: 'US',
        region: 'US-DC',
        city: 'Washington',
        postal: '20001',
      },
    ]);
    assert.equal(feed.skipped, 0);
    assert.equal(feed.publishedAt, '2026-08-01T10:00:00Z');
  });

  it('takes rows with trailing fields left out, bare addresses as hosts, UK as GB', () => {
    const feed = readGeofeed(
      '185.17.248.1,UK,,London\n2a0e:1c80::1,de\n185.17.249.0/24,IN,IN-MH,Mumbai,,extra\n',
      'f',
    );
    assert.deepEqual(
      feed.rows.map((r) => [r.prefix, r.country, r.city]),
      [
        ['185.17.248.1/32', 'GB', 'London'],
        ['2a0e:1c80::1/128', 'DE', ''],
        ['185.17.249.0/24', 'IN', 'Mumbai'],
      ],
    );
  });

  it('drops a region of another shape or another country, keeping the row', () => {
    const feed = readGeofeed('1.2.3.0/24,US,California,Springfield,\n1.2.4.0/24,US,DE-BE,,\n', 'f');
    assert.deepEqual(
      feed.rows.map((r) => [r.region, r.city]),
      [
        ['', 'Springfield'],
        ['', ''],
      ],
    );
  });

  it('skips and counts a row with a bad prefix or a country that is not ISO 3166-1', () => {
    const body = [
      '1.2.3.0/24,US,US-CA,Los Angeles,',
      '1.2.300.0/24,US,,,', // not an address
      '1.2.3.1/24,US,,,', // host bits set
      '1.2.5.0/24,XX,,,', // not a country
      '1.2.6.0/24,EU,,,', // a union, not a country
      '1.2.7.0/24,DE,DE-BE,Berlin,',
      '1.2.8.0/24,DE,DE-BE,Berlin,',
      '1.2.9.0/24,DE,DE-BE,Berlin,',
    ].join('\n');
    const feed = readGeofeed(body, 'f');
    assert.deepEqual(
      feed.rows.map((r) => r.prefix),
      ['1.2.3.0/24', '1.2.7.0/24', '1.2.8.0/24', '1.2.9.0/24'],
    );
    assert.equal(feed.skipped, 4);
    assert.match(feed.problems.join('\n'), /line 2: .*not a prefix|line 2/);
    assert.match(
      feed.problems.join('\n'),
      /line 4: "XX" is not an ISO 3166-1 alpha-2 country code/,
    );
  });

  it('skips a last line cut short rather than reading a wrong prefix from it', () => {
    const whole = fixture('warp-example.csv');
    // cut inside the last line's address: "2a09:bac0:1000::/6" has host bits set
    const cut = whole.slice(0, whole.indexOf('2a09:bac0:1000::/64') + 18);
    const feed = readGeofeed(cut, 'cloudflare-warp');
    assert.deepEqual(
      feed.rows.map((r) => r.prefix),
      ['104.28.9.149/32', '104.28.42.0/32'],
    );
    assert.equal(feed.skipped, 1);
  });

  it('refuses a feed shrunk to nothing, only comments, or a document that is not a geofeed', () => {
    for (const body of [
      '',
      '\n\n',
      '# nothing here\n',
      '<html><body>Service Unavailable</body></html>',
    ]) {
      assert.throws(() => readGeofeed(body, 'f'), FeedFormatError, JSON.stringify(body));
    }
    // more bad rows than good: an error page with one line that happens to parse
    assert.throws(
      () => readGeofeed('1.2.3.0/24,US,,,\n<p>a</p>\n<p>b</p>\n', 'f'),
      /2 of 3 rows are not geofeed rows/,
    );
  });
});

describe('parseGeofeedLocations', () => {
  it('stores each prefix once with the index of its distinct place', () => {
    const parsed = parseGeofeedLocations(
      fixture('relay-example.csv'),
      'apple-icloud-private-relay',
    );
    assert.deepEqual(parsed.prefixes, [
      '172.224.226.0/27',
      '172.224.226.32/27',
      '104.16.0.0/32',
      '104.16.0.2/31',
      '2a02:26f7:b3c0:4000::/64',
      '2a02:26f7:b3c0:4001::/64',
    ]);
    assert.deepEqual(parsed.locations?.places, [
      ['GB', 'GB-EN', 'London'],
      ['US', 'US-MA', 'CHICOPEE'],
      ['DE', '', ''],
      ['FR', 'FR-IDF', 'Paris'],
    ]);
    assert.deepEqual(parsed.locations?.placeOf, [0, 0, 1, 2, 0, 3]);
  });

  it('keeps the first row of a prefix given twice, and a row without a country as no place', () => {
    const parsed = parseGeofeedLocations(
      '1.2.3.0/24,US,,,\n1.2.3.0/24,FR,,,\n1.2.4.0/24,,,,\n',
      'f',
    );
    assert.deepEqual(parsed.prefixes, ['1.2.3.0/24', '1.2.4.0/24']);
    assert.deepEqual(parsed.locations, { places: [['US', '', '']], placeOf: [0, -1] });
  });

  it('reports the rows it skipped', () => {
    const parsed = parseGeofeedLocations(
      '1.2.3.0/24,US,,,\n1.2.4.0/24,ZZ,,,\n1.2.5.0/24,US,,,\n',
      'f',
    );
    assert.equal(parsed.skippedRows, 1);
  });
});
