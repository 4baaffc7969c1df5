// API keys in the real service as a process (src/main.ts, and the CLI's
// `serve`): a key's limit exact across two workers; the access log names the
// key, never shows it; SIGHUP reloads the file, and a bad file is refused
// (logged with its lines) while the old keys keep working; a bad file at
// start stops start-up; METRICS_PORT serves /metrics on its own listener.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../helpers/ports.js';
import { spawnService, startupFailure, type SpawnedService } from '../helpers/spawned-service.js';
import { until } from '../helpers/wait.js';

const ALICE = 'alice-key-0123456789';
const CAROL = 'carol-key-9876543210';
const dir = mkdtempSync(join(tmpdir(), 'ipintel-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** One request on a connection of its own (so a burst spreads over the workers). */
function ask(port: number, path: string, key?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = key === undefined ? {} : { authorization: `Bearer ${key}` };
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

async function stop(service: SpawnedService): Promise<void> {
  service.kill('SIGTERM');
  assert.equal(await service.exited, 0);
}

describe('WORKERS=2 with API_KEYS_FILE', () => {
  it('limits a key exactly across workers, logs its name only, and reloads on SIGHUP and on change', async () => {
    const file = join(dir, 'workers.csv');
    writeFileSync(file, `name,key,limit\nalice,${ALICE},7\n`);
    const service = await spawnService({
      WORKERS: '2',
      API_KEYS_FILE: file,
      RATE_LIMIT_MAX: '1000',
      FEED_UPDATE_INTERVAL_HOURS: '0',
    });
    try {
      // both workers serve before the burst (and before a SIGHUP)
      await until(
        () =>
          service.logLines<{ msg: string }>().filter((l) => l.msg === 'ipintel listening')
            .length === 2,
        30_000,
        50,
      );
      const statuses = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ask(
            service.port,
            i % 2 ? `/ip/8.8.8.8?key=${ALICE}` : '/ip/8.8.8.8',
            i % 2 ? undefined : ALICE,
          ),
        ),
      );
      const ok = statuses.filter((r) => r.status === 200).length;
      assert.equal(ok, 7, JSON.stringify(statuses.map((r) => r.status)));
      assert.equal(statuses.filter((r) => r.status === 429).length, 13);

      // SIGHUP (relayed by the primary): carol in, alice out, in both workers
      writeFileSync(file, `name,key,limit\ncarol,${CAROL},100\n`);
      service.kill('SIGHUP');
      await until(
        async () => (await ask(service.port, '/cidr?range=10.0.0.0/8', CAROL)).status === 200,
        10_000,
        100,
      );
      const afterReload = await Promise.all(
        Array.from({ length: 6 }, () => ask(service.port, '/cidr?range=10.0.0.0/8', CAROL)),
      );
      assert.deepEqual(new Set(afterReload.map((r) => r.status)), new Set([200]));
      await until(
        async () => (await ask(service.port, '/cidr?range=10.0.0.0/8', ALICE)).status === 401,
        10_000,
        100,
      );

      // a bad file: refused with its lines; carol still works
      writeFileSync(file, `name,key,limit\ncarol,${CAROL},100\nbroken,short,\n`);
      service.kill('SIGHUP');
      await until(() => service.stdout().includes('API_KEYS_FILE refused'), 10_000, 50);
      const refused = service
        .logLines<{ msg: string; problems?: string[] }>()
        .find((l) => l.msg.startsWith('API_KEYS_FILE refused'));
      assert.match(refused?.problems?.[0] ?? '', /^line 3: the key must be/);
      assert.equal((await ask(service.port, '/cidr?range=10.0.0.0/8', CAROL)).status, 200);

      // a change without a signal is picked up by the file check (every 5 s)
      const DAVE = 'dave-key-abcdefghijkl';
      writeFileSync(file, `name,key,limit\ndave,${DAVE},100\n`);
      await until(
        async () => (await ask(service.port, '/cidr?range=10.0.0.0/8', DAVE)).status === 200,
        15_000,
        200,
      );

      // the access log: names, never keys
      await until(() => service.stdout().includes('"key":"carol"'), 5_000, 50);
      const lines = service
        .logLines<{ msg: string; url?: string; key?: string }>()
        .filter((l) => l.msg === 'request');
      assert.ok(lines.some((l) => l.key === 'alice'));
      assert.ok(lines.some((l) => l.url === '/ip/8.8.8.8?key=[redacted]'));
      assert.ok(
        !service.stdout().includes(ALICE) && !service.stdout().includes(CAROL),
        'no key in the log',
      );
    } finally {
      await stop(service);
    }
  });
});

describe('ipintel serve with keys required and METRICS_PORT', () => {
  it('refuses anonymous callers, serves /metrics only on its own port', async () => {
    const file = join(dir, 'serve.csv');
    writeFileSync(file, `name,key,limit\nalice,${ALICE},\n`);
    const metricsPort = await freePort();
    const service = await spawnService(
      { API_KEYS_FILE: file, API_KEYS_REQUIRED: 'true', METRICS_PORT: String(metricsPort) },
      ['src/cli/main.ts', 'serve'],
    );
    try {
      assert.equal((await ask(service.port, '/healthz')).status, 200);
      const anonymous = await ask(service.port, '/ip/8.8.8.8');
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.body, /"code":"UNAUTHORIZED"/);
      assert.equal((await ask(service.port, '/ip/8.8.8.8', ALICE)).status, 200);
      // the public port has no /metrics (a key does not change that)
      assert.equal((await ask(service.port, '/metrics', ALICE)).status, 404);
      const metrics = await ask(metricsPort, '/metrics');
      assert.equal(metrics.status, 200);
      assert.match(
        metrics.body,
        /ipintel_http_requests_total\{route="\/ip\/:ip",method="GET",status="200"\} 1/,
      );
      assert.ok(!metrics.body.includes(ALICE), 'no key in /metrics');
      assert.equal((await ask(metricsPort, '/ip/8.8.8.8')).status, 404, 'only /metrics there');
    } finally {
      await stop(service);
    }
  });

  it('a bad keys file stops start-up with its line numbers', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `name,key,limit\nalice,${ALICE},none\n`);
    const { code, stderr } = await startupFailure({ API_KEYS_FILE: file });
    assert.equal(code, 1);
    assert.match(stderr, /API_KEYS_FILE .*bad\.csv: refused:\n {2}line 2: the limit must be/);
    assert.ok(!stderr.includes(ALICE));
  });
});
