// A real redis-server for the Redis-backed store tests: its own process on a
// free loopback port, no persistence, started and stopped by the test. It can
// be stopped and started again on the same port (an outage) or paused with
// SIGSTOP (a Redis that accepts connections but does not answer). When
// redis-server is not installed, scripts/ensure-redis.sh installs it first.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './ports.js';

const HOST = '127.0.0.1';
const ENSURE_SCRIPT = fileURLToPath(new URL('../../scripts/ensure-redis.sh', import.meta.url));
const START_TIMEOUT_MS = 5_000;

export interface RedisTestServer {
  readonly host: string;
  readonly port: number;
  /** redis://127.0.0.1:<port> */
  readonly url: string;
  /** Stops the process (SIGTERM, then SIGKILL); the port stays reserved for restart(). */
  stop(): Promise<void>;
  /** Starts a fresh, empty redis-server on the same port and waits until it answers. */
  restart(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Stops it for good. */
  close(): Promise<void>;
}

let ensured = false;

function ensureRedisInstalled(): void {
  if (ensured) return;
  const found = spawnSync('sh', ['-c', 'command -v redis-server'], { stdio: 'ignore' });
  if (found.status !== 0) {
    const install = spawnSync('sh', [ENSURE_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (install.status !== 0) {
      throw new Error(`${ENSURE_SCRIPT} failed (exit ${install.status}): redis-server is needed`);
    }
  }
  ensured = true;
}

/** True when a PING on a fresh connection is answered +PONG within `ms`. */
async function pings(port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: HOST, port });
    let reply = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), ms);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
  });
}

function spawnRedis(port: number): ChildProcess {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      HOST,
      '--save',
      '',
      '--appendonly',
      'no',
      '--daemonize',
      'no',
      '--loglevel',
      'warning',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.resume();
  return child;
}

async function waitUntilAnswering(child: ChildProcess, port: number): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(
        `redis-server on port ${port} exited (${child.exitCode ?? child.signalCode})`,
      );
    }
    if (await pings(port, 200)) return;
    await sleep(20);
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${START_TIMEOUT_MS} ms`);
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGCONT'); // a paused server cannot act on SIGTERM
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 2_000);
  await exited;
  clearTimeout(timer);
}

export async function startRedisServer(): Promise<RedisTestServer> {
  ensureRedisInstalled();
  let child: ChildProcess | undefined;
  let port = 0;
  // The free port is only free when we looked; another process may take it
  // before redis-server binds, so try a few.
  for (let attempt = 0; child === undefined; attempt++) {
    port = await freePort();
    const candidate = spawnRedis(port);
    try {
      await waitUntilAnswering(candidate, port);
      child = candidate;
    } catch (error) {
      await terminate(candidate);
      if (attempt >= 2) throw error;
    }
  }
  let current: ChildProcess = child;
  // Never leave a redis-server behind, even when the test process dies early.
  const killOnExit = () => current.kill('SIGKILL');
  process.once('exit', killOnExit);

  return {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    stop: () => terminate(current),
    async restart() {
      await terminate(current);
      current = spawnRedis(port);
      await waitUntilAnswering(current, port);
    },
    pause: () => void current.kill('SIGSTOP'),
    resume: () => void current.kill('SIGCONT'),
    async close() {
      await terminate(current);
      process.removeListener('exit', killOnExit);
    },
  };
}
