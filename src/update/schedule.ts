// FEED_UPDATE_INTERVAL_HOURS: every so many hours the feeds and the GeoIP/ASN
// data are updated in the service (./scheduled.ts, the same run as
// `npm run update-data`), then the caller reloads. The updater (download,
// compile, checks) is loaded when an update is due, not at start.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { GeoData } from '../lookups/geoip/load.js';

/**
 * `current` is the data answering in this process (the sanity checks compare
 * with it); null in a cluster primary, which answers nothing.
 */
export function scheduleUpdates(
  config: Readonly<Config>,
  log: Logger,
  current: Pick<GeoData, 'tables'> | null,
  onUpdated: () => unknown,
): void {
  if (config.feedUpdateIntervalHours === 0) return;
  const update = (): void => {
    import('./scheduled.js')
      .then(({ runScheduledUpdate }) => runScheduledUpdate(config, log, current))
      .then(onUpdated)
      .catch((error: unknown) => log.error({ err: error }, 'scheduled update failed'));
  };
  setInterval(update, config.feedUpdateIntervalHours * 3_600_000).unref();
}
