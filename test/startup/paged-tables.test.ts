// The service listens before its tables are in memory: it answers from what
// each lookup reads of the table files (src/data/table-file.ts, Pager) and
// reads the rest a second after it listens. The real service in a child
// process: its answers before and after the rest is read are those of the
// same tables read whole, and its memory grows by the tables only after it
// listened.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadEmbedded } from '../../src/data/compile-sources.js';
import { GeoIpLookup } from '../../src/lookups/geoip/geoip.js';
import { parseIp } from '../../src/net/ip.js';
import { getOnce } from '../helpers/http-get.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { until } from '../helpers/wait.js';

interface LogLine {
  msg: string;
  rssMb?: number;
  ms?: number;
}

/** addresses spread over both families and several continents */
const ADDRESSES = [
  '8.8.8.8',
  '1.1.1.1',
  '81.2.69.142',
  '202.12.29.205',
  '196.11.240.1',
  '200.160.2.3',
  '2a00:1450:4001:80e::200e',
  '2001:218:0:2000::1',
  '2606:4700:4700::1111',
  '2c0f:fb50:4002:800::200e',
];

describe('paged tables at start', () => {
  let service: SpawnedService;
  let reference: GeoIpLookup;

  before(async () => {
    service = await spawnService({});
    const whole = await loadEmbedded(pino({ level: 'silent' }));
    reference = new GeoIpLookup({ tables: { geoip: whole.geoip, asn: whole.asn } });
  });
  after(() => service.kill());

  const logs = (): LogLine[] => service.logLines<LogLine>();

  const answersMatch = async (when: string): Promise<void> => {
    for (const address of ADDRESSES) {
      const answer = await getOnce(service.port, `/ip/${address}`);
      assert.equal(answer.status, 200, `${address} ${when}`);
      assert.equal(
        answer.body,
        Buffer.from(reference.body(parseIp(address)!), 'latin1').toString('utf8'),
        `${address} ${when}`,
      );
    }
  };

  it('answers as the tables read whole before the rest is read, and after', async () => {
    assert.equal(
      logs().find((line) => line.msg === 'tables in memory'),
      undefined,
      'the rest is read a second after listening, not before',
    );
    await answersMatch('before the rest of the tables is read');
    await until(() => logs().some((line) => line.msg === 'tables in memory'), 20_000, 50);
    await answersMatch('after');
  });

  it('its memory grows by the tables (117 MB) only after it listened', async () => {
    await until(() => logs().some((line) => line.msg === 'tables in memory'), 20_000, 50);
    const listening = logs().find((line) => line.msg === 'ipintel listening')!.rssMb!;
    const whole = logs().find((line) => line.msg === 'tables in memory')!.rssMb!;
    assert.ok(
      whole - listening >= 80,
      `RSS ${listening} MB at listening, ${whole} MB with the tables in memory`,
    );
  });
});
