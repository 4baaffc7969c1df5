// The in-service schedule (FEED_UPDATE_INTERVAL_HOURS): the same update as
// `npm run update-data` (src/update/update-data.ts), with its lines in the
// log instead of a terminal; the caller reloads afterwards. A failure keeps
// the current data answering.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { GeoData } from '../lookups/geoip/load.js';
import type { Output } from './progress.js';
import { runUpdateData } from './update-data.js';

/** Each line the update would print, as one log record. */
function logOutput(log: Logger): Output {
  return {
    write: (text: string) => {
      for (const line of text.split('\n'))
        if (line.trim() !== '') log.info({ update: line }, 'update');
    },
  };
}

/**
 * One scheduled run. `current` is the data answering in this process (the
 * sanity checks compare with it); null in a cluster primary, which serves
 * nothing and loads what its workers answer from for the run only.
 */
export async function runScheduledUpdate(
  config: Readonly<Config>,
  log: Logger,
  current: Pick<GeoData, 'tables'> | null,
): Promise<void> {
  const status = await runUpdateData({
    config,
    dataDir: config.dataDir,
    only: null,
    out: logOutput(log),
    log,
    ...(current === null ? {} : { current }),
  });
  if (status !== 0)
    log.error('scheduled update: no data set could be updated; keeping the current data');
}
