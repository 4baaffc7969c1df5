// The service's bundle (scripts/bundle.ts), what `npm start` and the container
// run: built here from the sources into a folder of its own, then run as a
// process. It must answer as the sources do, load the parts it bundled for
// later (prom-client, the MCP SDK, the map) when asked, keep those out of its
// start-up, and its compile worker must run from beside it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import type { Metafile } from 'esbuild';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { loadCompiledSet } from '../../src/lookups/geoip/compiled-set.js';
import type { CompileJob } from '../../src/lookups/geoip/update/compile-update.js';
import {
  LOADED_LATER,
  bundleService,
  entryOutput,
  loadedTooEarly,
  packagesOf,
  staticInputs,
} from '../../scripts/bundle.js';
import { geoip2City, ADDRESS } from '../helpers/geo-release.js';
import { getOnce } from '../helpers/http-get.js';
import { startRedisServer } from '../helpers/redis-server.js';
import { until } from '../helpers/wait.js';
import { startService, type TestService } from '../helpers/service.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';

// inside the project, as dist/bundle is: the bundle finds package.json, tables/ and web/ above it
const outdir = join(PROJECT_ROOT, 'dist', `bundle-test-${process.pid}`);
const scratch = mkdtempSync(join(tmpdir(), 'ipintel-bundle-'));
let metafile: Metafile;
let bundled: SpawnedService;
let source: TestService;

before(async () => {
  metafile = await bundleService(outdir);
  bundled = await spawnService({ LOG_LEVEL: 'warn' }, [join(outdir, 'main.js')], { asIs: true });
  source = await startService();
});

after(async () => {
  bundled?.kill();
  await source?.close();
  rmSync(outdir, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

describe('the service bundle', () => {
  it('keeps the packages only some deployments use out of its start-up, and has them for later', () => {
    const early = packagesOf(staticInputs(metafile, entryOutput(outdir)));
    // the closure is real: what every start needs is in it
    for (const name of ['zod', 'pino']) assert.ok(early.has(name), `${name} at start`);
    // zod's translations of its messages stay out; English, its default, is in
    const locales = Object.keys(metafile.inputs).filter((input) =>
      input.includes('/zod/v4/locales/'),
    );
    assert.deepEqual(
      locales.map((input) => input.split('/').pop()),
      ['en.js', 'index.js'],
    );
    assert.deepEqual(loadedTooEarly(metafile, entryOutput(outdir)), []);
    const all = packagesOf(Object.keys(metafile.inputs));
    for (const name of LOADED_LATER) {
      assert.ok(all.has(name), `${name} is bundled`);
      assert.ok(!early.has(name), `${name} is not loaded at start`);
    }
  });

  it('the check the build makes: a later package reached by static imports (through a chunk) is caught, one reached by import() is not', () => {
    const output = (inputs: string[], imports: Metafile['outputs'][string]['imports']) => ({
      bytes: 1,
      inputs: Object.fromEntries(inputs.map((input) => [input, { bytesInOutput: 1 }])),
      imports,
      exports: [],
    });
    const made: Metafile = {
      inputs: {},
      outputs: {
        'out/main.js': output(
          ['src/main.ts'],
          [
            { path: 'out/chunk-a.js', kind: 'import-statement' },
            { path: 'out/chunk-b.js', kind: 'dynamic-import' },
            { path: 'node:http', kind: 'import-statement', external: true },
          ],
        ),
        'out/chunk-a.js': output(
          ['node_modules/ioredis/built/index.js', 'node_modules/pino/pino.js'],
          [],
        ),
        'out/chunk-b.js': output(['node_modules/prom-client/index.js'], []),
      },
    };
    assert.deepEqual([...packagesOf(staticInputs(made, 'out/main.js'))].sort(), [
      'ioredis',
      'pino',
    ]);
    assert.deepEqual(loadedTooEarly(made, 'out/main.js'), ['ioredis']);
    assert.throws(() => staticInputs(made, 'out/other.js'), /not an output of the bundle/);
  });

  it('answers GeoIP, VPN and CIDR exactly as the sources do', async () => {
    for (const path of [
      '/ip/8.8.8.8',
      '/ip/2001:4860:4860::8888',
      '/ip/81.2.69.142',
      '/ip/10.1.2.3',
      '/ip/8.8.8.8/vpn',
      '/cidr?range=192.0.2.0/27',
      '/ip/not-an-ip',
    ]) {
      const [fromBundle, fromSource] = await Promise.all([
        getOnce(bundled.port, path),
        getOnce(source.port, path),
      ]);
      assert.equal(fromBundle.status, fromSource.status, path);
      assert.equal(fromBundle.body, fromSource.body, path);
    }
  });

  it('loads its later parts when asked: prom-client (/metrics), the MCP SDK (POST /mcp), the map', async () => {
    const metrics = await getOnce(bundled.port, '/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.body, /^ipintel_http_requests_total\{/m);
    assert.match(metrics.body, /^process_cpu_user_seconds_total /m);

    const mcp = await fetch(`http://127.0.0.1:${bundled.port}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(mcp.status, 200);
    const tools = ((await mcp.json()) as { result: { tools: { name: string }[] } }).result.tools;
    assert.ok(tools.some((tool) => tool.name === 'geoip_lookup'));

    const page = await fetch(`http://127.0.0.1:${bundled.port}/`, {
      headers: { accept: 'text/html' },
    });
    const map = /\/assets\/world\.[0-9a-f]+\.svg/.exec(await page.text());
    assert.ok(map !== null, 'the page links its map');
    const svg = await getOnce(bundled.port, map[0]);
    assert.equal(svg.status, 200);
    assert.match(svg.body, /^<svg /);
  });

  it('loads ioredis when REDIS_URL is set and shares through a real redis-server', async (t) => {
    const redis = await startRedisServer();
    t.after(() => redis.close());
    const withRedis = await spawnService(
      { LOG_LEVEL: 'warn', REDIS_URL: redis.url },
      [join(outdir, 'main.js')],
      { asIs: true },
    );
    t.after(() => withRedis.kill());
    await until(
      async () => {
        const ready = JSON.parse((await getOnce(withRedis.port, '/readyz')).body) as {
          data: { dependencies: Record<string, string> };
        };
        return ready.data.dependencies['redis'] === 'up';
      },
      10_000,
      50,
    );
  });

  it('runs its compile worker from beside it (a MaxMind-layout City file into tables)', async () => {
    const city = join(scratch, 'city.mmdb');
    writeFileSync(city, geoip2City('Paris', 'FR'));
    const job: CompileJob = {
      kind: 'geoip',
      layout: 'maxmind-city',
      files: [city],
      name: 'Test City',
      version: '1',
      licence: 'test',
      attribution: null,
      update: { publisher: 'maxmind', fetchedAt: '2026-11-26T00:00:00.000Z', artifacts: [] },
      output: join(scratch, 'geoip.tables'),
      baseline: null,
      minRatio: 0,
    };
    const worker = new Worker(join(outdir, 'compile-worker.js'), { workerData: job });
    const [reply] = (await once(worker, 'message')) as [
      {
        ok: boolean;
        manifest?: { name: string; counts: Record<string, number> };
        message?: string;
      },
    ];
    assert.equal(reply.ok, true, reply.message);
    assert.equal(reply.manifest?.name, 'Test City');
    // the tables it wrote answer for the release's address
    const set = loadCompiledSet(job.output);
    const [a, b, c, d] = ADDRESS.split('.').map(Number) as [number, number, number, number];
    const record = set.table.findV4(((a << 24) | (b << 16) | (c << 8) | d) >>> 0);
    assert.match(set.records.text(set.locations!.place(record)), /"city":"Paris"/);
  });
});
