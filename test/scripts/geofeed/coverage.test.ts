// The coverage report: overlaps within a feed count once, IPv6 in /64s and /48s touched.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { geofeedCoverage } from '../../../scripts/geofeed/coverage.js';
import { storedFeed } from '../../helpers/vpn-feeds.js';

describe('geofeedCoverage', () => {
  it('counts each address, /64 and /48 once per feed, and the union of all', () => {
    const a = storedFeed('geofeed-a', 'geofeed', [
      '10.0.0.0/24',
      '10.0.0.128/25', // inside the /24
      '10.0.1.0/31',
      '2001:db8::/64',
      '2001:db8::1/128', // inside the /64
      '2001:db8:0:1::5/128', // another /64 of the same /48
      '2001:db9::/47',
    ]);
    const b = storedFeed('apple-icloud-private-relay', 'relay', ['10.0.0.0/23']);
    const hosting = storedFeed('aws', 'hosting', ['11.0.0.0/8']);
    const rows = geofeedCoverage([a, b, hosting]);
    assert.deepEqual(
      rows.map((r) => [r.feed, r.ipv4Addresses, r.ipv6Slash64s, r.ipv6Slash48s]),
      [
        ['geofeed-a', 258, 2n + 2n ** 17n, 3n],
        ['apple-icloud-private-relay', 512, 0n, 0n],
        ['all', 512, 2n + 2n ** 17n, 3n],
      ],
    );
  });
});
