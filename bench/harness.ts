// What the benchmarks share: starting a server pinned to CPU 0, loading it
// from CPU 1 with wrk (or autocannon), and reading a process's CPU time and
// RSS from /proc.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

export const here = dirname(fileURLToPath(import.meta.url));
export const DURATION = Number(process.env['BENCH_SECONDS'] ?? 10);
export const CONNECTIONS = 50;

export interface Result {
  rps: number;
  /** requests completed in the measured window */
  requests: number;
  p50: number;
  p99: number;
  rssMb: number;
  non2xx: number;
}

export function pin(pid: number, cpu: number): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
  } catch {
    process.stderr.write(`taskset unavailable: process ${pid} not pinned\n`);
  }
}

export async function freePort(): Promise<number> {
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

/** the heap flags of `npm start` (see package.json) */
export const SERVICE_FLAGS = ['--max-semi-space-size=16', '--max-old-space-size=192'];

export interface Started {
  child: ChildProcess;
  port: number;
}

export async function start(
  script: string,
  env: Record<string, string>,
  pinned = true,
  flags: readonly string[] = [],
): Promise<Started> {
  const port = await freePort();
  // a server's logs go to /dev/null: written and serialised, but not to a terminal
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
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after "pid (comm) " the fields start at the 3rd; utime and stime are the 14th and 15th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

export function randomPublicIpv4(): string {
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

export const USE_WRK = process.env['BENCH_CLIENT'] !== 'autocannon' && hasWrk();

/** wrk's --latency output: "  50%    2.93ms" */
function wrkMs(output: string, percentile: string): number {
  const m = new RegExp(`\\s${percentile}%\\s+([\\d.]+)(us|ms|s)`).exec(output);
  if (!m) return NaN;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

export async function load(
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

/**
 * Both servers loaded at the same time (each pinned to CPU 0, one client
 * each on CPU 1), so whatever the neighbours do, they do to both; the CPU
 * time each process spent per request (µs) gives the cost ratio, req/s being
 * ≈ 1 / cost for a CPU-bound server. Null without /proc.
 */
export async function concurrentCost(
  a: Started,
  b: Started,
  path: string | (() => string),
): Promise<[number, number] | null> {
  const pids = [a.child.pid ?? 0, b.child.pid ?? 0] as const;
  try {
    const before = pids.map(cpuSeconds);
    const [ra, rb] = await Promise.all([load(a.port, pids[0], path), load(b.port, pids[1], path)]);
    const after = pids.map(cpuSeconds);
    const us = (i: 0 | 1, r: Result) =>
      r.requests === 0 ? NaN : (((after[i] ?? 0) - (before[i] ?? 0)) / r.requests) * 1e6;
    return [us(0, ra), us(1, rb)];
  } catch {
    return null;
  }
}
