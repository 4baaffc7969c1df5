// The process's entry: the only module that reads the environment, listens,
// and handles signals. main() starts one serving process or a cluster of
// them; serve() starts one and wires its stop. What it starts is composed in
// src/composition.ts; the reloads (src/life/reloader.ts, src/auth/api-keys-reload.ts),
// the warm-up (src/life/warm-up.ts), the stop (src/life/shutdown.ts) and the update
// schedule (src/update/schedule.ts) are modules of their own.
import { performance } from 'node:perf_hooks';
import cluster from 'node:cluster';
import { pino, type Logger } from 'pino';
import { ConfigError, loadConfig, type Config } from './config.js';
import { buildMetricsApp, buildService, loadServiceData, type ServiceData } from './composition.js';
import { DataReloader } from './life/reloader.js';
import { childBuild, ExportKeeper, exportDataVersion } from './export/export-keeper.js';
import { ApiKeySource } from './auth/api-key-source.js';
import { ApiKeysFileError } from './auth/api-keys.js';
import type { App } from './app.js';
import { MemoryRateLimitStore } from './ratelimit/memory-rate-limit-store.js';
import { IpcLeaseAuthority } from './ratelimit/ipc-lease-authority.js';
import { LeasedRateLimitStore } from './ratelimit/leased-rate-limit-store.js';
import { RedisLeaseAuthority } from './ratelimit/redis-lease-authority.js';
import { RedisCacheStore } from './cache/redis-cache-store.js';
import { runCluster, signalWorkers } from './life/cluster.js';
import { openRedisLink, type RedisState } from './redis/redis-link.js';
import { BatchedAccessLog, silentAccessLog, type AccessLog } from './http/access-log.js';
import { DataError } from './lookups/geoip/load.js';
import { clusterMetrics } from './observe/cluster-metrics.js';
import { createMetrics, type Metrics } from './observe/metrics.js';
import { warmUp } from './life/warm-up.js';
import { GracefulShutdown } from './life/shutdown.js';
import { scheduleUpdates } from './update/schedule.js';
import { ApiKeysReloader } from './auth/api-keys-reload.js';
import { listenFailure, type ListenSettings } from './http/listen-failure.js';

const SHUTDOWN_GRACE_MS = 10_000;
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

async function main(): Promise<void> {
  const started = performance.now();
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // read once per process, here: a bad keys file stops start-up before any
  // worker is forked (each worker, a process of its own, reads it for itself)
  const apiKeys = config.apiKeysFile === null ? null : openApiKeys(config);
  // the log buffer is bounded: when stdout cannot keep up, lines are dropped
  // rather than held in memory without end (SonicBoom's maxLength)
  const destination = pino.destination({ fd: 1, sync: false, maxLength: LOG_BUFFER_BYTES });
  const log = pino({ level: config.logLevel }, destination);
  const accessLog = log.isLevelEnabled('info')
    ? new BatchedAccessLog(destination)
    : silentAccessLog;
  // Who counts the rate limit: Redis is exact across processes and machines;
  // without it, the cluster primary leases each worker shares of the allowance.
  const rateLimit =
    config.redisUrl !== null ? 'redis' : config.workers > 1 ? 'primary-shared' : 'in-process';
  if (config.workers === 1) {
    await serve(config, log, accessLog, started, rateLimit, apiKeys);
    return;
  }
  if (cluster.isPrimary) {
    log.info({ workers: config.workers, rateLimit }, 'starting workers');
    // EXPORT_DIR: the primary holds no data, so its builds check for themselves
    // (--if-changed) at start, after each scheduled update and on SIGHUP
    const keeper =
      config.exportDir === null
        ? null
        : new ExportKeeper(childBuild(config.exportDir, config.exportParts), log);
    keeper?.request('start');
    if (keeper !== null) process.on('SIGHUP', () => keeper.request('SIGHUP'));
    // the feeds are fetched once per machine, here; the workers reload them on SIGHUP
    scheduleUpdates(config, log, null, () => {
      signalWorkers('SIGHUP');
      keeper?.request('update');
    });
  }
  await runCluster(
    config.workers,
    () => serve(config, log, accessLog, started, rateLimit, apiKeys),
    log,
    { shutdownGraceMs: SHUTDOWN_GRACE_MS + 2_000 },
  );
}

/** One serving process: the only one, or a cluster worker. */
async function serve(
  config: Readonly<Config>,
  log: Logger,
  accessLog: AccessLog,
  started: number,
  rateLimit: string,
  apiKeys: ApiKeySource | null,
): Promise<void> {
  // SIGHUP's default action ends the process: one that comes while the data
  // loads (a worker restarting when the primary relays a reload) must not
  // kill it; what is being loaded is current anyway
  const startingHup = (): void => log.info('SIGHUP while starting: loading the current data');
  process.on('SIGHUP', startingHup);
  // Redis connects while the data loads
  const [data, redis] = await Promise.all([
    loadData(config, log),
    config.redisUrl === null ? null : openRedis(config.redisUrl, config.rateLimitLeaseMs, log),
  ]);
  const shutdown = new GracefulShutdown(log, accessLog, SHUTDOWN_GRACE_MS);
  // under WORKERS a scrape answers for every worker (the primary sums them)
  const metrics = cluster.isWorker ? clusterMetrics(createMetrics()) : createMetrics();
  const app = buildService(config, data, log, {
    metrics,
    isReady: () => shutdown.ready,
    accessLog,
    apiKeys,
    ...(redis === null
      ? cluster.isWorker
        ? {
            rateLimitStore: new LeasedRateLimitStore(
              new IpcLeaseAuthority(),
              new MemoryRateLimitStore(),
              { leaseMs: config.rateLimitLeaseMs },
            ),
          }
        : {}
      : {
          cacheStore: redis.cache,
          rateLimitStore: redis.rateLimit,
          dependencies: () => ({ redis: redis.health() }),
        }),
  });
  listenOrStop(app, log, { port: 'PORT', host: 'HOST' }, config.port, config.host, () => {
    log.info(
      {
        address: app.server.address(),
        startupMs: Math.round(performance.now() - started),
        data: data.geo.dataSets.map((d) => d.name),
        rssMb: Math.round(process.memoryUsage().rss / 1e6),
        rateLimit,
      },
      'ipintel listening',
    );
    warmUp(data.geo.tables, metrics, log);
  });
  const metricsApp = config.metricsPort === null ? null : listenMetrics(config, metrics, log);
  // Data written by `npm run update-data` (or the schedule below) is picked
  // up without a restart: a cheap stat of its files every minute, or SIGHUP.
  // EXPORT_DIR: the export rebuilt (in a child process) when a reload changed the data
  const keeper =
    config.exportDir === null || cluster.isWorker
      ? null
      : new ExportKeeper(childBuild(config.exportDir, config.exportParts), log);
  if (keeper !== null) {
    metrics.exportBuilds(() => keeper.counts);
    keeper.dataIs(exportDataVersion(data), 'start');
  }
  const reloader = new DataReloader(config, data, log, (reason) =>
    keeper?.dataIs(exportDataVersion(data), reason),
  );
  setInterval(() => void reloader.reload({ reason: 'timer', ifChanged: true }), 60_000).unref();
  const keys = apiKeys === null ? null : new ApiKeysReloader(apiKeys, log);
  keys?.watch();
  // SIGHUP also re-reads the GeoIP/ASN files (e.g. GEOIP_DB replaced on disk) and the API keys
  process.off('SIGHUP', startingHup);
  process.on('SIGHUP', () => {
    void reloader.reload({ reason: 'SIGHUP', ifChanged: false });
    keys?.reload('SIGHUP');
  });
  if (!cluster.isWorker) {
    scheduleUpdates(config, log, data.geo, () =>
      reloader.reload({ reason: 'update', ifChanged: true }),
    );
  }
  shutdown.onSignals({ app, metricsApp, redis });
}

/** API_KEYS_FILE read now; a file that cannot be used stops start-up, naming its lines. */
function openApiKeys(config: Readonly<Config>): ApiKeySource {
  try {
    return ApiKeySource.open(config.apiKeysFile!, config.rateLimitMax);
  } catch (error) {
    if (error instanceof ApiKeysFileError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/** METRICS_PORT: /metrics on a listener of its own (METRICS_HOST, loopback by default). */
function listenMetrics(config: Readonly<Config>, metrics: Metrics, log: Logger): App {
  const metricsApp = buildMetricsApp(config, metrics, log);
  listenOrStop(
    metricsApp,
    log,
    { port: 'METRICS_PORT', host: 'METRICS_HOST' },
    config.metricsPort!,
    config.metricsHost,
    () => log.info({ address: metricsApp.server.address() }, 'metrics listening'),
  );
  return metricsApp;
}

/** Listens; a listener that cannot start stops start-up with one line naming the setting. */
function listenOrStop(
  app: App,
  log: Logger,
  settings: ListenSettings,
  port: number,
  host: string,
  listening: () => void,
): void {
  const failed = (error: Error & { code?: string }): void =>
    stopStarting(log, listenFailure(error, settings, port, host));
  app.server.once('error', failed);
  app.server.listen(port, host, () => {
    app.server.off('error', failed);
    listening();
  });
}

async function loadData(config: Readonly<Config>, log: Logger): Promise<ServiceData> {
  let data: ServiceData;
  try {
    data = await loadServiceData(config, log);
  } catch (error) {
    if (error instanceof DataError) stopStarting(log, error.message);
    throw error;
  }
  // a bad overrides file stops start-up, as a bad API_KEYS_FILE does: no
  // overrides are in memory yet that could answer instead (a reload later
  // refuses a bad file and keeps the ones answering); under WORKERS each
  // worker stops, and a worker that fails to start stops the service
  const refused = data.overrides.status.refused;
  if (refused !== null) {
    const lines = refused.problems.map((p) =>
      p.line === 0 ? p.reason : `line ${p.line}: ${p.reason}`,
    );
    stopStarting(log, `OVERRIDES_FILE ${config.overridesFile}: refused:\n  ${lines.join('\n  ')}`);
  }
  return data;
}

/** A start that cannot go on: the reason in the log and on standard error, exit 1. */
function stopStarting(log: Logger, message: string): never {
  log.fatal(message);
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

interface RedisStores {
  cache: RedisCacheStore;
  rateLimit: LeasedRateLimitStore;
  health: () => RedisState;
  close(): Promise<void>;
}

/**
 * REDIS_URL: the cache and the rate-limit counters shared by every instance,
 * on one connection. While Redis is down the service keeps answering (misses,
 * in-process limits) and says so once per incident, on /readyz and in metrics.
 */
async function openRedis(url: string, leaseMs: number, log: Logger): Promise<RedisStores> {
  const link = await openRedisLink(url, {
    onStateChange: (state, error) => {
      if (state === 'up') log.info('redis is up: cache and rate limits are shared');
      else
        log.warn(
          { err: error },
          'redis is down: caching per lookup and limiting in process until it returns',
        );
    },
  });
  const rateLimit = new LeasedRateLimitStore(
    new RedisLeaseAuthority(link),
    new MemoryRateLimitStore(),
    { leaseMs },
  );
  return {
    // the format version of cached JSON: bump it when a lookup's shape changes,
    // so no instance serves entries written in the old shape
    cache: new RedisCacheStore(link, { version: '1' }),
    // a request waiting for a lease Redis does not grant is counted in this process
    rateLimit,
    health: () => link.state,
    // the units leased and not used go back before the connection closes
    close: () => rateLimit.close().finally(() => link.close()),
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`ipintel failed to start: ${String(error)}\n`);
  process.exit(1);
});
