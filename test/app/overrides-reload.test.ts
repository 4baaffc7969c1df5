// The service process (src/main.ts) and its overrides file: read at start,
// re-read on SIGHUP (as the data is), a bad file refused with every bad line
// in the log and in /readyz while the previous overrides answer on, and the
// ETag of an answer changing with the file. A bad file at start stops it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { getOnce } from '../helpers/http-get.js';
import { spawnService, startupFailure, type SpawnedService } from '../helpers/spawned-service.js';
import { until } from '../helpers/wait.js';

let dir: string;
let file: string;
let service: SpawnedService;

const cityOf = async (ip: string) =>
  (JSON.parse((await getOnce(service.port, `/ip/${ip}`)).body) as { data: { city: string } }).data
    .city;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-overrides-reload-'));
  file = join(dir, 'corrections.csv');
  await writeFile(file, 'network,city,label\n8.8.8.0/24,Leipzig,leipzig\n');
  service = await spawnService({ DATA_DIR: dir, OVERRIDES_FILE: file });
});

after(async () => {
  service.kill();
  await service.exited;
  await rm(dir, { recursive: true, force: true });
});

it('SIGHUP reads a changed file; a bad one is refused whole, logged line by line, the old rows answering', async () => {
  assert.equal(await cityOf('8.8.8.8'), 'Leipzig');
  const before = await getOnce(service.port, '/ip/8.8.8.8');
  assert.match(String(before.headers['x-data-version']), /overrides=[0-9a-f]{12}$/);

  await writeFile(file, 'network,city\n8.8.8.0/24,Dresden\n');
  process.kill(service.pid, 'SIGHUP');
  await until(async () => (await cityOf('8.8.8.8')) === 'Dresden', 10_000, 50);
  const afterReload = await getOnce(service.port, '/ip/8.8.8.8');
  assert.notEqual(afterReload.headers['etag'], before.headers['etag']);
  assert.notEqual(afterReload.headers['x-data-version'], before.headers['x-data-version']);

  await writeFile(
    file,
    'network,city,longitude\n8.8.8.0/24,Halle,\nnot-a-range,X,\n1.1.1.0/24,Y,181\n',
  );
  process.kill(service.pid, 'SIGHUP');
  await until(() => service.stdout().includes('overrides file refused'), 10_000, 50);
  const refusal = service
    .logLines<{ msg: string; problems?: { line: number; reason: string }[] }>()
    .find((l) => l.msg.startsWith('overrides file refused'));
  assert.deepEqual(
    refusal?.problems?.map((p) => p.line),
    [3, 4],
  );
  assert.equal(await cityOf('8.8.8.8'), 'Dresden');
  const ready = JSON.parse((await getOnce(service.port, '/readyz')).body) as {
    data: { warnings: string[] };
  };
  const warnings = ready.data.warnings.join('\n');
  assert.match(warnings, /line 3: "not-a-range" is not a CIDR range/);
  assert.match(warnings, /line 4: longitude: "181" is not a number from -180 to 180/);
});

it('a bad overrides file at start stops start-up, naming OVERRIDES_FILE and every bad line', async () => {
  const bad = join(dir, 'bad.csv');
  await writeFile(bad, 'network,city,latitude\n8.8.8.0/24,Leipzig,200\n9.9.9.0/33,X,\n');
  for (const workers of ['1', '2']) {
    const { code, stderr } = await startupFailure({
      DATA_DIR: dir,
      OVERRIDES_FILE: bad,
      WORKERS: workers,
    });
    assert.equal(code, 1, `WORKERS=${workers}`);
    assert.match(
      stderr,
      /^OVERRIDES_FILE .*bad\.csv: refused:\n {2}line 2: latitude: .*\n {2}line 3: .*9\.9\.9\.0\/33/m,
    );
  }
});
