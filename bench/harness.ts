// What `npm run bench` does to processes: start a server pinned to a CPU,
// wait for its first answer, load it with wrk from the other CPU, and read its
// CPU time and RSS from /proc.
import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the compiled bench runs from (dist/bench), and the checkout around it. */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
export const ROOT = resolve(BENCH_DIR, '..', '..');

/** perf-bar.sh's setup: the servers on CPU 0, wrk on CPU 1 with 50 connections. */
export const SERVER_CPU = 0;
export const CLIENT_CPU = 1;
export const CONNECTIONS = 50;

/** The service's environment under load: loopback, no rate limit in the way, the usual log. */
export const SERVICE_ENV: Readonly<Record<string, string>> = {
  HOST: '127.0.0.1',
  RATE_LIMIT_MAX: '1000000000',
  LOG_LEVEL: 'info',
};

/** A positive integer from the environment (BENCH_ROUNDS, …); unset or empty: `fallback`. */
export function envCount(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`${name} must be a positive integer, not "${raw}"`);
  }
  return value;
}

/** perf-bar.sh's median: the middle value, the lower one of an even count. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length + 1) / 2) - 1] ?? 0;
}

/** What `npm run bench` needs and does not find: it says which and exits 2. */
export function missingTools(): string[] {
  const missing: string[] = [];
  // wrk prints its version and exits 1; only a missing binary is an error here
  for (const [tool, args] of [
    ['wrk', ['--version']],
    ['taskset', ['--version']],
  ] as const) {
    if (spawnSync(tool, args, { stdio: 'ignore' }).error) missing.push(tool);
  }
  try {
    readFileSync('/proc/self/stat');
  } catch {
    missing.push('/proc (Linux)');
  }
  if (cpus().length < 2) missing.push('two CPUs (the servers on CPU 0, wrk on CPU 1)');
  return missing;
}

/** Pins a running process (all its threads) to one CPU. */
export function pin(pid: number, cpu: number): void {
  execFileSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

export interface Server {
  name: string;
  child: ChildProcess;
  port: number;
  /** the process that listens (and whose CPU time is counted) */
  pid: number;
  /** where its stderr goes */
  errFile: string;
  /** ms from spawning it to its first 2xx answer to the ready path */
  readyMs: number;
}

const running = new Set<ChildProcess>();

/** Stops a server and whatever it started (it runs in its own process group). */
export function stop(child: ChildProcess): void {
  running.delete(child);
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

export function stopAll(): void {
  for (const child of [...running]) stop(child);
}

/** One GET; true on a 2xx answer (as `curl -f`). */
function answers(port: number, path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.setTimeout(2000, () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

/**
 * Spawns `command` pinned to `cpu` in its own process group, stdout to
 * /dev/null and stderr to `errFile`, and waits (polling every 10 ms) for its
 * first 2xx answer to `readyPath` on `port`.
 */
export async function startServer(options: {
  name: string;
  command: readonly string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  cpu: number;
  errFile: string;
  readyPath: string;
  timeoutMs: number;
}): Promise<Server> {
  const { name, command, port, readyPath, timeoutMs } = options;
  const err = openSync(options.errFile, 'a');
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', String(options.cpu), ...command], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', err],
    detached: true,
  });
  closeSync(err);
  running.add(child);
  const spawned: { error?: Error } = {};
  child.once('error', (error) => (spawned.error = error));
  for (;;) {
    if (await answers(port, readyPath)) break;
    if (spawned.error) throw new Error(`${name}: ${spawned.error.message}`);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before answering`);
    }
    if (performance.now() - t0 > timeoutMs) {
      stop(child);
      throw new Error(`${name} did not answer ${readyPath} within ${timeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const readyMs = Math.floor(performance.now() - t0);
  return {
    name,
    child,
    port,
    pid: listenerPid(port) ?? child.pid ?? 0,
    errFile: options.errFile,
    readyMs,
  };
}

/** The pid listening on a local TCP port, from `ss` (as perf-bar.sh finds it). */
function listenerPid(port: number): number | null {
  try {
    const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
    const pid = /pid=(\d+)/.exec(out)?.[1];
    return pid === undefined ? null : Number(pid);
  } catch {
    return null;
  }
}

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** CPU time (utime + stime, all threads) a process has used so far, in seconds. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // after "pid (comm) " the fields start at the 3rd; utime and stime are the 14th and 15th
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The processes of a process group (a server started by startServer leads its own). */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // after "pid (comm) ": state, ppid, pgrp
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Resident set size in MB (VmRSS, rounded down). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.floor(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** perf-bar.sh's wrk/random-paths.lua: cycle through the paths in $PATHS_FILE. */
export const CYCLE_PATHS_LUA = `-- wrk script: cycle through a list of request paths (one per line) read from $PATHS_FILE
local paths = {}
local i = 0
init = function(args)
  local f = assert(io.open(os.getenv("PATHS_FILE"), "r"))
  for line in f:lines() do paths[#paths + 1] = line end
  f:close()
  i = math.random(#paths)
end
request = function()
  i = i + 1
  if i > #paths then i = 1 end
  return wrk.format("GET", paths[i])
end
`;

export interface Load {
  /** CPU time of the server per request wrk completed, µs */
  usPerRequest: number;
  requests: number;
  requestsPerSecond: number;
  p99Ms: number;
  /** wrk's "Non-2xx or 3xx responses" and "Socket errors" lines, when present */
  problems: string[];
}

/** wrk's --latency line "     99%   12.34ms", in ms */
function percentileMs(output: string, percentile: string): number {
  const m = new RegExp(`^\\s*${percentile}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(output);
  if (!m) return 0;
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

/**
 * `wrk -t1 -c<connections> -d<seconds>s --latency -s <lua>` pinned to `cpu`,
 * cycling through `pathsFile`, with the server's CPU time read just before
 * and just after.
 */
export async function load(
  server: Server,
  options: {
    pathsFile: string;
    lua: string;
    seconds: number;
    connections: number;
    cpu: number;
    /** the processes whose CPU time is counted (default: the server's listening one) */
    pids?: () => readonly number[];
  },
): Promise<Load> {
  const pids = options.pids ?? (() => [server.pid]);
  const cpu = (): number => pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const args = ['-c', String(options.cpu), 'wrk', '-t1', `-c${options.connections}`];
  args.push(`-d${options.seconds}s`, '--latency', '-s', options.lua);
  args.push(`http://127.0.0.1:${server.port}/`);
  const before = cpu();
  const output = await new Promise<string>((resolve, reject) => {
    execFile(
      'taskset',
      args,
      { env: { ...process.env, PATHS_FILE: options.pathsFile } },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`wrk failed: ${error.message}${stderr}`));
        else resolve(stdout);
      },
    );
  });
  const after = cpu();
  const requests = Number(/(\d+) requests in/.exec(output)?.[1] ?? 0);
  const problems = [/Non-2xx or 3xx responses: \d+/, /Socket errors: .*/]
    .map((re) => re.exec(output)?.[0])
    .filter((line): line is string => line !== undefined);
  return {
    usPerRequest: requests > 0 ? ((after - before) * 1e6) / requests : 0,
    requests,
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? 0),
    p99Ms: percentileMs(output, '99'),
    problems,
  };
}

/** The service's bundle, and the wrapper package.json's start script runs it through (the build check first). */
export const MAIN = 'dist/bundle/main.js';
export const START_WRAPPER = 'scripts/start.mjs';

/**
 * The environment assignments and node flags of package.json's `start`
 * script (`[NAME=value …] node <flags> scripts/start.mjs`, or `… dist/bundle/main.js`),
 * so that the bench runs the service as `npm start` does (minus the build check).
 */
export function startCommand(root: string): { env: Record<string, string>; flags: string[] } {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const start = pkg.scripts?.['start'] ?? '';
  for (const command of start.split(/&&|\|\||;/)) {
    const words = command.trim().split(/\s+/);
    const node = words.indexOf('node');
    const main = words.findIndex((word) =>
      [MAIN, START_WRAPPER].includes(word.replace(/^\.\//, '')),
    );
    if (node !== -1 && main > node && !words.some((word) => /["'`$\\]/.test(word))) {
      const env = Object.fromEntries(
        words
          .slice(0, node)
          .map((word) => /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(word))
          .filter((m) => m !== null)
          .map((m) => [m[1]!, m[2]!]),
      );
      return { env, flags: words.slice(node + 1, main) };
    }
  }
  throw new Error(
    `cannot find "node <flags> ${START_WRAPPER}" in package.json's start script: "${start}"`,
  );
}

/**
 * A scratch folder for one bench run (removed, and every server stopped, when
 * the process exits) holding the wrk script that cycles through path lists.
 */
export function loadWorkspace(prefix: string): { work: string; lua: string } {
  const work = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => {
    stopAll();
    rmSync(work, { recursive: true, force: true });
  });
  const lua = join(work, 'cycle-paths.lua');
  writeFileSync(lua, CYCLE_PATHS_LUA);
  return { work, lua };
}
