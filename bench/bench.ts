// `npm run bench`: loads the service and a bare node:http baseline, in the
// same run, with the same client (wrk when installed, else autocannon; 50
// connections), the servers pinned to CPU 0 and the client to CPU 1, and
// prints req/s, p50, p99 and RSS of each scenario with the ratio
// service/baseline; then loads both at once and compares their CPU time per
// request (robust to a noisy machine). BENCH_SECONDS sets the run length,
// BENCH_VARIANTS=0 skips the Redis and WORKERS variants.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 10);
const CONNECTIONS = 50;

interface Result {
  rps: number;
  /** requests completed in the measured window */
  requests: number;
  p50: number;
  p99: number;
  rssMb: number;
  non2xx: number;
}

function pin(pid: number, cpu: number): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
  } catch {
    process.stderr.write(`taskset unavailable: process ${pid} not pinned\n`);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      await res.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`nothing listens on ${port}`);
}

async function start(
  script: string,
  env: Record<string, string>,
  pinned = true,
): Promise<{ child: ChildProcess; port: number }> {
  const port = await freePort();
  // the service's logs go to /dev/null: written and serialised, but not to a terminal
  // the service runs with the flags of `npm start` (see package.json)
  const flags = script.endsWith('main.js')
    ? ['--max-semi-space-size=16', '--max-old-space-size=192']
    : [];
  const child = spawn(process.execPath, [...flags, script, String(port)], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitForPort(port, child);
  if (pinned) pin(child.pid ?? 0, 0);
  return { child, port };
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (user + system, all threads) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after "pid (comm) " the fields start at the 3rd; utime and stime are the 14th and 15th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

function randomPublicIpv4(): string {
  for (;;) {
    const a = 1 + Math.floor(Math.random() * 223);
    if (a === 10 || a === 127 || a === 100 || a === 169 || a === 172 || a === 192 || a === 198)
      continue;
    return `${a}.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  }
}

const WRK_RANDOM_IP = (suffix: string) => `
math.randomseed(os.time())
local suffix = "${suffix}"
local skip = { [10] = true, [100] = true, [127] = true, [169] = true, [172] = true, [192] = true, [198] = true }
request = function()
  local a = math.random(1, 223)
  while skip[a] do a = math.random(1, 223) end
  return wrk.format(nil, string.format("/ip/%d.%d.%d.%d" .. suffix, a, math.random(0, 255), math.random(0, 255), math.random(1, 254)))
end
`;

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk prints its version and exits 1
    return (error as { status?: number }).status === 1;
  }
}

const USE_WRK = process.env['BENCH_CLIENT'] !== 'autocannon' && hasWrk();

/** wrk's --latency output: "  50%    2.93ms" */
function wrkMs(output: string, percentile: string): number {
  const m = new RegExp(`\\s${percentile}%\\s+([\\d.]+)(us|ms|s)`).exec(output);
  if (!m) return NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

async function load(
  port: number,
  pid: number,
  path: string | (() => string),
  seconds = DURATION,
): Promise<Result> {
  if (USE_WRK) {
    const args = ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency'];
    if (typeof path !== 'string') {
      const script = join(tmpdir(), 'ipintel-bench-random-ip.lua');
      // the Lua script draws the address; the sample path gives what follows it
      writeFileSync(script, WRK_RANDOM_IP(path().replace(/^\/ip\/[\d.]+/, '')));
      args.push('-s', script);
    }
    args.push(`http://127.0.0.1:${port}${typeof path === 'string' ? path : '/'}`);
    const output = await new Promise<string>((resolve, reject) => {
      execFile('taskset', ['-c', '1', 'wrk', ...args], (error, stdout) => {
        if (error) reject(new Error(`wrk failed: ${error.message}`));
        else resolve(stdout);
      });
    });
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
    return {
      rps: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0)),
      requests: Number(/(\d+) requests in/.exec(output)?.[1] ?? 0),
      p50: wrkMs(output, '50'),
      p99: wrkMs(output, '99'),
      rssMb: rssMb(pid),
      non2xx,
    };
  }
  const makePath = typeof path === 'string' ? () => path : path;
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, path: makePath() }) }],
  });
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    rssMb: rssMb(pid),
    non2xx: result.non2xx,
  };
}

interface Scenario {
  name: string;
  path: string | (() => string);
  /** ratio service/baseline the issue asks for */
  target: number;
}

const scenarios: Scenario[] = [
  {
    name: 'GeoIP, random public IPv4 (cache miss)',
    path: () => `/ip/${randomPublicIpv4()}`,
    target: 0.65,
  },
  { name: 'GeoIP, same address (cache hit)', path: '/ip/8.8.8.8', target: 0.85 },
  { name: 'CIDR', path: '/cidr?range=10.20.30.40/20', target: 0.8 },
  {
    name: 'VPN detection, random public IPv4 (cache miss)',
    path: () => `/ip/${randomPublicIpv4()}/vpn`,
    target: 0.65,
  },
];

pin(process.pid, 1);
const baseline = await start(join(here, 'baseline-server.js'), {});
const service = await start(join(here, '..', 'src', 'main.js'), {
  HOST: '127.0.0.1',
  RATE_LIMIT_MAX: '1000000000',
  LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
});

/**
 * The same comparison, robust to a noisy machine: both servers loaded at the
 * same time (each pinned to CPU 0, one client each on CPU 1), so whatever
 * the neighbours do, they do to both; the CPU time each process spent per
 * request gives the cost ratio (req/s ≈ 1 / cost for a CPU-bound server).
 */
async function concurrentCost(path: Scenario['path']): Promise<string> {
  const pids = [baseline.child.pid ?? 0, service.child.pid ?? 0] as const;
  try {
    const before = pids.map(cpuSeconds);
    const [b, v] = await Promise.all([
      load(baseline.port, pids[0], path),
      load(service.port, pids[1], path),
    ]);
    const after = pids.map(cpuSeconds);
    const us = (i: 0 | 1, r: Result) =>
      r.requests === 0 ? NaN : (((after[i] ?? 0) - (before[i] ?? 0)) / r.requests) * 1e6;
    const [bUs, vUs] = [us(0, b), us(1, v)];
    return `\n  both loaded at once: CPU per request baseline ${bUs.toFixed(1)} µs, service ${vUs.toFixed(1)} µs → cost ratio ${(bUs / vUs).toFixed(2)}`;
  } catch {
    return '\n  (no /proc: the concurrent cost comparison is skipped)';
  }
}

const rows: string[] = [];
const ms = (v: number) => v.toFixed(2).padStart(6);
const fmt = (r: Result) =>
  `${String(r.rps).padStart(7)} req/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  RSS ${String(r.rssMb).padStart(4)} MB`;
for (const s of scenarios) {
  // warm both up (JIT, caches) before measuring
  await load(baseline.port, baseline.child.pid ?? 0, s.path, 2);
  await load(service.port, service.child.pid ?? 0, s.path, 2);
  const b = await load(baseline.port, baseline.child.pid ?? 0, s.path);
  const v = await load(service.port, service.child.pid ?? 0, s.path);
  const ratio = v.rps / b.rps;
  const p99Ratio = b.p99 === 0 ? 1 : v.p99 / b.p99;
  const cost = await concurrentCost(s.path);
  rows.push(
    `${s.name}\n  baseline ${fmt(b)}\n  service  ${fmt(v)}${v.non2xx ? `  (${v.non2xx} non-2xx!)` : ''}\n  ratio ${ratio.toFixed(2)} (target ≥ ${s.target})  p99 ratio ${p99Ratio.toFixed(2)} (target ≤ 1.5)${cost}`,
  );
  process.stdout.write(`${rows.at(-1)}\n`);
}
service.child.kill();

let redis: ChildProcess | null = null;
if (process.env['BENCH_VARIANTS'] !== '0') {
  // Deployment variants of the same service, each against the same baseline run:
  // Redis-shared cache and limits, and two workers (the workers are not pinned:
  // with two cores they share them with the load client, so this measures what a
  // second worker buys on this box, not on a larger one).
  const variants: { name: string; env: Record<string, string>; pinned: boolean }[] = [];
  const redisPort = await freePort();
  try {
    execFileSync('bash', [join(here, '..', '..', 'scripts', 'ensure-redis.sh')], {
      stdio: 'ignore',
    });
    redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await new Promise((r) => setTimeout(r, 500));
    variants.push({
      name: 'REDIS_URL (shared cache and limits)',
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}` },
      pinned: true,
    });
  } catch {
    process.stdout.write('redis-server unavailable: the Redis variant is skipped\n');
  }
  variants.push({ name: 'WORKERS=1 (unpinned)', env: {}, pinned: false });
  variants.push({ name: 'WORKERS=2 (unpinned)', env: { WORKERS: '2' }, pinned: false });
  const variantPaths: Scenario[] = [scenarios[1] as Scenario, scenarios[0] as Scenario];
  for (const variant of variants) {
    const v = await start(
      join(here, '..', 'src', 'main.js'),
      {
        HOST: '127.0.0.1',
        RATE_LIMIT_MAX: '1000000000',
        LOG_LEVEL: process.env['BENCH_LOG_LEVEL'] ?? 'info',
        ...variant.env,
      },
      variant.pinned,
    );
    for (const s of variantPaths) {
      await load(v.port, v.child.pid ?? 0, s.path, 2);
      const b = await load(baseline.port, baseline.child.pid ?? 0, s.path);
      const r = await load(v.port, v.child.pid ?? 0, s.path);
      process.stdout.write(
        `${variant.name}: ${s.name}\n  service  ${fmt(r)}${r.non2xx ? `  (${r.non2xx} non-2xx!)` : ''}\n  ratio ${(r.rps / b.rps).toFixed(2)} against the baseline's ${b.rps} req/s\n`,
      );
    }
    v.child.kill();
    await new Promise((r) => setTimeout(r, 500));
  }
}
redis?.kill();
baseline.child.kill();
process.stdout.write(
  `\n${USE_WRK ? 'wrk' : 'autocannon'}, ${CONNECTIONS} connections, ${DURATION} s per run, servers on CPU 0 (unless unpinned), client on CPU 1.\n`,
);
