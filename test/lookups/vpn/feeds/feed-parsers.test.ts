import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fixture } from '../../../helpers/feed-server.js';
import type { FeedParser } from '../../../../src/lookups/vpn/feeds/feed-types.js';
import { FeedFormatError } from '../../../../src/lookups/vpn/feeds/feed-types.js';
import {
  parseAwsIpRanges,
  parseAzureServiceTags,
  parseGoogleCloud,
  parseOracleIpRanges,
} from '../../../../src/lookups/vpn/feeds/parse-cloud-json.js';
import {
  parseCidrList,
  parseGeofeed,
  parseTorBulkExitList,
  parseTorExitAddresses,
} from '../../../../src/lookups/vpn/feeds/parse-text-lists.js';

// Each fixture beside the prefixes it must yield (sorted; duplicates removed).
const GOOD: {
  name: string;
  parser: FeedParser;
  file: string;
  want: string[];
  publishedAt: string | null;
}[] = [
  {
    name: 'AWS ip-ranges.json: v4 and v6 arrays, duplicate service rows collapse',
    parser: parseAwsIpRanges,
    file: 'aws-ip-ranges.json',
    want: [
      '13.34.37.64/27',
      '2600:1f14::/35',
      '2a05:d07a:a000::/40',
      '3.5.140.0/22',
      '52.94.76.0/22',
    ],
    publishedAt: '2024-05-20T13:03:13Z', // createDate 2024-05-20-13-03-13
  },
  {
    name: 'Google cloud.json: ipv4Prefix and ipv6Prefix entries',
    parser: parseGoogleCloud,
    file: 'gcp-cloud.json',
    want: ['2600:1900:4000::/44', '34.1.208.0/20', '35.185.128.0/19'],
    publishedAt: '2024-05-20T10:02:58.573Z', // creationTime 2024-05-20T10:02:58.57337
  },
  {
    // the Storage tag is a subset of AzureCloud, so it is not read when AzureCloud is there
    name: 'Azure service tags: AzureCloud and AzureCloud.<region> only',
    parser: parseAzureServiceTags,
    file: 'azure-service-tags.json',
    want: ['13.64.0.0/16', '20.38.64.0/19', '20.42.0.0/17', '2603:1000::/40'],
    publishedAt: '305', // changeNumber: a serial, not a date
  },
  {
    name: 'Oracle public_ip_ranges.json: cidrs of every region',
    parser: parseOracleIpRanges,
    file: 'oracle-public-ip-ranges.json',
    want: ['129.146.0.0/21', '130.61.0.0/16', '134.70.24.0/21'],
    publishedAt: '2024-05-15T22:22:23.417Z', // 2024-05-15T22:22:23.417062
  },
  {
    name: 'Cloudflare ips-v6: CIDR per line, no newline at the end',
    parser: parseCidrList,
    file: 'cloudflare-ips-v6.txt',
    want: [
      '2400:cb00::/32',
      '2405:8100::/32',
      '2405:b500::/32',
      '2606:4700::/32',
      '2803:f800::/32',
      '2a06:98c0::/29',
      '2c0f:f248::/32',
    ],
    publishedAt: null,
  },
  {
    name: 'RFC 8805 geofeed CSV (DigitalOcean)',
    parser: parseGeofeed,
    file: 'digitalocean-geofeed.csv',
    want: ['104.131.0.0/18', '104.131.64.0/18', '138.68.128.0/18', '2604:a880:400::/48'],
    publishedAt: null,
  },
  {
    name: 'Vultr JSON geofeed',
    parser: parseGeofeed,
    file: 'vultr-geofeed.json',
    want: ['2001:19f0:5000::/38', '45.32.0.0/19', '45.76.160.0/19'],
    publishedAt: '2024-05-20T08:00:01Z', // updated 2024-05-20T08:00:01+00:00
  },
  {
    name: 'Tor bulk exit list: one address per line, both families',
    parser: parseTorBulkExitList,
    file: 'tor-bulk-exit-list.txt',
    want: ['185.220.100.240/32', '185.220.101.1/32', '204.8.96.80/32', '2a0b:f4c2::22/128'],
    publishedAt: null,
  },
  {
    name: 'TorDNSEL exit-addresses: every ExitAddress, newest test as publishedAt',
    parser: parseTorExitAddresses,
    file: 'tor-exit-addresses.txt',
    want: ['162.247.74.201/32', '185.220.101.1/32', '185.220.101.2/32'],
    publishedAt: '2024-05-20T17:05:41Z', // ExitAddress … 2024-05-20 17:05:41
  },
  {
    name: 'X4BNet output/vpn/ipv4.txt',
    parser: parseCidrList,
    file: 'x4b-vpn-ipv4.txt',
    want: ['146.70.117.0/24', '2.26.157.0/24', '2.26.164.0/24', '2.27.224.0/22', '37.19.200.0/24'],
    publishedAt: null,
  },
];

void describe('feed parsers read each published format', () => {
  for (const row of GOOD) {
    void it(row.name, () => {
      const got = row.parser(fixture(row.file), 'test-feed');
      assert.deepEqual([...got.prefixes].sort(), row.want);
      assert.equal(got.publishedAt, row.publishedAt);
      assert.equal(got.feed, 'test-feed');
    });
  }
});

const aws = fixture('aws-ip-ranges.json');
const BAD: { name: string; parser: FeedParser; body: string; error: RegExp }[] = [
  {
    name: 'truncated AWS JSON',
    parser: parseAwsIpRanges,
    body: fixture('aws-ip-ranges.json.truncated'),
    error: /not valid JSON/,
  },
  { name: 'empty body', parser: parseAwsIpRanges, body: '', error: /not valid JSON/ },
  {
    name: 'AWS without ipv6_prefixes (another document)',
    parser: parseAwsIpRanges,
    body: '{"prefixes":[]}',
    error: /ipv6_prefixes/,
  },
  {
    name: 'AWS with empty arrays',
    parser: parseAwsIpRanges,
    body: '{"prefixes":[],"ipv6_prefixes":[]}',
    error: /no prefixes/,
  },
  {
    name: 'AWS with a bad prefix',
    parser: parseAwsIpRanges,
    body: aws.replace('3.5.140.0/22', '3.5.140.0/33'),
    error: /not a CIDR/,
  },
  {
    name: 'JSON array instead of object',
    parser: parseGoogleCloud,
    body: '[1,2]',
    error: /not an object/,
  },
  {
    name: 'Google entry without a prefix',
    parser: parseGoogleCloud,
    body: '{"prefixes":[{"service":"x"}]}',
    error: /ipv4Prefix/,
  },
  {
    name: 'Azure tag without addressPrefixes',
    parser: parseAzureServiceTags,
    body: '{"values":[{"name":"AzureCloud","properties":{}}]}',
    error: /addressPrefixes/,
  },
  {
    name: 'Oracle region without cidrs',
    parser: parseOracleIpRanges,
    body: '{"regions":[{"region":"x"}]}',
    error: /cidrs/,
  },
  {
    name: 'HTML error page as a CIDR list',
    parser: parseCidrList,
    body: fixture('not-a-feed.html'),
    error: /line 1: not a CIDR/,
  },
  {
    name: 'CIDR list cut mid-line',
    parser: parseCidrList,
    body: '173.245.48.0/20\n103.21.2',
    error: /line 2/,
  },
  // a cut "104.16.0.0/13" still parses as a /1: refused because host bits are set
  {
    name: 'CIDR list cut inside the length',
    parser: parseCidrList,
    body: '173.245.48.0/20\n104.16.0.0/1',
    error: /host bits set/,
  },
  { name: 'a /0 in a list', parser: parseCidrList, body: '0.0.0.0/0\n', error: /implausibly wide/ },
  {
    name: 'a /12 IPv6 in a list',
    parser: parseCidrList,
    body: '2000::/12\n',
    error: /implausibly wide/,
  },
  {
    name: 'comment-only CIDR list',
    parser: parseCidrList,
    body: '# nothing here\n\n',
    error: /no prefixes/,
  },
  {
    name: 'geofeed with more bad rows than the bound (1 % of rows, at least 1)',
    parser: parseGeofeed,
    body: '104.131.0.0/18,US,US-NY,New York,10011\n104.131.64.0/18,U\n104.131.128.0/18,US',
    error: /2 of 3 rows are not geofeed rows \(first: test-feed: line 2: not a geofeed row\)/,
  },
  {
    name: 'Tor bulk list with a CIDR',
    parser: parseTorBulkExitList,
    body: '185.220.101.0/24\n',
    error: /not an IP/,
  },
  {
    name: 'Tor bulk list with leading zeros',
    parser: parseTorBulkExitList,
    body: '185.220.101.01\n',
    error: /not an IP/,
  },
  {
    name: 'exit-addresses cut at the head',
    parser: parseTorExitAddresses,
    body: 'ExitAddress 1.2.3.4 2024-05-20 10:00:00\n',
    error: /outside an ExitNode/,
  },
  {
    name: 'exit-addresses cut mid-line',
    parser: parseTorExitAddresses,
    body: fixture('tor-exit-addresses.txt').slice(0, -10),
    error: /incomplete ExitAddress/,
  },
  {
    name: 'exit-addresses with an unknown keyword',
    parser: parseTorExitAddresses,
    body: '<html>\n',
    error: /unknown keyword/,
  },
  {
    name: 'exit-addresses with a bad fingerprint',
    parser: parseTorExitAddresses,
    body: 'ExitNode XYZ\n',
    error: /fingerprint/,
  },
];

void describe('feed parsers refuse corrupt, empty and truncated documents whole', () => {
  for (const row of BAD) {
    void it(row.name, () => {
      assert.throws(
        () => row.parser(row.body, 'test-feed'),
        (error: unknown) => error instanceof FeedFormatError && row.error.test(error.message),
      );
    });
  }
});

void describe('geofeed rows with fewer fields are skipped and counted, up to a bound', () => {
  const rows = Array.from({ length: 150 }, (_, i) => `10.${i}.0.0/16,US,US-NY,New York,10011`);
  void it('one row without its postal code: the other 149 are kept, 1 counted', () => {
    const body = [...rows.slice(0, 70), '10.200.0.0/16,US,US-NY,New York', ...rows.slice(70)];
    const got = parseGeofeed(body.join('\n'), 'test-feed');
    assert.equal(got.prefixes.length, 150);
    assert.equal(got.skippedRows, 1);
    assert.ok(!got.prefixes.includes('10.200.0.0/16'));
  });
  void it('a clean feed counts none', () => {
    assert.equal(parseGeofeed(rows.join('\n'), 'test-feed').skippedRows, undefined);
  });
  void it('past 1 % of the rows the whole feed is refused', () => {
    const body = rows.map((row, i) => (i % 50 === 0 ? row.split(',').slice(0, 3).join(',') : row));
    assert.throws(
      () => parseGeofeed(body.join('\n'), 'test-feed'),
      /3 of 150 rows are not geofeed rows/,
    );
  });
});
