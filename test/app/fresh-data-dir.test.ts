// A new user's first start: DATA_DIR empty (a fresh Docker volume) or not
// there at all. The compiled tables of the embedded data belong to the
// installation, so the service starts at once with full accuracy (the time
// zones geo-tz resolved at install time, the ASN), compiles nothing, warns
// about nothing, and writes nothing into DATA_DIR until it has something to keep.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { getOnce } from '../helpers/http-get.js';
import { spawnService } from '../helpers/spawned-service.js';

interface LogLine {
  level: number;
  msg: string;
}

async function startWith(
  dataDir: string,
): Promise<{ port: number; logs: () => LogLine[]; stop: () => void }> {
  const service = await spawnService({ DATA_DIR: dataDir });
  const logs = (): LogLine[] => service.logLines<LogLine>();
  return { port: service.port, logs, stop: () => service.kill() };
}

const CASES = [
  { name: 'an empty DATA_DIR (a fresh volume)', create: true },
  { name: 'a DATA_DIR that does not exist', create: false },
];

describe('a fresh DATA_DIR', () => {
  for (const { name, create } of CASES) {
    it(`${name}: full answers at once, no compiling, no warnings, nothing written`, async (t) => {
      const parent = await mkdtemp(join(tmpdir(), 'ipintel-fresh-'));
      const dataDir = create ? parent : join(parent, 'missing', 'data');
      t.after(() => rm(parent, { recursive: true, force: true }));
      const service = await startWith(dataDir);
      t.after(service.stop);

      const answer = await getOnce(service.port, '/ip/8.8.8.8');
      assert.equal(answer.status, 200);
      const record = (JSON.parse(answer.body) as { data: Record<string, unknown> }).data;
      // the time zone comes from the install-time geo-tz pass, the network from the ASN tables
      assert.equal(record['timezone'], 'America/Los_Angeles');
      assert.equal(record['asn'], 'AS15169');
      assert.equal(record['country'], 'US');
      const v6 = await getOnce(service.port, '/ip/2a00:1450:4001:80e::200e');
      assert.equal(
        (JSON.parse(v6.body) as { data: Record<string, unknown> }).data['timezone'],
        'Europe/Berlin',
      );

      const warnings = service.logs().filter((line) => line.level >= 40);
      assert.deepEqual(warnings, [], 'no warning on a fresh start');
      assert.ok(!service.logs().some((line) => /compil/i.test(line.msg)), 'nothing compiled');
      const written = create ? await readdir(dataDir) : [];
      assert.deepEqual(written, [], 'DATA_DIR holds only what is downloaded or compiled later');
    });
  }
});
