// IPinfo Lite fetched by `update-data` with the operator's IPINFO_TOKEN as an
// uncalibrated location source (issue 42), against a loopback IPinfo serving
// MMDB files written here in IPinfo Lite's layout (flat string records:
// network, country, country_code, continent, continent_code, asn, as_name,
// as_domain): the file lands in DATA_DIR, the location table is compiled
// with it in the update's worker, and the real service in its own process
// swaps it in on SIGHUP. Where the calibrated sources answer, the answer is
// what it was, IPinfo Lite named beside them when it agrees; where none
// does, it fills in the country (no radius). A refused token, a file that is
// no MMDB, a truncated one, another database and a far smaller one each keep
// the copy and say why; the token is in no line, status or record. A small
// GEOIP_DB stands in for the GeoIP data.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../../../src/config.js';
import { fetchedIpinfoLitePath } from '../../../../src/lookups/geoip/update/paths.js';
import { readStatus } from '../../../../src/lookups/geoip/update/update-status.js';
import { startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import { getOnce } from '../../../helpers/http-get.js';
import {
  buildMmdb,
  cityRecord,
  ipinfoLiteRecord,
  londonAndLeeds,
} from '../../../helpers/mmdb-writer.js';
import { tablesFrom as tablesIn } from '../../../helpers/geo-release.js';
import { OptInService, fileHash, type OptInAnswer } from '../../../helpers/opt-in-service.js';

/** where the GeoIP data (GEOIP_DB) and IPinfo Lite agree */
const AGREED = '81.2.69.142';
/** where they disagree: the GeoIP data's country stands */
const DISAGREED = '81.2.70.9';
/** outside every IANA allocation to a registry: no calibrated source answers there */
const UNPLACED = '2e00:1::1';
const TOKEN = 'SECRET-ipinfo-token-4711';
const FILE = '/ipinfo/ipinfo_lite.mmdb';

const lite = (network: string, code: string) => ({
  network,
  data: ipinfoLiteRecord(network, code),
});

/** an IPinfo Lite file: the three networks above and `others` /24s elsewhere */
const ipinfoLite = (others: number, databaseType = 'ipinfo ipinfo_lite.mmdb') =>
  buildMmdb({
    databaseType,
    networks: [
      lite('81.2.69.0/24', 'GB'),
      lite('81.2.70.0/24', 'IE'),
      lite('2e00::/16', 'NL'),
      ...Array.from({ length: others }, (_, i) =>
        lite(`100.${64 + (i >> 8)}.${i & 255}.0/24`, 'US'),
      ),
    ],
  });

const firstCopy = ipinfoLite(512);
const nextCopy = ipinfoLite(600);

const dir = mkdtempSync(join(tmpdir(), 'ipintel-ipinfo-update-'));
const dataDir = join(dir, 'data');
const geoipDb = join(dir, 'city.mmdb');
writeFileSync(geoipDb, londonAndLeeds());

let server: FeedServer;
let service: OptInService;

function env(over: Record<string, string> = {}): Record<string, string> {
  return {
    GEOIP_DB: geoipDb,
    DATA_DIR: dataDir,
    IPINFO_TOKEN: TOKEN,
    IPINFO_BASE_URL: server.url('/ipinfo'),
    RATE_LIMIT_MAX: '10000',
    ...over,
  };
}

/** IPinfo's download: the file for the right token, 403 for any other */
function publish(body: Buffer | string, status = 200): void {
  server.route(`${FILE}?token=${TOKEN}`, { body, status, type: 'application/octet-stream' });
  server.route(FILE, { status: 403, body: 'Unknown token' });
}

const tablesFrom = (copy: Buffer) => tablesIn(dataDir, copy);
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

before(async () => {
  server = await startFeedServer({});
  publish(firstCopy);
  service = await OptInService.start('ipinfo-lite', env());
});
after(async () => {
  await service.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('IPinfo Lite fetched with IPINFO_TOKEN, uncalibrated', () => {
  const before: Record<string, OptInAnswer> = {};

  it('before any update the calibrated sources answer alone; nothing at the unplaced address', async () => {
    for (const ip of [AGREED, DISAGREED, UNPLACED]) before[ip] = await service.answerOf(ip);
    assert.equal(before[AGREED]!.record.country, 'GB');
    assert.equal(before[DISAGREED]!.record.country, 'GB');
    assert.equal(before[UNPLACED]!.record.country, null);
    assert.doesNotMatch(before[AGREED]!.source, /ipinfo/);
  });

  it('update-data fetches it with the token; after SIGHUP it joins without changing the answer', async () => {
    const { status, text } = await service.updateData();
    assert.equal(status, 0, text);
    assert.match(text, /ipinfo-lite\s+ok\s+updated\s+IPinfo Lite/);
    assert.match(text, /ipinfo_lite\.mmdb\?token=\[redacted\]/);
    assert.equal(text.includes(TOKEN), false, 'the token is not printed');
    assert.equal(fileHash(fetchedIpinfoLitePath(dataDir)), sha256(firstCopy));
    assert.equal(readStatus(dataDir)['ipinfo-lite']?.outcome, 'updated');
    // compiled in the update's worker, for the reload to open
    assert.equal(tablesFrom(firstCopy), 1);
    // its hash remembered there by the file's identity: the reload does not read it whole
    const hashes = readFileSync(join(dataDir, 'tables', 'opt-in-hashes.json'), 'utf8');
    assert.ok(hashes.includes(sha256(firstCopy)));
    await service.reload();

    const agreed = await service.answerOf(AGREED);
    assert.deepEqual(agreed.record, before[AGREED]!.record, 'the calibrated answer is unchanged');
    assert.equal(agreed.source, `${before[AGREED]!.source}, ipinfo-lite`);

    const disagreed = await service.answerOf(DISAGREED);
    assert.deepEqual(disagreed, before[DISAGREED], 'a disagreeing IPinfo Lite changes nothing');

    const unplaced = await service.answerOf(UNPLACED);
    assert.equal(unplaced.record.country, 'NL');
    assert.equal(unplaced.record.city, null);
    assert.equal(unplaced.record.accuracyRadiusKm, null);
    assert.equal(unplaced.source, 'ipinfo-lite');

    const listed = await service.listed('ipinfo-lite');
    assert.equal(listed?.licence, 'CC BY-SA 4.0');
    assert.equal(listed?.version, '2023-11-14', 'the build date of the file written here');
    const credits = String(
      (await getOnce(service.port, `/ip/${AGREED}`)).headers['x-data-attribution'],
    );
    assert.match(
      credits,
      /IP address data powered by IPinfo <https:\/\/ipinfo\.io> \(CC BY-SA 4\.0\)/,
    );
  });

  it('the same file again changes nothing; a new one replaces it and its old table goes', async () => {
    assert.match((await service.updateData()).text, /ipinfo-lite\s+ok\s+unchanged/);
    publish(nextCopy);
    const { status, text } = await service.updateData();
    assert.equal(status, 0, text);
    assert.match(text, /ipinfo-lite\s+ok\s+updated/);
    assert.equal(fileHash(fetchedIpinfoLitePath(dataDir)), sha256(nextCopy));
    assert.equal(tablesFrom(nextCopy), 1);
    assert.equal(tablesFrom(firstCopy), 0, 'the table of the replaced copy is deleted');
  });

  it('a refused token, garbage, a truncated, a wrong or a far smaller file keep the copy and say why', async () => {
    const wrongToken = service.configWith({ IPINFO_TOKEN: 'another-token' });
    const cases: [string, () => void, RegExp, typeof wrongToken?][] = [
      ['refused token', () => publish(nextCopy), /HTTP 403 \(IPINFO_TOKEN refused\)/, wrongToken],
      ['garbage', () => publish('<html>maintenance</html>'), /not a readable MMDB file/],
      [
        'truncated',
        () => publish(nextCopy.subarray(0, nextCopy.length >> 1)),
        /not a readable MMDB file/,
      ],
      [
        'another database',
        () =>
          publish(
            buildMmdb({ databaseType: 'GeoLite2-City', networks: [lite('81.2.69.0/24', 'GB')] }),
          ),
        /database type "GeoLite2-City" is not an IPinfo database/,
      ],
      [
        'records without a country_code',
        () =>
          publish(
            buildMmdb({
              databaseType: 'ipinfo ipinfo_lite.mmdb',
              networks: [{ network: '81.2.69.0/24', data: cityRecord({ country: 'GB' }) }],
            }),
          ),
        /not IPinfo Lite records/,
      ],
      ['far smaller', () => publish(ipinfoLite(4)), /search-tree nodes, far fewer than/],
      ['an error status', () => publish('try later', 503), /HTTP 503/],
    ];
    const path = fetchedIpinfoLitePath(dataDir);
    const kept = { [path]: fileHash(path) };
    for (const [name, serve, reason, config] of cases) {
      serve();
      await service.assertRefused(name, reason, kept, TOKEN, config);
    }
    assert.match(
      await service.metrics(),
      /ipintel_data_update_last_outcome\{kind="ipinfo-lite",outcome="failed"\} 1/,
    );
    await service.reload();
    assert.equal((await service.answerOf(UNPLACED)).source, 'ipinfo-lite', 'the old copy answers');
  });

  it('the switch: IPINFO_TOKEN on, unset or FEEDS_DISABLED=ipinfo-lite off; the token never printed', () => {
    assert.notEqual(loadConfig(env()).dataUpdate.ipinfoLite, null);
    assert.equal(loadConfig({ DATA_DIR: dataDir }).dataUpdate.ipinfoLite, null);
    assert.equal(loadConfig(env({ FEEDS_DISABLED: 'ipinfo-lite' })).dataUpdate.ipinfoLite, null);
    assert.equal(JSON.stringify(loadConfig(env()).dataUpdate).includes(TOKEN), false);
  });
});
