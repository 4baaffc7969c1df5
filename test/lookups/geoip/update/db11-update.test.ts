// IP2Location LITE DB11 fetched by `update-data` with the operator's
// IP2LOCATION_TOKEN as an uncalibrated city source (issue 42), against a
// loopback IP2Location serving ZIPs written here in the documented format
// (test/helpers/db11-release.ts): both ZIPs land in DATA_DIR, the location
// table is compiled with them in the update's worker, and the real service
// in its own process swaps it in on SIGHUP. Where the calibrated sources
// answer, the answer is what it was, DB11 named beside them when it agrees;
// where none does, DB11's city and point fill in (the zone from the
// coordinates, no radius). IP2Location's text answers ("NO PERMISSION", the
// hourly limit), a 403, a truncated ZIP, one without the CSV, one whose CSV
// is not DB11's and a far smaller one each keep the copy and say why; the
// token is in no line, status or record. A small GEOIP_DB stands in for the
// GeoIP data.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../../src/config.js';
import { DB11_ENTRIES } from '../../../../src/lookups/geoip/compile/db11.js';
import { fetchedDb11Paths } from '../../../../src/lookups/geoip/update/paths.js';
import { readStatus } from '../../../../src/lookups/geoip/update/update-status.js';
import { db11Csv, v4, v6, zipOf, type Db11Place } from '../../../helpers/db11-release.js';
import { startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import { sha256, tablesFrom } from '../../../helpers/geo-release.js';
import { londonAndLeeds } from '../../../helpers/mmdb-writer.js';
import { OptInService, fileHash, type OptInAnswer } from '../../../helpers/opt-in-service.js';

/** where the GeoIP data (GEOIP_DB) and DB11 agree on the country */
const AGREED = '81.2.69.142';
/** where they disagree: the GeoIP data's answer stands */
const DISAGREED = '81.2.70.9';
/** outside every IANA allocation to a registry: no calibrated source answers there */
const UNPLACED = '2e00:1::1';
const TOKEN = 'SECRET-ip2location-token-0815';
const download = (file: string, token = TOKEN) => `/ip2location/?token=${token}&file=${file}`;

const place = (
  from: bigint,
  to: bigint,
  country: string,
  city: string,
  [latitude, longitude]: [number, number],
): Db11Place => ({
  from,
  to,
  country,
  countryName: `Country ${country}`,
  region: `Region of ${city}`,
  city,
  latitude,
  longitude,
  zip: '-',
  offset: '+01:00',
});

/** the IPv4 CSV: the two /24s and `others` /24s of filler (some size to compare) */
const v4Csv = (others: number) =>
  db11Csv(
    [
      place(v4('81.2.69.0'), v4('81.2.69.255'), 'GB', 'Westminster', [51.5, -0.13]),
      place(v4('81.2.70.0'), v4('81.2.70.255'), 'IE', 'Dublin', [53.34, -6.26]),
      ...Array.from({ length: others }, (_, i) => {
        const start = v4('100.64.0.0') + BigInt(i * 256);
        return place(start, start + 255n, 'US', `Town ${i}`, [40, -100 + i / 100]);
      }),
    ],
    4,
  );

/** the IPv6 CSV: an IPv4-mapped row (the IPv4 file answers those) and Amsterdam */
const v6Csv = db11Csv(
  [
    place(v6('::ffff:5102:4500'), v6('::ffff:5102:45ff'), 'GB', 'Westminster', [51.5, -0.13]),
    place(
      v6('2e00::'),
      v6('2e00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'),
      'NL',
      'Amsterdam',
      [52.37403, 4.88969],
    ),
  ],
  6,
);

const dir = mkdtempSync(join(tmpdir(), 'ipintel-db11-update-'));
const dataDir = join(dir, 'data');
const geoipDb = join(dir, 'city.mmdb');
writeFileSync(geoipDb, londonAndLeeds());

let server: FeedServer;
let service: OptInService;
let first: { v4: Buffer; v6: Buffer };

function env(over: Record<string, string> = {}): Record<string, string> {
  return {
    GEOIP_DB: geoipDb,
    DATA_DIR: dataDir,
    IP2LOCATION_TOKEN: TOKEN,
    IP2LOCATION_BASE_URL: server.url('/ip2location'),
    RATE_LIMIT_MAX: '10000',
    ...over,
  };
}

/** IP2Location's two downloads for the right token; a 403 for any other */
function publish(ipv4: Buffer | string, ipv6: Buffer | string = first.v6): void {
  const type = 'application/zip';
  server.route(download('DB11LITECSV'), { body: ipv4, type });
  server.route(download('DB11LITECSVIPV6'), { body: ipv6, type });
  server.route('/ip2location/', { status: 403, body: 'Forbidden' });
}

before(async () => {
  server = await startFeedServer({});
  first = {
    v4: await zipOf(DB11_ENTRIES.v4, v4Csv(300)),
    v6: await zipOf(DB11_ENTRIES.v6, v6Csv),
  };
  publish(first.v4);
  service = await OptInService.start('ip2location-db11', env());
});
after(async () => {
  await service.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('IP2Location LITE DB11 fetched with IP2LOCATION_TOKEN, uncalibrated', () => {
  const before: Record<string, OptInAnswer> = {};
  const paths = () => fetchedDb11Paths(dataDir);

  it('before any update the calibrated sources answer alone; nothing at the unplaced address', async () => {
    for (const ip of [AGREED, DISAGREED, UNPLACED]) before[ip] = await service.answerOf(ip);
    assert.equal(before[AGREED]!.record.city, 'London');
    assert.equal(before[UNPLACED]!.record.country, null);
    assert.doesNotMatch(before[AGREED]!.source, /db11/);
  });

  it('update-data fetches both ZIPs; after SIGHUP DB11 joins without changing the answer', async () => {
    const { status, text } = await service.updateData();
    assert.equal(status, 0, text);
    assert.match(text, /ip2location-db11\s+ok\s+updated\s+IP2Location LITE DB11/);
    assert.match(text, /\?token=\[redacted\]&file=DB11LITECSVIPV6/);
    assert.equal(text.includes(TOKEN), false, 'the token is not printed');
    assert.equal(fileHash(paths().v4), sha256(first.v4));
    assert.equal(fileHash(paths().v6), sha256(first.v6));
    assert.equal(readStatus(dataDir)['ip2location-db11']?.outcome, 'updated');
    assert.equal(tablesFrom(dataDir, first.v4), 1, 'compiled in the update, for the reload');
    await service.reload();

    const agreed = await service.answerOf(AGREED);
    assert.deepEqual(agreed.record, before[AGREED]!.record, 'the calibrated answer is unchanged');
    assert.equal(agreed.source, `${before[AGREED]!.source}, ip2location-db11`);
    assert.deepEqual(await service.answerOf(DISAGREED), before[DISAGREED]);

    const unplaced = await service.answerOf(UNPLACED);
    assert.deepEqual(
      {
        country: unplaced.record.country,
        city: unplaced.record.city,
        timezone: unplaced.record.timezone,
        radius: unplaced.record.accuracyRadiusKm,
      },
      { country: 'NL', city: 'Amsterdam', timezone: 'Europe/Amsterdam', radius: null },
    );
    assert.equal(unplaced.source, 'ip2location-db11');

    const listed = await service.listed('ip2location-db11');
    assert.equal(listed?.licence, 'CC BY-SA 4.0');
    assert.equal(listed?.version, '2026-11-01', "the CSV's date in the ZIP");
    assert.match(listed?.attribution?.text ?? '', /IP2Location LITE data available from/);
  });

  it('IP2Location answering text, a 403, a truncated, wrong or far smaller ZIP keep the copy', async () => {
    const kept = { [paths().v4]: fileHash(paths().v4), [paths().v6]: fileHash(paths().v6) };
    const cases: [string, () => Promise<void> | void, RegExp, boolean?][] = [
      [
        'no permission',
        () => publish('NO PERMISSION'),
        /IP2Location answered "NO PERMISSION" instead of a ZIP/,
      ],
      [
        'the hourly limit, on the IPv6 file',
        () => publish(first.v4, 'THIS FILE CAN ONLY BE DOWNLOADED 5 TIMES PER HOUR\r\n'),
        /answered "THIS FILE CAN ONLY BE DOWNLOADED 5 TIMES PER HOUR"/,
      ],
      ['a refused token', () => undefined, /HTTP 403 \(IP2LOCATION_TOKEN refused\)/, true],
      [
        'truncated',
        () => publish(first.v4.subarray(0, first.v4.length >> 1)),
        /not a readable ZIP/,
      ],
      [
        'another file in the ZIP',
        async () => publish(await zipOf('IP2LOCATION-LITE-DB1.CSV', v4Csv(300))),
        /IP2LOCATION-LITE-DB11\.CSV is not in the downloaded ZIP/,
      ],
      [
        'not DB11 rows',
        async () => publish(await zipOf(DB11_ENTRIES.v4, 'hello,world\r\n')),
        /line 1 is not a DB11 row/,
      ],
      [
        'far smaller',
        async () => publish(await zipOf(DB11_ENTRIES.v4, v4Csv(3))),
        /bytes, far fewer than the \d+ of the current copy/,
      ],
    ];
    for (const [name, serve, reason, wrongToken] of cases) {
      await serve();
      const config = wrongToken ? service.configWith({ IP2LOCATION_TOKEN: 'another' }) : undefined;
      await service.assertRefused(name, reason, kept, TOKEN, config);
    }
    assert.match(
      await service.metrics(),
      /ipintel_data_update_last_outcome\{kind="ip2location-db11",outcome="failed"\} 1/,
    );
    await service.reload();
    assert.equal((await service.answerOf(UNPLACED)).record.city, 'Amsterdam', 'the copy answers');
  });

  it('the switch: IP2LOCATION_TOKEN on, unset or FEEDS_DISABLED=ip2location-db11 off', () => {
    assert.notEqual(loadConfig(env()).dataUpdate.ip2location, null);
    assert.equal(loadConfig({ DATA_DIR: dataDir }).dataUpdate.ip2location, null);
    const off = loadConfig(env({ FEEDS_DISABLED: 'ip2location-db11' }));
    assert.equal(off.dataUpdate.ip2location, null);
    assert.equal(JSON.stringify(loadConfig(env()).dataUpdate).includes(TOKEN), false);
  });
});
