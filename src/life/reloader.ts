// Every reload of the data a serving process answers from, in one queue and
// in the order its parts depend on each other: the operator's overrides, the
// GeoIP/ASN tables, then the detection index, which is built from the ASN
// table (the vpn-range rule reads its routed rows and the AS of each /48) as
// much as from the feeds — so new ASN data alone rebuilds it — and the
// geofeeds, whose places are resolved against the GeoIP tables. Reloads never
// overlap: a timer tick, SIGHUP and the end of a scheduled update that come
// together run one after the other. A failed part keeps the data it had.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { reloadGeoData, type ServiceData } from '../composition.js';
import { updateSignature } from '../lookups/geoip/load.js';

export interface ReloadRequest {
  /** what asked: 'timer', 'SIGHUP', 'update' (logged) */
  reason: string;
  /**
   * Reload only what changed on disk (a cheap stat per source: the timer and
   * the end of an update); without it (SIGHUP) everything is read again.
   */
  ifChanged: boolean;
}

export class DataReloader {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly config: Readonly<Config>,
    private readonly data: ServiceData,
    private readonly log: Logger,
    /** called after each reload with what asked (EXPORT_DIR's keeper: a rebuild when the data changed) */
    private readonly afterReload: ((reason: string) => void) | null = null,
  ) {}

  /** Runs after the reloads already queued; resolves when this one is done (it never rejects). */
  reload(request: ReloadRequest): Promise<void> {
    const next = this.queue.then(() => this.run(request));
    this.queue = next;
    return next;
  }

  private async run({ reason, ifChanged }: ReloadRequest): Promise<void> {
    const { config, data, log } = this;
    // never throws: a bad file is refused and logged by the holder
    await data.overrides
      .reload({ ifChanged })
      .catch((error: unknown) => log.error({ err: error }, 'overrides reload failed'));
    let asnSwapped = false;
    if (!ifChanged || updateSignature(config.dataDir) !== data.geoSignature) {
      try {
        asnSwapped = (await reloadGeoData(config, data, log)).asnChanged;
        log.info({ reason, data: data.geo.dataSets.map((d) => d.name) }, 'GeoIP/ASN data reloaded');
      } catch (error) {
        log.error({ err: error, reason }, 'GeoIP/ASN reload failed; keeping the old data');
      }
    }
    try {
      const index = await data.vpn.reload({ ifChanged: ifChanged && !asnSwapped });
      log.debug({ reason, feeds: index.feeds.length, asnSwapped }, 'feeds checked');
    } catch (error) {
      log.error({ err: error }, 'feed reload failed; keeping the old index');
    }
    // the geofeeds' places are resolved against the GeoIP data: the holder
    // rebuilds when a geofeed file or the GeoIP tables changed
    try {
      const index = await data.geofeeds.reload({ ifChanged });
      log.debug({ reason, geofeeds: index.feeds.length }, 'geofeeds checked');
    } catch (error) {
      log.error({ err: error }, 'geofeed reload failed; keeping the old geofeeds');
    }
    this.afterReload?.(reason);
  }
}
