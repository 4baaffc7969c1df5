// The simulation part of `npm run bench:scale`: where each design's ceiling
// lies. N simulated workers (node:cluster, the real IPC channel) or N
// simulated instances (processes, each with its own connection to a
// redis-server) count hits through the real LeasedRateLimitStore as fast as
// they can (bench/scale-sim-worker.ts), all on CPU 1; the authority — this
// process as the cluster primary, or the redis-server — runs alone on CPU 0
// and its CPU time is measured from /proc. Three designs:
//   per-request  one call to the authority per hit (the stores before leases)
//   per-turn     one call per turn of a worker's event loop, all its hits in it
//   lease        shares of each client's allowance held for 1 s (the service)
// and two kinds of traffic: 1,000 clients hit at random, and every hit from a
// client never seen before (an address spray: leases cannot help). The
// authority's µs per hit gives its ceiling: the hits per second one core of
// it can count (1e6 ÷ µs), shared by all N. SIM_SECONDS (3), SIM_COUNTS
// (1,2,4,8) and SIM_ONLY (ipc or redis) narrow it.
import cluster, { type Worker } from 'node:cluster';
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { leaseBook, serveLeases } from '../src/ratelimit/ipc-lease-authority.js';
import { MemoryRateLimitStore } from '../src/ratelimit/memory-rate-limit-store.js';
import { cpuSeconds, freePort, pin } from './harness.js';
import type { Design } from './scale-sim-worker.js';

const here = dirname(fileURLToPath(import.meta.url));
const WORKER = join(here, 'scale-sim-worker.js');
const DESIGNS: readonly Design[] = ['per-request', 'per-turn', 'lease'];
const COUNTS = (process.env['SIM_COUNTS'] ?? '1,2,4,8').split(',').map(Number);
/** 'ipc' or 'redis' to run one authority only */
const ONLY = process.env['SIM_ONLY'] ?? '';
const TRAFFIC = [
  { keys: 1_000, label: '1,000 clients' },
  { keys: 0, label: 'every hit a new client' },
];
const seconds = Number(process.env['SIM_SECONDS'] ?? 3);
const out = (line: string) => process.stdout.write(`${line}\n`);

interface Result {
  hits: number;
  authorityCpu: number;
  fellBack: number;
  /** children that ended without reporting */
  died: number;
}

type Child = Worker | ChildProcess;

/** Waits for every child's ready, says go, and collects their results. */
async function race(children: Child[], authorityCpu: () => number): Promise<Result> {
  await Promise.all(children.map((c) => message(c, 'sim-ready')));
  const before = authorityCpu();
  // a child that ends without reporting (a crash) counts as no hits, not a hang. Its
  // channel's end, not its exit: a child that reported just before exiting may exit
  // before the primary has read the report from a channel still full of give-backs
  const ended = (c: Child) =>
    new Promise((resolve) =>
      c.once('disconnect', () => resolve({ hits: 0, fellBack: 0, died: 1 })),
    );
  const results = Promise.all(
    children.map((c) => Promise.race([message(c, 'sim-result'), ended(c)])),
  );
  for (const child of children) child.send({ type: 'sim-go' });
  const reports = (await results) as { hits: number; fellBack: number; died?: number }[];
  return {
    hits: reports.reduce((sum, r) => sum + r.hits, 0),
    authorityCpu: authorityCpu() - before,
    fellBack: reports.reduce((sum, r) => sum + r.fellBack, 0),
    died: reports.reduce((sum, r) => sum + (r.died ?? 0), 0),
  };
}

function message(child: Child, type: string): Promise<unknown> {
  return new Promise((resolve) => {
    const listener = (m: unknown) => {
      if ((m as { type?: string }).type !== type) return;
      child.off('message', listener);
      resolve(m);
    };
    child.on('message', listener);
  });
}

/**
 * A child's exit, listened for from its fork: a listener added once the run is
 * over can miss an exit that came first, and the promise then never settles —
 * with no handle left, the driver ended silently mid-simulation (seen in the
 * lease runs of an address spray, whose last give-backs keep the primary busy).
 */
const exitOf = (child: Child): Promise<unknown> =>
  new Promise((resolve) => child.once('exit', resolve));

const simEnv = (design: Design, keys: number, id: number): Record<string, string> => ({
  SIM_DESIGN: design,
  SIM_SECONDS: String(seconds),
  SIM_KEYS: String(keys),
  SIM_ID: String(id),
});

async function primaryRun(design: Design, keys: number, n: number): Promise<Result> {
  const book = leaseBook(new MemoryRateLimitStore(), design === 'lease' ? 2 * n : Infinity);
  const workers = Array.from({ length: n }, (_, id) => {
    const worker = cluster.fork(simEnv(design, keys, id));
    serveLeases(worker, book);
    worker.once('online', () => pin(worker.process.pid ?? 0, 1));
    return worker;
  });
  const exits = workers.map(exitOf);
  const result = await race(workers, () => cpuSeconds(process.pid));
  await Promise.all(exits);
  return result;
}

async function redisRun(design: Design, keys: number, n: number, url: string, pid: number) {
  spawnSync('redis-cli', ['-u', url, 'flushall'], { stdio: 'ignore' });
  const children = Array.from({ length: n }, (_, id) => {
    const child = fork(WORKER, [], {
      env: {
        ...process.env,
        ...simEnv(design, keys, id),
        SIM_REDIS_URL: url,
        SIM_SHARE: String(design === 'lease' ? 8 : 1e15),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    pin(child.pid ?? 0, 1);
    return child;
  });
  const exits = children.map(exitOf);
  const result = await race(children, () => cpuSeconds(pid));
  await Promise.all(exits);
  return result;
}

function report(authority: string, design: Design, n: number, r: Result): void {
  const us = r.hits > 0 ? (r.authorityCpu * 1e6) / r.hits : 0;
  const ceiling = us > 0 ? Math.round(1e6 / us).toLocaleString('en') : '∞ (unmeasurable)';
  out(
    `  ${authority} ${design.padEnd(11)} N=${n}: ${Math.round(r.hits / seconds)
      .toLocaleString('en')
      .padStart(10)} hits/s, ` +
      `${authority} ${us.toFixed(2)} µs/hit → ceiling ${ceiling} hits/s per core` +
      (r.fellBack > 0 ? ` (${r.fellBack} keys fell back to in-process counting)` : '') +
      (r.died > 0 ? ` (${r.died} ended without reporting: not counted)` : ''),
  );
}

async function main(): Promise<void> {
  cluster.setupPrimary({ exec: WORKER, silent: false });
  pin(process.pid, 0);
  out(
    `simulation: N workers/instances on CPU 1, the authority alone on CPU 0, ${seconds} s per run`,
  );
  for (const traffic of ONLY === 'redis' ? [] : TRAFFIC) {
    out(`cluster primary over IPC, ${traffic.label}:`);
    for (const design of DESIGNS) {
      for (const n of COUNTS)
        report('primary', design, n, await primaryRun(design, traffic.keys, n));
    }
  }
  if (ONLY === 'ipc') return;
  const port = await freePort();
  const redis = spawn(
    'taskset',
    ['-c', '0', 'redis-server', '--port', String(port), '--save', ''],
    {
      stdio: 'ignore',
    },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (spawnSync('redis-cli', ['-u', url, 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG')
      break;
    await new Promise((r) => setTimeout(r, 20));
  }
  try {
    for (const traffic of TRAFFIC) {
      out(`redis-server, ${traffic.label}:`);
      for (const design of DESIGNS) {
        for (const n of COUNTS) {
          report('redis', design, n, await redisRun(design, traffic.keys, n, url, redis.pid ?? 0));
        }
      }
    }
  } finally {
    redis.kill('SIGKILL');
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    out(`simulation failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
