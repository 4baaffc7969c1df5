// Crash safety of the update path: `npm run update-data` killed (SIGKILL) at
// seeded random moments of real runs (a loopback publisher of GeoIP/ASN
// releases and feeds) leaves a running service answering from the last good
// data, a fresh start on that DATA_DIR starts, and the next update completes
// and removes what the killed runs left in progress — only that: a file in
// progress of a writer that is still alive stays.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_FEEDS } from '../../src/lookups/vpn/feeds/default-feeds.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import {
  ADDRESS,
  asnCsv,
  flatCity,
  updateFromLoopback,
  publishRelease,
} from '../helpers/geo-release.js';
import { getOnce } from '../helpers/http-get.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';
import { entryArgs } from '../helpers/entry.js';
import { until } from '../helpers/wait.js';

const KILLS = 10;
/** a Tor bulk exit list long enough for the feed's minimum */
const TOR_EXITS = Array.from({ length: 400 }, (_, i) => `185.220.${100 + (i >> 8)}.${i & 255}`);

let server: FeedServer;
let dir: string;
const services: SpawnedService[] = [];
before(async () => {
  server = await startFeedServer({});
  server.route('/feeds/tor-exits', { body: `${TOR_EXITS.join('\n')}\n` });
  dir = await mkdtemp(join(tmpdir(), 'ipintel-update-killed-'));
});
after(async () => {
  for (const service of services) service.kill();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

function updateEnv(): Record<string, string> {
  const others = DEFAULT_FEEDS.map((f) => f.id).filter((id) => id !== 'tor-exits');
  return {
    DATA_DIR: dir,
    LOG_LEVEL: 'warn',
    FEEDS_DISABLED: [...others, 'rdap-bootstrap'].join(','),
    FEED_URL_TOR_EXITS: server.url('/feeds/tor-exits'),
    DATA_BASE_URL: server.url('/latest'),
    DATA_CHECKSUM_BASE_URL: server.url('/checksum'),
  };
}

/** One `update-data` run; killed after `killAfterMs` when given. */
function updateData(
  killAfterMs?: number,
): Promise<{ code: number | null; signal: string | null; out: string; ms: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, entryArgs('scripts/update-data.ts'), {
    env: { ...process.env, ...updateEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const timer =
    killAfterMs === undefined ? null : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.once('close', (code, signal) => {
      if (timer !== null) clearTimeout(timer);
      resolve({ code, signal, out, ms: performance.now() - started });
    }),
  );
}

/** The id of a process that has exited: what a killed writer's names carry. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** Everything in progress (ours or a killed run's) in DATA_DIR and its two folders. */
async function inProgress(): Promise<string[]> {
  const found: string[] = [];
  for (const sub of ['', 'tables', 'feeds']) {
    const names = await readdir(join(dir, sub)).catch(() => [] as string[]);
    for (const name of names) {
      if (/\.partial\.|^\.work-|\.tmp/.test(name)) found.push(join(sub, name));
    }
  }
  return found.sort();
}

/** The GeoIP/ASN reloads SIGHUP asked of `service` that ended so far (new data or the old kept). */
function sighupReloads(service: SpawnedService): number {
  return service
    .logLines<{ msg?: string; reason?: string }>()
    .filter(
      (line) =>
        line.reason === 'SIGHUP' &&
        /^GeoIP\/ASN (data reloaded|reload failed)/.test(line.msg ?? ''),
    ).length;
}

/**
 * SIGHUP to `service`, resolved when its reload of the GeoIP/ASN data has
 * ended: the event, not a pause that a busy machine may outlast.
 */
async function reload(service: SpawnedService): Promise<void> {
  const before = sighupReloads(service);
  service.kill('SIGHUP');
  // a bound only against a hang: a reload of these small sets takes well under a second
  await until(() => sighupReloads(service) > before, 60_000, 20);
}

async function city(service: SpawnedService): Promise<string> {
  const reply = await getOnce(service.port, `/ip/${ADDRESS}`);
  assert.equal(reply.status, 200, reply.body);
  return (JSON.parse(reply.body) as { data: { city: string } }).data.city;
}

describe('update-data killed at random moments', () => {
  it('the service keeps answering, a fresh start starts, and the next update completes and clears what was left', async () => {
    const random = seededRandom();
    const seed = `TEST_SEED=${random.seed}`;
    // a DATA_DIR holding a small current set, as a previous update left it
    publishRelease(server, flatCity('London', 'GB'), asnCsv(20712, 'A&A'));
    const seeded = await updateFromLoopback(server, dir);
    assert.ok(seeded.every((r) => r.outcome === 'updated'));
    // the length of a whole run, over which the kills are spread
    publishRelease(server, flatCity('London', 'GB'), asnCsv(20711, 'A&A'));
    const first = await updateData();
    assert.equal(first.code, 0, first.out);
    const service = await spawnService({ DATA_DIR: dir });
    services.push(service);
    assert.equal(await city(service), 'London');

    // what a run killed before this version (no host in its names) and one
    // killed now left, both abandoned; and a live writer's file in progress
    const dead = await deadPid();
    const host = hostname();
    await mkdir(join(dir, 'tables', `.work-asn.partial.${dead}@${host}.0badc0de`));
    await writeFile(join(dir, 'feeds', `aws.feed.json.partial.${dead}@${host}.0badc0de`), '{"fo');
    const live = join('tables', `asn.update.tables.partial.${process.pid}@${host}.c0ffee00`);
    await writeFile(join(dir, live), 'being written');

    const cities = new Set(['London', 'Paris']);
    const moments: number[] = [];
    for (let i = 0; i < KILLS; i++) {
      // each run has new data to fetch and compile
      publishRelease(
        server,
        flatCity(i % 2 === 0 ? 'Paris' : 'London', i % 2 === 0 ? 'FR' : 'GB'),
        asnCsv(20712 + i, `A&A ${i}`),
      );
      const at = Math.round(random.float() * first.ms);
      moments.push(at);
      await updateData(at);
      await reload(service);
      const now = await city(service);
      assert.ok(cities.has(now), `${seed}: after a kill at ${at} ms the service answered ${now}`);
    }

    // a fresh start on what the killed runs left
    const fresh = await spawnService({ DATA_DIR: dir });
    services.push(fresh);
    assert.ok(cities.has(await city(fresh)), `${seed}: kills at ${moments.join(', ')} ms`);
    fresh.kill();

    publishRelease(server, flatCity('Madrid', 'ES'), asnCsv(3352, 'Telefonica'));
    const last = await updateData();
    assert.equal(last.code, 0, `${seed}: ${last.out}`);
    assert.match(last.out, /3 of 3 data set\(s\) current/, last.out);
    assert.deepEqual(await inProgress(), [live], `${seed}: kills at ${moments.join(', ')} ms`);
    assert.ok((await stat(join(dir, live))).isFile());
    await reload(service);
    assert.equal(await city(service), 'Madrid');
  });
});
