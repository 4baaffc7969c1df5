// `npm run bench:scale`: what scaling out costs per request. Three setups of
// the service run side by side, all pinned to CPU 0 — one process, WORKERS=2
// (a cluster primary and two workers) and REDIS_URL (one process whose rate
// limit lives in a redis-server, also on CPU 0) — and are loaded in turn by
// `wrk -t1 -c50` on CPU 1 over 100,000 random /ip/<IPv4> paths: a warm-up,
// then BENCH_ROUNDS interleaved rounds. The figure is CPU time per request
// summed over EVERY process of the setup and the redis-server (utime + stime
// from /proc over the load window ÷ requests wrk completed), as a ratio to
// one process: the targets are ≤ 1.15 for WORKERS=2 and ≤ 1.3 for REDIS_URL.
// Then the simulation of N workers or instances (bench/scale-sim.ts) unless
// BENCH_SIM=0. See BENCHMARKS.md. Exit 0 (a benchmark, not a gate); 1 when it
// could not measure, 2 when wrk, taskset, /proc or redis-server is missing.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  BENCH_DIR,
  CLIENT_CPU,
  CONNECTIONS,
  cpuSeconds,
  envCount,
  freePort,
  groupPids,
  load,
  loadWorkspace,
  MAIN,
  median,
  missingTools,
  pin,
  ROOT,
  SERVER_CPU,
  SERVICE_ENV,
  startCommand,
  startServer,
  stopAll,
  type Server,
} from './harness.js';
import { writePathLists } from './paths.js';

const TARGETS = { workers: 1.15, redis: 1.3 } as const;
const out = (line: string) => process.stdout.write(`${line}\n`);

interface Setup {
  name: 'one' | 'workers' | 'redis';
  label: string;
  env: Record<string, string>;
}

/** A redis-server pinned to CPU 0, no persistence, on a free port. */
async function startRedis(work: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(
    'taskset',
    ['-c', String(SERVER_CPU), 'redis-server', '--port', String(port), '--bind', '127.0.0.1'],
    { stdio: 'ignore', detached: true, cwd: work },
  );
  const server: Server = {
    name: 'redis',
    child,
    port,
    pid: child.pid ?? 0,
    errFile: '',
    readyMs: 0,
  };
  for (let i = 0; i < 300; i++) {
    const ping = spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' });
    if (ping.stdout?.trim() === 'PONG') return server;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('redis-server did not answer');
}

async function main(): Promise<number> {
  const missing = missingTools();
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error)
    missing.push('redis-server');
  if (missing.length > 0) {
    out(`npm run bench:scale needs ${missing.join(' and ')}; nothing measured`);
    return 2;
  }
  const rounds = envCount('BENCH_ROUNDS', 3);
  const seconds = envCount('BENCH_SECONDS', 5);
  pin(process.pid, CLIENT_CPU);
  const { work, lua } = loadWorkspace('ipintel-scale-');
  // the service as `npm start` runs it: its node flags and environment
  const start = startCommand(ROOT);
  const pathsFile = writePathLists(work).ip4;
  const redis = await startRedis(work);
  process.on('exit', () => redis.child.kill('SIGKILL'));
  const base = { ...SERVICE_ENV };
  const setups: Setup[] = [
    { name: 'one', label: 'one process', env: base },
    { name: 'workers', label: 'WORKERS=2', env: { ...base, WORKERS: '2' } },
    {
      name: 'redis',
      label: 'REDIS_URL',
      env: { ...base, REDIS_URL: `redis://127.0.0.1:${redis.port}` },
    },
  ];
  const servers = new Map<Setup['name'], Server>();
  for (const setup of setups) {
    servers.set(
      setup.name,
      await startServer({
        name: setup.label,
        command: [process.execPath, ...start.flags, MAIN],
        cwd: ROOT,
        env: { ...start.env, ...setup.env },
        port: await freePort(),
        cpu: SERVER_CPU,
        errFile: join(work, `${setup.name}.stderr`),
        readyPath: '/ip/8.8.8.8',
        timeoutMs: 60_000,
      }),
    );
  }
  out(
    `servers and redis-server on CPU ${SERVER_CPU}; wrk -t1 -c${CONNECTIONS} -d${seconds}s on CPU ${CLIENT_CPU}, ` +
      `/ip/<random IPv4>; CPU summed over every process of a setup and redis-server; a warm-up, then ${rounds} interleaved rounds`,
  );
  const measure = async (setup: Setup) => {
    const server = servers.get(setup.name)!;
    const before = redisCpu(redis);
    const result = await load(server, {
      lua,
      pathsFile,
      seconds,
      connections: CONNECTIONS,
      cpu: CLIENT_CPU,
      pids: () => [...groupPids(server.child.pid ?? 0), redis.pid],
    });
    const redisUs = result.requests > 0 ? ((redisCpu(redis) - before) * 1e6) / result.requests : 0;
    return { ...result, redisUs };
  };
  for (const setup of setups) await measure(setup);
  const perRequest = new Map<Setup['name'], number[]>(setups.map((s) => [s.name, []]));
  for (let round = 1; round <= rounds; round++) {
    const line: string[] = [];
    for (const setup of setups) {
      const r = await measure(setup);
      perRequest.get(setup.name)!.push(r.usPerRequest);
      const problems = r.problems.length > 0 ? ` (${r.problems.join('; ')})` : '';
      line.push(
        `${setup.label} ${r.usPerRequest.toFixed(1)} µs/req (redis-server ${r.redisUs.toFixed(1)}), ${Math.round(r.requestsPerSecond)} req/s${problems}`,
      );
    }
    out(`round ${round}: ${line.join(' | ')}`);
  }
  const one = median(perRequest.get('one')!);
  const summary = setups.map((s) => `${s.label} ${median(perRequest.get(s.name)!).toFixed(1)}`);
  out(`median µs/request: ${summary.join(', ')}`);
  for (const name of ['workers', 'redis'] as const) {
    const ratio = median(perRequest.get(name)!) / one;
    const ok = ratio <= TARGETS[name];
    out(
      `${name === 'workers' ? 'WORKERS=2' : 'REDIS_URL'}: ${ratio.toFixed(2)}× one process (target ≤ ${TARGETS[name]}) ${ok ? 'PASS' : 'FAIL'}`,
    );
  }
  stopAll();
  redis.child.kill('SIGKILL');
  if (process.env['BENCH_SIM'] !== '0') {
    out('');
    const sim = spawnSync(process.execPath, [join(BENCH_DIR, 'scale-sim.js')], {
      stdio: 'inherit',
    });
    if (sim.status !== 0) return 1;
  }
  return 0;
}

const redisCpu = (redis: Server): number => cpuSeconds(redis.pid);

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    out(`bench:scale failed: ${(error as Error).stack ?? String(error)}`);
    process.exit(1);
  },
);
