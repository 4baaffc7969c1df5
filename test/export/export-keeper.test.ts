// The EXPORT_DIR keeper's queue (src/export/export-keeper.ts) with builds the
// test controls: one at a time, swaps during a build make one more build
// (not one each), the same data makes none, a failed build is counted and the
// next one still runs. And GET /export/… before any build: 404 NOT_FOUND.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import pino from 'pino';
import { ExportKeeper } from '../../src/export/export-keeper.js';
import { errorCode, get, startService } from '../helpers/service.js';

const silent = pino({ level: 'silent' });

/** A build that ends when the test says, recording each start. */
function controlledBuilds() {
  const ends: { resolve: (said: string) => void; reject: (error: Error) => void }[] = [];
  let started = 0;
  const build = () =>
    new Promise<string>((resolve, reject) => {
      started++;
      ends.push({ resolve, reject });
    });
  return { build, ends, started: () => started };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('the export keeper', () => {
  it('runs one build at a time; swaps during a build queue one more; the same data none', async () => {
    const c = controlledBuilds();
    const keeper = new ExportKeeper(c.build, silent);
    keeper.dataIs('v1', 'start');
    keeper.dataIs('v1', 'timer');
    assert.equal(c.started(), 1);
    keeper.dataIs('v2', 'SIGHUP');
    keeper.dataIs('v3', 'update');
    keeper.dataIs('v3', 'timer');
    await tick();
    assert.equal(c.started(), 1, 'nothing starts while a build runs');
    c.ends[0]!.resolve('1 files written');
    await tick();
    assert.equal(c.started(), 2, 'one more build for the swaps that came meanwhile');
    c.ends[1]!.resolve('up to date: nothing to write');
    await keeper.idle();
    assert.equal(c.started(), 2);
    assert.deepEqual(
      { ...keeper.counts, lastSuccessAt: keeper.counts.lastSuccessAt !== null },
      {
        ok: 1,
        skipped: 1,
        failed: 0,
        lastSuccessAt: true,
      },
    );
  });

  it('counts a failed build and builds again at the next swap', async () => {
    const c = controlledBuilds();
    const keeper = new ExportKeeper(c.build, silent);
    keeper.dataIs('v1', 'start');
    c.ends[0]!.reject(new Error('export exited 1: OVERRIDES_FILE refused'));
    await keeper.idle();
    assert.equal(keeper.counts.failed, 1);
    assert.equal(keeper.counts.lastSuccessAt, null);
    keeper.dataIs('v2', 'SIGHUP');
    c.ends[1]!.resolve('written');
    await keeper.idle();
    assert.deepEqual([keeper.counts.ok, keeper.counts.failed], [1, 1]);
  });
});

describe('GET /export/… before any build', () => {
  it('is 404 NOT_FOUND with EXPORT_DIR empty, and without EXPORT_DIR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ipintel-export-empty-'));
    const services = [
      await startService({ env: { EXPORT_DIR: dir } }),
      await startService({ env: {} }),
    ];
    try {
      for (const service of services) {
        const res = await get(service.baseUrl, '/export/ipintel-city.mmdb');
        assert.equal(res.status, 404);
        assert.equal(errorCode(res.body), 'NOT_FOUND');
      }
    } finally {
      for (const service of services) await service.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
