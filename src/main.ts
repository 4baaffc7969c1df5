// The composition root: the only module that reads the environment, listens,
// and handles signals.
import { pino } from 'pino';
import { ConfigError, loadConfig } from './config.js';
import { buildService, loadServiceData } from './deps.js';
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
  if (config.redisUrl !== null) {
    log.warn('REDIS_URL is set, but this version keeps the cache and rate limits in process');
  }
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
  const app = buildService(config, data, log, { isReady: () => ready, accessLog });
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
      log.flush();
      process.exit(0);
    });
    app.server.closeIdleConnections();
    setTimeout(() => {
      log.warn('in-flight requests did not finish in time; exiting');
      log.flush();
      process.exit(0);
    }, SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`ipintel failed to start: ${String(error)}\n`);
  process.exit(1);
});
