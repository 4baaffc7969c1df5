// The in-service schedule (FEED_UPDATE_INTERVAL_HOURS): the feeds, then the
// GeoIP and ASN data sets, then a reload. One log line per data set says
// what happened; a failure keeps the current data answering.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { ServiceData } from '../deps.js';
import { feedsDir } from '../lookups/vpn/feed-store.js';
import { updateGeoData } from '../data/update/geo-updater.js';
import { sourceSettings } from '../data/update/update-config.js';
import { loadGeoData } from '../lookups/geoip/load.js';
import { updateFeeds } from '../lookups/vpn/index.js';

/**
 * One scheduled run. `data` is the data answering in this process (the
 * sanity checks compare with it); null in a cluster primary, which serves
 * nothing and loads what its workers answer from for the run only.
 */
export async function runScheduledUpdate(
  config: Readonly<Config>,
  log: Logger,
  data: ServiceData | null,
): Promise<void> {
  try {
    const results = await updateFeeds({
      dataDir: feedsDir(config.dataDir),
      feeds: [...config.feeds],
      timeoutMs: config.feedTimeoutMs,
      maxBytes: config.feedMaxBytes,
    });
    log.info({ results: results.map((r) => ({ feed: r.feed, ok: r.ok })) }, 'feeds updated');
  } catch (error) {
    log.error({ err: error }, 'feed update failed');
  }
  const update = config.dataUpdate;
  if (update.kinds.length === 0) return;
  const geo =
    data?.geo ??
    (await loadGeoData(
      { geoipDb: config.geoipDb, asnDb: config.asnDb, dataDir: config.dataDir },
      log,
    ).catch(() => null));
  const results = await updateGeoData({
    dataDir: config.dataDir,
    settings: sourceSettings(update),
    kinds: update.kinds,
    current: (kind) => geo?.tables[kind] ?? null,
    timeoutMs: update.timeoutMs,
    maxBytes: update.maxBytes,
  });
  for (const r of results) {
    if (data !== null) {
      data.updateStatus[r.kind] = {
        checkedAt: new Date().toISOString(),
        outcome: r.outcome,
        error: r.error,
        succeededAt:
          r.outcome === 'failed'
            ? (data.updateStatus[r.kind]?.succeededAt ?? null)
            : new Date().toISOString(),
      };
    }
    if (r.outcome === 'failed') {
      log.error(
        { kind: r.kind, error: r.error },
        `${r.kind} update failed; keeping the current data`,
      );
    } else {
      log.info(
        { kind: r.kind, outcome: r.outcome, name: r.manifest?.name ?? null },
        `${r.kind} data ${r.outcome}`,
      );
    }
  }
}
