// WORKERS=2 end to end: the real service (src/main.ts) as a process tree, a
// cluster primary and two workers sharing one port. The answers are right, a
// parallel burst spread over both workers is limited exactly (the primary
// leases the allowance out and knows who holds spare units), and SIGTERM takes the whole tree down with code 0.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { getOnce } from '../helpers/http-get.js';
import { freePort } from '../helpers/ports.js';
import { entryArgs } from '../helpers/entry.js';

const LIMIT = 60;
/** how long a worker holds a share of a client's allowance before giving back what it did not use */
const LEASE_MS = 200;

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const status of statuses) out[status] = (out[status] ?? 0) + 1;
  return out;
}

/** True while any process of the child's group (the primary and its workers) is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('WORKERS=2 (cluster, rate limit counted by the primary)', () => {
  let child: ChildProcess;
  let port: number;
  let metricsPort: number;
  let stderr = '';
  let exited: Promise<number | null>;

  before(async () => {
    port = await freePort();
    metricsPort = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env };
    // the test runner's marker would change how a node child behaves; Redis must not be used
    delete env['NODE_TEST_CONTEXT'];
    delete env['REDIS_URL'];
    Object.assign(env, {
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKERS: '2',
      RATE_LIMIT_MAX: String(LIMIT),
      RATE_LIMIT_WINDOW_SECONDS: '60',
      RATE_LIMIT_LEASE_MS: String(LEASE_MS),
      LOG_LEVEL: 'silent',
      FEED_UPDATE_INTERVAL_HOURS: '0',
      // /metrics on a listener of its own: not rate limited with the client's other requests
      METRICS_PORT: String(metricsPort),
    });
    // detached: the child leads its own process group, so the workers can be
    // found (and killed) as a group
    child = spawn(process.execPath, entryArgs('src/main.ts'), {
      cwd: PROJECT_ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => (stderr += chunk));
    exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
    // two workers each load the data (and, unbuilt, tsx compiles the sources): slow under a busy suite
    const deadline = Date.now() + 30_000;
    for (;;) {
      assert.equal(child.exitCode, null, `the service exited early: ${stderr}`);
      const ok = await getOnce(port, '/healthz').then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      assert.ok(Date.now() < deadline, `/healthz never answered: ${stderr}`);
      await sleep(100);
    }
  });

  after(() => {
    // whatever happened: no process of the tree outlives the test
    if (child?.pid !== undefined && groupAlive(child.pid)) process.kill(-child.pid, 'SIGKILL');
  });

  it('a burst of 100 parallel requests over both workers: exactly 60 right answers, and none more once the leases lapse', async () => {
    const burst = () =>
      Promise.all(Array.from({ length: 100 }, () => getOnce(port, '/ip/8.8.8.8')));
    const first = await burst();
    // a worker short of units waits for the spare units the other one
    // holds to come back: the burst itself gets the whole allowance
    const firstPassed = first.filter((r) => r.status === 200).length;
    assert.equal(firstPassed, LIMIT, `first burst: ${firstPassed} answers`);
    await sleep(3 * LEASE_MS);
    const replies = [...first, ...(await burst())];
    const passed = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    // what came back, to tell a miscount from failed answers when this fails
    const seen = `statuses ${JSON.stringify(tally(replies.map((r) => r.status)))}; other: ${
      replies.find((r) => r.status !== 200 && r.status !== 429)?.body ?? 'none'
    }; stderr: ${stderr.slice(-2000)}`;
    assert.equal(passed.length, LIMIT, seen);
    assert.equal(limited.length, 200 - LIMIT, seen);
    for (const r of passed) {
      const data = (JSON.parse(r.body) as { data: Record<string, unknown> }).data;
      assert.deepEqual([data['country'], data['asn']], ['US', 'AS15169']);
    }
    for (const r of limited) {
      const body = JSON.parse(r.body) as { error?: { code?: string; message?: string } };
      assert.equal(body.error?.code, 'RATE_LIMITED');
      assert.match(body.error?.message ?? '', /60/);
      assert.equal(r.headers['ratelimit-remaining'], '0');
      assert.ok(Number(r.headers['retry-after']) >= 1);
    }
    // the next request, on whichever worker, is refused too; /healthz is exempt
    assert.equal((await getOnce(port, '/ip/1.1.1.1')).status, 429);
    assert.equal((await getOnce(port, '/healthz')).status, 200);
  });

  it("/metrics answers for both workers: the burst's 60 answers, whichever worker is scraped", async () => {
    const answered =
      /^ipintel_http_requests_total\{route="\/ip\/:ip",method="GET",status="200"\} (\d+)$/m;
    for (let scrape = 0; scrape < 4; scrape++) {
      // fresh connections: the primary hands them to the workers in turn
      const r = await getOnce(metricsPort, '/metrics');
      assert.equal(r.status, 200, r.body);
      assert.equal(answered.exec(r.body)?.[1], String(LIMIT), `scrape ${scrape}`);
      assert.match(r.body, /^ipintel_workers 2$/m);
    }
  });

  it('SIGTERM stops the primary and its workers with code 0', async () => {
    const pid = child.pid;
    assert.ok(pid !== undefined);
    child.kill('SIGTERM');
    const code = await Promise.race([exited, sleep(8_000, 'timeout' as const, { ref: false })]);
    assert.equal(code, 0, `exit: ${String(code)}; stderr: ${stderr}`);
    const deadline = Date.now() + 5_000;
    while (groupAlive(pid)) {
      assert.ok(Date.now() < deadline, 'a worker outlived the primary');
      await sleep(50);
    }
  });
});
