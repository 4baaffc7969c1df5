// A serving process's stop on SIGTERM or SIGINT: /readyz turns unready at
// once (a load balancer stops sending), the listeners close, in-flight
// requests finish, the Redis connection hands back its leased units, the logs
// are flushed and the process exits 0 — or, when requests do not finish
// within the grace, it exits 0 anyway after saying so.
import type { Logger } from 'pino';
import type { App } from '../app.js';
import type { AccessLog } from '../http/access-log.js';

/** what is stopped, in this order */
export interface StoppedParts {
  app: App;
  /** the METRICS_PORT listener, when there is one */
  metricsApp: App | null;
  redis: { close(): Promise<void> } | null;
}

export class GracefulShutdown {
  private started = false;

  constructor(
    private readonly log: Logger,
    private readonly accessLog: AccessLog,
    private readonly graceMs: number,
  ) {}

  /** false once a stop signal came (what /readyz answers from) */
  get ready(): boolean {
    return !this.started;
  }

  /** SIGTERM and SIGINT stop `parts` from now on. */
  onSignals(parts: StoppedParts): void {
    process.on('SIGTERM', () => this.stop('SIGTERM', parts));
    process.on('SIGINT', () => this.stop('SIGINT', parts));
  }

  private stop(signal: string, { app, metricsApp, redis }: StoppedParts): void {
    if (this.started) return;
    this.started = true;
    const { log, accessLog } = this;
    log.info({ signal }, 'shutting down: finishing in-flight requests');
    metricsApp?.server.close();
    metricsApp?.server.closeAllConnections();
    app.server.close(() => {
      void (redis?.close() ?? Promise.resolve())
        .catch(() => undefined)
        .finally(() => {
          accessLog.flush();
          log.flush();
          process.exit(0);
        });
    });
    app.server.closeIdleConnections();
    setTimeout(() => {
      log.warn('in-flight requests did not finish in time; exiting');
      accessLog.flush();
      log.flush();
      process.exit(0);
    }, this.graceMs).unref();
  }
}
