// The composition root: the only module that reads the environment, listens,
// and handles signals.
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { buildService, feedsDir, loadServiceData } from './deps.js';
import { updateFeeds } from './lookups/vpn/index.js';
import { MemoryRateLimitStore } from './http/rate-limit.js';
import { createRedisStores } from './redis/redis-health.js';
import { BatchedAccessLog, silentAccessLog } from './http/access-log.js';
import { DataError } from './lookups/geoip/load.js';

const SHUTDOWN_GRACE_MS = 10_000;

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
  const destination = pino.destination({ fd: 1, sync: false });
  const log = pino({ level: config.logLevel }, destination);
  const accessLog = log.isLevelEnabled('info')
    ? new BatchedAccessLog(destination)
    : silentAccessLog;
  // REDIS_URL: cache and rate-limit counters shared by every instance. While
  // Redis is down the service keeps answering (misses, in-process limits) and
  // says so once per incident, on /readyz and in metrics.
  const redis =
    config.redisUrl === null
      ? null
      : createRedisStores(config.redisUrl, {
          memoryRateLimit: new MemoryRateLimitStore(),
          onStateChange: (state, error) => {
            if (state === 'up') log.info('redis is up: cache and rate limits are shared');
            else
              log.warn(
                { err: error },
                'redis is down: caching per lookup and limiting in process until it returns',
              );
          },
        });
  if (config.workers > 1) {
    log.warn({ workers: config.workers }, 'WORKERS > 1 is not supported yet; running one process');
  }
  let data;
  try {
    data = await loadServiceData(config, log);
  } catch (error) {
    if (error instanceof DataError) {
      log.fatal(error.message);
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let ready = true;
  const app = buildService(config, data, log, {
    isReady: () => ready,
    accessLog,
    ...(redis === null
      ? {}
      : {
          cacheStore: redis.cache,
          rateLimitStore: redis.rateLimit,
          dependencies: () => ({ redis: redis.health() }),
        }),
  });
  app.server.listen(config.port, config.host, () => {
    log.info(
      {
        address: app.server.address(),
        startupMs: Math.round(performance.now() - started),
        timezoneIndex: data.geo.timezoneIndexSize,
        rssMb: Math.round(process.memoryUsage().rss / 1e6),
      },
      'ipintel listening',
    );
  });
  const shutdown = (signal: string): void => {
    if (!ready) return;
    ready = false;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.server.close(() => {
      void (redis?.close() ?? Promise.resolve())
        .catch(() => undefined)
        .finally(() => {
          log.flush();
          process.exit(0);
        });
    });
    app.server.closeIdleConnections();
    setTimeout(() => {
      log.warn('in-flight requests did not finish in time; exiting');
      log.flush();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  // Feeds written by `npm run update-data` (or the schedule below) are picked
  // up without a restart: a cheap stat of the feed files every minute, or SIGHUP.
  const reloadFeeds = (reason: string): void => {
    data.vpn
      .reload({ ifChanged: reason === 'timer' })
      .then((index) => log.debug({ reason, feeds: index.feeds.length }, 'feeds checked'))
      .catch((error: unknown) =>
        log.error({ err: error }, 'feed reload failed; keeping the old index'),
      );
  };
  setInterval(() => reloadFeeds('timer'), 60_000).unref();
  process.on('SIGHUP', () => reloadFeeds('SIGHUP'));
  if (config.feedUpdateIntervalHours > 0) {
    const update = (): void => {
      updateFeeds({
        dataDir: feedsDir(config),
        feeds: [...config.feeds],
        timeoutMs: config.feedTimeoutMs,
        maxBytes: config.feedMaxBytes,
      })
        .then((results) => {
          log.info({ results: results.map((r) => ({ feed: r.feed, ok: r.ok })) }, 'feeds updated');
          reloadFeeds('update');
        })
        .catch((error: unknown) => log.error({ err: error }, 'feed update failed'));
    };
    setInterval(update, config.feedUpdateIntervalHours * 3_600_000).unref();
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`ipintel failed to start: ${String(error)}\n`);
  process.exit(1);
});
