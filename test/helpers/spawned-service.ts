// The real service (src/main.ts) in a child process on a loopback port of its own,
// for tests of what only a whole process shows: start-up, signals, its log.
import { spawn } from 'node:child_process';
import { entryArgs } from './entry.js';
import { getOnce } from './http-get.js';
import { freePort, listeningPorts } from './ports.js';
import { until } from './wait.js';

export interface SpawnedService {
  port: number;
  /** the process id (for /proc/<pid>/status) */
  pid: number;
  /** everything the process wrote to stdout so far (its JSON log lines) */
  stdout(): string;
  /** its JSON log lines so far, parsed */
  logLines<T = Record<string, unknown>>(): T[];
  /** the exit code, once it exits */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts the service with `env` added and waits for /healthz (30 s at most);
 * `command` is what node runs (src/main.ts, or the CLI's `serve`, node flags
 * before it): its source file (the first .ts) run as entryArgs runs it, or
 * with `asIs` the command as it is (built JavaScript, such as the bundle).
 */
export async function spawnService(
  env: Record<string, string>,
  command: string[] = ['src/main.ts'],
  { asIs = false }: { asIs?: boolean } = {},
): Promise<SpawnedService> {
  const source = asIs ? -1 : command.findIndex((arg) => arg.endsWith('.ts'));
  const args =
    source === -1
      ? command
      : [...command.slice(0, source), ...entryArgs(command[source]!), ...command.slice(source + 1)];
  // PORT=0 unless the test names one: the service's own port is read from
  // where it listens (a port picked beforehand could be taken meanwhile by
  // another file's child, whose /healthz would answer in this one's place)
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const named = env['PORT'] === undefined ? null : Number(env['PORT']);
  const metricsPort = env['METRICS_PORT'] === undefined ? null : Number(env['METRICS_PORT']);
  let port = named ?? 0;
  let out = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const service: SpawnedService = {
    get port() {
      return port;
    },
    pid: child.pid ?? 0,
    stdout: () => out,
    logLines: <T>() =>
      out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as T),
    exited,
    kill: (signal = 'SIGKILL') => {
      if (child.exitCode === null) child.kill(signal);
    },
  };
  try {
    await until(
      async () => {
        if (child.exitCode !== null) throw new Error(`the service exited: ${out}`);
        if (port === 0) {
          // the child's own listening socket (the operator port, METRICS_PORT, is not it)
          port = listeningPorts(child.pid ?? 0).find((p) => p !== metricsPort) ?? 0;
          if (port === 0) return false;
        }
        return (await getOnce(port, '/healthz').catch(() => null))?.status === 200;
      },
      30_000,
      50,
    );
  } catch (error) {
    service.kill();
    throw error;
  }
  return service;
}

/** Starts src/main.ts with `env` added, expecting it to stop at start-up: its exit code and standard error. */
export async function startupFailure(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, entryArgs('src/main.ts'), {
    env: { ...process.env, PORT: String(await freePort()), HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}
