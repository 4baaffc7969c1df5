// The service listens before its tables are in memory: it answers from what
// each lookup reads of the table files (src/data/table-file.ts, Pager) and
// reads the rest once it listens. The real service in a child process: its
// memory grows by the tables only after it listened, and its answers are
// those of the same tables read whole. (That paged lookups answer exactly
// what whole ones do, address by address, test/lookups/geoip/compiled-tables.test.ts
// shows over 200,000 addresses.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { loadEmbedded } from '../../src/lookups/geoip/compile/compile-sources.js';
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

  it('reads the rest of its tables after it listened: its memory grows by them (117 MB) only then', async () => {
    await until(() => logs().some((line) => line.msg === 'tables in memory'), 20_000, 50);
    const lines = logs();
    const listening = lines.findIndex((line) => line.msg === 'ipintel listening');
    const whole = lines.findIndex((line) => line.msg === 'tables in memory');
    assert.ok(listening >= 0 && whole > listening, 'listening first, the tables in memory after');
    const before = lines[listening]!.rssMb!;
    const after = lines[whole]!.rssMb!;
    assert.ok(
      after - before >= 80,
      `RSS ${before} MB at listening, ${after} MB with the tables in memory`,
    );
  });

  it('answers as the same tables read whole', async () => {
    await answersMatch('paged, then whole');
  });
});
