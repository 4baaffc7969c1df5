// WORKERS=n: n worker processes share the listening port through node:cluster
// (the primary accepts and hands connections out). The primary loads no data
// and answers no HTTP: it keeps the workers alive, leases the rate-limit
// allowance to all of them (src/ratelimit/ipc-lease-authority.ts) and relays
// signals.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { serveClusterMetrics } from '../observe/cluster-metrics.js';
import { aggregateMetrics } from '../observe/metrics.js';
import { leaseBook, serveLeases } from '../ratelimit/ipc-lease-authority.js';
import { MemoryRateLimitStore } from '../ratelimit/memory-rate-limit-store.js';

export interface ClusterOptions {
  /** how long the primary waits for workers to exit after SIGTERM/SIGINT before killing them */
  shutdownGraceMs?: number;
}

/** First restart delay; doubled for each death in a row, up to MAX_BACKOFF_MS. */
const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** A worker that stayed up this long resets the back-off: the crash was not a loop. */
const STABLE_MS = 10_000;

export async function runCluster(
  workers: number,
  startWorker: () => Promise<void>,
  log: Logger,
  options: ClusterOptions = {},
): Promise<void> {
  if (!cluster.isPrimary) {
    await startWorker();
    return;
  }
  // one ledger for every worker: the primary's single thread makes the count
  // exact; a grant is 1/share of what is left: each worker can hold a share twice over
  const book = leaseBook(new MemoryRateLimitStore(), 2 * workers);
  const shutdownGraceMs = options.shutdownGraceMs ?? 12_000;
  let stopping = false;
  /** 0 after SIGTERM/SIGINT; 1 when a worker could not start */
  let exitCode = 0;
  let failures = 0;
  const restarts = new Set<NodeJS.Timeout>();
  const listened = new WeakSet<Worker>();
  const startedAt = new WeakMap<Worker, number>();

  const fork = (): void => {
    const worker = cluster.fork();
    startedAt.set(worker, Date.now());
    serveLeases(worker, book);
    worker.once('listening', () => listened.add(worker));
  };
  const alive = (): Worker[] =>
    // a worker is listed until its channel closes, which can come after its 'exit'
    Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  const finish = (): void => {
    log.info({ code: exitCode }, 'all workers have exited');
    log.flush();
    process.exit(exitCode);
  };

  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (alive().length === 0) finish();
      return;
    }
    // A worker that never reached listen() failed at start-up (bad data, port
    // taken): every restart would fail the same way, so fail loudly instead.
    if (!listened.has(worker)) {
      log.fatal({ worker: worker.process.pid, code, signal }, 'a worker failed to start; stopping');
      stop('worker-start-failure', 1);
      return;
    }
    const upMs = Date.now() - (startedAt.get(worker) ?? 0);
    failures = upMs >= STABLE_MS ? 1 : failures + 1;
    const delay = Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** (failures - 1));
    log.error({ worker: worker.process.pid, code, signal, restartInMs: delay }, 'a worker died');
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  /** Forwards the signal to every worker (each finishes its in-flight requests) and waits. */
  const stop = (signal: NodeJS.Signals | 'worker-start-failure', code = 0): void => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const timer of restarts) clearTimeout(timer);
    log.info({ signal, workers: alive().length }, 'shutting down the workers');
    const forwarded = signal === 'worker-start-failure' ? 'SIGTERM' : signal;
    for (const worker of alive()) worker.process.kill(forwarded);
    if (alive().length === 0) finish();
    // the workers bound their own drain; this bounds a worker that is wedged
    setTimeout(() => {
      const left = alive();
      log.warn({ workers: left.length }, 'workers did not exit in time; killing them');
      for (const worker of left) worker.process.kill('SIGKILL');
      log.flush();
      process.exit(1);
    }, shutdownGraceMs).unref();
  };

  // a scrape of /metrics reaches one worker: the primary sums every worker's
  serveClusterMetrics((listener) => cluster.on('message', listener), alive, aggregateMetrics);
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // SIGHUP reloads the data (feeds, GeoIP/ASN), which lives in the workers
  process.on('SIGHUP', () => signalWorkers('SIGHUP'));
  for (let i = 0; i < workers; i++) fork();
  log.info({ workers }, 'cluster primary started');
}

/** Sends a signal to every live worker (no-op outside the primary). */
export function signalWorkers(signal: NodeJS.Signals): void {
  if (!cluster.isPrimary) return;
  for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
}
