// GEOIP_DB / ASN_DB: MaxMind-layout City, ASN and ISP databases written at
// test time by test/helpers/mmdb-writer.ts, served through the whole HTTP
// service; then, when present, MaxMind's own test databases from
// ../shared/fixtures replayed against their known answers.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.js';
import { PROJECT_ROOT } from '../../../src/kit/project-root.js';
import { loadServiceData } from '../../../src/composition.js';
import { DataError } from '../../../src/lookups/geoip/load.js';
import { UNKNOWN_LOCATION } from '../../../src/lookups/geoip/record-map.js';
import { MmdbUint, buildMmdb, cityRecord } from '../../helpers/mmdb-writer.js';
import { dataOf, get, silentLog, startService, type TestService } from '../../helpers/service.js';

const CITY = buildMmdb({
  databaseType: 'GeoLite2-City',
  networks: [
    {
      network: '81.2.69.0/24',
      data: cityRecord({
        country: 'GB',
        city: 'London',
        region: 'England',
        latitude: 51.5142,
        longitude: -0.0931,
        timeZone: 'Europe/London',
      }),
    },
    // no time_zone: derived from the coordinates, which are rounded to 4 decimals
    {
      network: '5.6.7.0/24',
      data: cityRecord({
        country: 'FR',
        city: 'Paris',
        region: 'Île-de-France',
        latitude: 48.856614,
        longitude: 2.352222,
      }),
    },
    { network: '12.0.0.0/8', data: cityRecord({ country: 'US' }) },
    {
      network: '12.81.96.0/19',
      data: cityRecord({
        country: 'US',
        city: 'Dallas',
        region: 'Texas',
        latitude: 32.7831,
        longitude: -96.8067,
        timeZone: 'America/Chicago',
      }),
    },
    { network: '2a02:d0c0::/29', data: { country: { iso_code: 'RU' } } },
    {
      network: '2001:480::/32',
      data: cityRecord({
        country: 'US',
        city: 'San Diego',
        region: 'California',
        latitude: 32.7157,
        longitude: -117.1611,
        timeZone: 'America/Los_Angeles',
      }),
    },
    // odd values are unknowns, not made-up answers
    {
      network: '31.0.0.0/16',
      data: {
        country: { iso_code: 'usa' },
        city: { names: { en: '' } },
        location: { latitude: 'north' },
      },
    },
  ],
});

const ASN = buildMmdb({
  databaseType: 'GeoLite2-ASN',
  networks: [
    {
      network: '1.128.0.0/11',
      data: { autonomous_system_number: 1221, autonomous_system_organization: 'Telstra Pty Ltd' },
    },
    { network: '12.81.96.0/19', data: { autonomous_system_number: 7018 } },
    {
      network: '81.2.69.0/24',
      data: {
        autonomous_system_number: 20712,
        autonomous_system_organization: 'Andrews & Arnold Ltd',
      },
    },
    {
      network: '2001:480::/32',
      data: {
        autonomous_system_number: new MmdbUint(32, 668),
        autonomous_system_organization: 'DoD Network',
      },
    },
    {
      network: '2a02:d0c0::/29',
      data: { autonomous_system_number: 4200000000, autonomous_system_organization: 'Big ASN' },
    },
  ],
});

const ISP = buildMmdb({
  databaseType: 'GeoIP2-ISP',
  networks: [
    {
      network: '81.2.69.0/24',
      data: {
        autonomous_system_number: 20712,
        autonomous_system_organization: 'Andrews & Arnold Ltd',
        isp: 'A&A Broadband',
        organization: 'A&A Customer',
      },
    },
  ],
});

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-mmdb-'));
  await writeFile(join(dir, 'City.mmdb'), CITY);
  await writeFile(join(dir, 'ASN.mmdb'), ASN);
  await writeFile(join(dir, 'ISP.mmdb'), ISP);
  await writeFile(join(dir, 'not-an-mmdb.mmdb'), 'just some text\n');
});
after(() => rm(dir, { recursive: true, force: true }));

const NULL_NETWORK = { isp: null, asn: null, org: null };

describe('GEOIP_DB and ASN_DB (databases written by the test)', () => {
  let service: TestService;
  before(async () => {
    service = await startService({
      env: {
        GEOIP_DB: join(dir, 'City.mmdb'),
        ASN_DB: join(dir, 'ASN.mmdb'),
        RATE_LIMIT_MAX: '100000',
      },
    });
  });
  after(() => service.close());

  const table: { address: string; want: Record<string, unknown> }[] = [
    {
      address: '81.2.69.142',
      want: {
        country: 'GB',
        city: 'London',
        region: 'England',
        timezone: 'Europe/London',
        latitude: 51.5142,
        longitude: -0.0931,
        isp: 'Andrews & Arnold Ltd',
        asn: 'AS20712',
        org: 'Andrews & Arnold Ltd',
      },
    },
    {
      address: '5.6.7.8',
      want: {
        country: 'FR',
        city: 'Paris',
        region: 'Île-de-France',
        timezone: 'Europe/Paris',
        latitude: 48.8566,
        longitude: 2.3522,
        ...NULL_NETWORK,
      },
    },
    { address: '12.1.2.3', want: { ...UNKNOWN_LOCATION, country: 'US', ...NULL_NETWORK } },
    {
      address: '12.81.96.5',
      want: {
        country: 'US',
        city: 'Dallas',
        region: 'Texas',
        timezone: 'America/Chicago',
        latitude: 32.7831,
        longitude: -96.8067,
        isp: null,
        asn: 'AS7018',
        org: null,
      },
    },
    {
      address: '1.128.0.1',
      want: { ...UNKNOWN_LOCATION, isp: 'Telstra Pty Ltd', asn: 'AS1221', org: 'Telstra Pty Ltd' },
    },
    { address: '9.9.9.9', want: { ...UNKNOWN_LOCATION, ...NULL_NETWORK } },
    { address: '31.0.1.1', want: { ...UNKNOWN_LOCATION, ...NULL_NETWORK } },
    {
      address: '2a02:d0c0::1',
      want: {
        ...UNKNOWN_LOCATION,
        country: 'RU',
        isp: 'Big ASN',
        asn: 'AS4200000000',
        org: 'Big ASN',
      },
    },
    {
      address: '2001:480:10::1',
      want: {
        country: 'US',
        city: 'San Diego',
        region: 'California',
        timezone: 'America/Los_Angeles',
        latitude: 32.7157,
        longitude: -117.1611,
        isp: 'DoD Network',
        asn: 'AS668',
        org: 'DoD Network',
      },
    },
    { address: '2001:481::1', want: { ...UNKNOWN_LOCATION, ...NULL_NETWORK } },
    { address: '::ffff:81.2.69.1', want: { ip: '81.2.69.1', country: 'GB', asn: 'AS20712' } },
  ];
  for (const { address, want } of table) {
    it(`/ip/${address}`, async () => {
      const res = await get(service.baseUrl, `/ip/${address}`);
      assert.equal(res.status, 200);
      const data = dataOf(res.body);
      assert.equal(data['bogon'], false);
      for (const [field, value] of Object.entries(want))
        assert.deepEqual(data[field], value, field);
    });
  }

  it('bogons stay bogons whatever the database says', async () => {
    const data = dataOf((await get(service.baseUrl, '/ip/10.1.1.1')).body);
    assert.equal(data['bogon'], true);
  });

  it('no DB-IP attribution header (only the country sources the location is reconciled with); the data sets are named as files', async () => {
    const res = await get(service.baseUrl, '/ip/81.2.69.142');
    const credits = res.headers.get('x-data-attribution') ?? '';
    assert.doesNotMatch(credits, /DB-IP/);
    assert.match(credits, /nro\.net/);
    assert.match(credits, /IP2Location LITE/);
    const ready = dataOf<{
      dataSets: { name: string; kind: string; source: string; builtAt: string | null }[];
    }>((await get(service.baseUrl, '/readyz')).body);
    assert.deepEqual(
      ready.dataSets.map((d) => [d.kind, d.source, d.name]),
      [
        ['geoip', 'file', 'GeoLite2-City'],
        ['asn', 'file', 'GeoLite2-ASN'],
      ],
    );
    assert.equal(ready.dataSets[0]?.builtAt, new Date(1_700_000_000_000).toISOString());
  });
});

describe('an ISP database names the ISP apart from the organisation', () => {
  it('ASN_DB of type GeoIP2-ISP → isp from `isp`, org from `organization`', async (t) => {
    const service = await startService({
      env: { GEOIP_DB: join(dir, 'City.mmdb'), ASN_DB: join(dir, 'ISP.mmdb') },
    });
    t.after(() => service.close());
    const data = dataOf((await get(service.baseUrl, '/ip/81.2.69.1')).body);
    assert.deepEqual(
      [data['isp'], data['org'], data['asn']],
      ['A&A Broadband', 'A&A Customer', 'AS20712'],
    );
  });
});

describe('unusable GEOIP_DB / ASN_DB stop start-up with a DataError naming the variable', () => {
  const table: { env: () => Record<string, string>; pattern: RegExp }[] = [
    { env: () => ({ GEOIP_DB: join(dir, 'missing.mmdb') }), pattern: /^GEOIP_DB: cannot open/ },
    { env: () => ({ GEOIP_DB: join(dir, 'not-an-mmdb.mmdb') }), pattern: /^GEOIP_DB: cannot open/ },
    {
      env: () => ({ GEOIP_DB: join(dir, 'ASN.mmdb') }),
      pattern: /^GEOIP_DB: database type "GeoLite2-ASN"/,
    },
    {
      env: () => ({ GEOIP_DB: join(dir, 'City.mmdb'), ASN_DB: join(dir, 'City.mmdb') }),
      pattern: /^ASN_DB: database type "GeoLite2-City"/,
    },
    {
      env: () => ({ GEOIP_DB: join(dir, 'City.mmdb'), ASN_DB: join(dir, 'not-an-mmdb.mmdb') }),
      pattern: /^ASN_DB: cannot open/,
    },
  ];
  for (const { env, pattern } of table) {
    it(String(pattern), async () => {
      await assert.rejects(loadServiceData(loadConfig(env()), silentLog), (error: unknown) => {
        assert.ok(error instanceof DataError);
        assert.match(error.message, pattern);
        return true;
      });
    });
  }
});

const FIXTURES = join(PROJECT_ROOT, '..', 'shared', 'fixtures', 'mmdb');
const fixturesMissing = existsSync(join(FIXTURES, 'GeoLite2-City-Test.mmdb'))
  ? false
  : `MaxMind test databases not found at ${FIXTURES}: replay skipped`;

describe('MaxMind test databases (../shared/fixtures/mmdb)', { skip: fixturesMissing }, () => {
  let service: TestService;
  before(async () => {
    service = await startService({
      env: {
        GEOIP_DB: join(FIXTURES, 'GeoLite2-City-Test.mmdb'),
        ASN_DB: join(FIXTURES, 'GeoLite2-ASN-Test.mmdb'),
        RATE_LIMIT_MAX: '100000',
      },
    });
  });
  after(() => service?.close());

  const table: { address: string; want: Record<string, unknown> }[] = [
    {
      address: '81.2.69.142',
      want: { country: 'GB', city: 'London', region: 'England', timezone: 'Europe/London' },
    },
    { address: '216.160.83.56', want: { country: 'US', city: 'Milton', region: 'Washington' } },
    { address: '2a02:d0c0::1', want: { country: 'RU' } },
    { address: '1.128.0.1', want: { asn: 'AS1221', org: 'Telstra Pty Ltd' } },
    { address: '12.81.96.5', want: { asn: 'AS7018', org: null } },
  ];
  for (const { address, want } of table) {
    it(`/ip/${address}`, async () => {
      const data = dataOf((await get(service.baseUrl, `/ip/${address}`)).body);
      for (const [field, value] of Object.entries(want)) assert.equal(data[field], value, field);
    });
  }
});
