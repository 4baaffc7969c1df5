// The one update path: `npm run update-data`, the CLI's `update-data` and the
// in-service schedule (FEED_UPDATE_INTERVAL_HOURS, src/update/scheduled.ts)
// all run this. It refreshes everything the service reads from DATA_DIR — the
// VPN/hosting/Tor feeds, the IANA RDAP bootstrap, and the GeoIP and ASN data
// sets — one status line per data set, after clearing what an interrupted
// earlier run left behind. Returns the exit status: 0 when at least one data
// set is current (updated or unchanged), 1 when every one failed (the previous
// data is kept either way).
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { clearAbandoned } from '../kit/atomic-file.js';
import type { Config } from '../config.js';
import type { DataSetKind } from '../lookups/geoip/compiled-set.js';
import { updateGeoData } from '../lookups/geoip/update/geo-updater.js';
import { sourceSettings } from '../lookups/geoip/update/update-config.js';
import { GEOLITE2_UPDATE_ID, updateGeolite2City } from '../lookups/geoip/update/geolite2-update.js';
import { DB11_UPDATE_ID, updateDb11 } from '../lookups/geoip/update/db11-update.js';
import {
  IPINFO_LITE_UPDATE_ID,
  updateIpinfoLite,
} from '../lookups/geoip/update/ipinfo-lite-update.js';
import {
  loadConfiguredGeoData,
  loadGeoData,
  optInInUse,
  type GeoData,
} from '../lookups/geoip/load.js';
import { BOOTSTRAP_FILE, refreshBootstrap, writeBootstrapFile } from '../lookups/rdap/index.js';
import {
  updateFeeds,
  type FeedProgress,
  type FeedSpec,
} from '../lookups/vpn/feeds/feed-updater.js';
import { feedsDir } from '../lookups/vpn/feeds/feed-store.js';
import { geoReporter, size, type Output } from './progress.js';
import { createDnsClient } from '../lookups/dns/index.js';
import { openDetection } from '../lookups/vpn/open-detection.js';
import { openGeofeeds } from '../lookups/geofeed/geofeed-holder.js';
import { DEFAULT_RESOLVE_LIMITS, resolveHostNames } from '../lookups/vpn/feeds/resolve-hosts.js';

export interface UpdateDataOptions {
  config: Readonly<Config>;
  dataDir: string;
  /** ids to update (feed ids, rdap-bootstrap, geoip, asn, geolite2-city, ipinfo-lite, ip2location-db11); all enabled when absent */
  only: ReadonlySet<string> | null;
  out: Output;
  /** for the data load the sanity checks compare with (warnings only) */
  log: Logger;
  /**
   * The data answering now, which the sanity checks compare the new data
   * with; when absent (a separate `update-data` process) it is loaded as the
   * service would load it.
   */
  current?: Pick<GeoData, 'tables'>;
}

export class UsageError extends Error {}

/**
 * Server host names (gluetun's) resolved through the service's DNS client
 * (DNS_SERVERS, DNS_TIMEOUT_MS per name), 16 at a time, within 2 minutes a feed.
 */
function hostResolver(config: Readonly<Config>, out: Output) {
  const dns = createDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const limits = { ...DEFAULT_RESOLVE_LIMITS, perNameTimeoutMs: config.dnsTimeoutMs };
  return async (names: readonly string[]) => {
    const resolution = await resolveHostNames(names, dns.query, limits);
    const notAsked = resolution.unreachable
      ? `${resolution.skipped} not asked: the first ${2 * limits.concurrency} got no answer at all, so the resolver was given up on`
      : `${resolution.skipped} past the deadline`;
    out.write(
      `  resolved ${resolution.addresses.size} of ${names.length} server names (${resolution.failed} gave nothing, ${notAsked})\n`,
    );
    return resolution;
  };
}

function feedReporter(out: Output, width: number) {
  return (event: FeedProgress): void => {
    const name = event.feed.padEnd(width);
    if (event.phase === 'start') out.write(`${name}  fetching ${event.url}\n`);
    if (event.phase === 'done') {
      out.write(`${name}  ok      ${size(event.bytes).padStart(10)}  ${event.prefixes} prefixes\n`);
    }
    if (event.phase === 'failed') {
      out.write(
        `${name}  FAILED  ${size(event.bytes).padStart(10)}  ${event.error} (previous file kept)\n`,
      );
    }
  };
}

/** What to update: throws UsageError for an unknown or disabled id, or when nothing is left. */
function selection(options: UpdateDataOptions) {
  const { config, only } = options;
  const bootstrap = config.rdapBootstrapUrl === null ? [] : ['rdap-bootstrap'];
  // GeoLite2 City with the operator's key, unless GEOLITE2_CITY_DB names the file to use
  const geolite2 =
    config.dataUpdate.geolite2City && config.geolite2CityDb === null ? [GEOLITE2_UPDATE_ID] : [];
  // IPinfo Lite with the operator's token
  const ipinfo = config.dataUpdate.ipinfoLite === null ? [] : [IPINFO_LITE_UPDATE_ID];
  // IP2Location LITE DB11 with the operator's token
  const db11 = config.dataUpdate.ip2location === null ? [] : [DB11_UPDATE_ID];
  const known = [
    ...config.feeds.map((f) => f.id),
    ...bootstrap,
    ...config.dataUpdate.kinds,
    ...geolite2,
    ...ipinfo,
    ...db11,
  ];
  if (only !== null) {
    const unknown = [...only].filter((id) => !known.includes(id));
    if (unknown.length > 0) {
      throw new UsageError(`--only: unknown or disabled data set(s): ${unknown.join(', ')}`);
    }
  }
  const wanted = (id: string) => only === null || only.has(id);
  const feeds: FeedSpec[] = config.feeds.filter((f) => wanted(f.id));
  const kinds: DataSetKind[] = config.dataUpdate.kinds.filter(wanted);
  const withBootstrap = bootstrap.length > 0 && wanted('rdap-bootstrap');
  const withGeolite2 = geolite2.length > 0 && wanted(GEOLITE2_UPDATE_ID);
  const withIpinfo = ipinfo.length > 0 && wanted(IPINFO_LITE_UPDATE_ID);
  const withDb11 = db11.length > 0 && wanted(DB11_UPDATE_ID);
  const optIns = withGeolite2 || withIpinfo || withDb11;
  if (feeds.length === 0 && kinds.length === 0 && !withBootstrap && !optIns) {
    throw new UsageError('nothing to update (all disabled?)');
  }
  return { feeds, kinds, withBootstrap, withGeolite2, withIpinfo, withDb11, optIns };
}

export async function runUpdateData(options: UpdateDataOptions): Promise<number> {
  const { config, dataDir, out } = options;
  const { feeds, kinds, withBootstrap, withGeolite2, withIpinfo, withDb11, optIns } =
    selection(options);
  const width = Math.max('rdap-bootstrap'.length, ...feeds.map((f) => f.id.length));
  let current = 0;
  let attempted = 0;
  let geoUpdated = false;
  const cleared = (
    await Promise.all(
      [dataDir, feedsDir(dataDir), join(dataDir, 'tables')].map((dir) => clearAbandoned(dir)),
    )
  ).flat();
  if (cleared.length > 0) {
    out.write(`removed what an interrupted update left: ${cleared.join(', ')}\n`);
  }
  if (feeds.length > 0) {
    const feedDir = feedsDir(dataDir);
    out.write(`updating ${feeds.length} feed(s) into ${feedDir}\n`);
    const results = await updateFeeds({
      dataDir: feedDir,
      feeds,
      timeoutMs: config.feedTimeoutMs,
      maxBytes: config.feedMaxBytes,
      onProgress: feedReporter(out, width),
      resolveHosts: hostResolver(config, out),
    });
    current += results.filter((r) => r.ok).length;
    attempted += results.length;
  }
  if (withBootstrap && config.rdapBootstrapUrl !== null) {
    attempted++;
    if (await updateBootstrap(config.rdapBootstrapUrl, config.feedTimeoutMs, dataDir, out, width)) {
      current++;
    }
  }
  if (kinds.length > 0) {
    const update = config.dataUpdate;
    out.write(
      `updating ${kinds.join(' and ')} from ${update.settings.source} into ${join(dataDir, 'tables')}\n`,
    );
    // the data answering now, for the sanity checks: what the service would load
    const geo =
      options.current ??
      (await loadGeoData({ geoipDb: config.geoipDb, asnDb: config.asnDb, dataDir }, options.log));
    const results = await updateGeoData({
      dataDir,
      settings: sourceSettings(update),
      kinds,
      current: (kind) => geo.tables[kind],
      timeoutMs: update.timeoutMs,
      maxBytes: update.maxBytes,
      onProgress: geoReporter(out, width),
      // a new DB-IP release is reconciled with the opt-in sources in use
      optIn: optInInUse({ ...config, dataDir }),
    });
    current += results.filter((r) => r.outcome !== 'failed').length;
    attempted += results.length;
    geoUpdated = results.some((r) => r.outcome === 'updated');
  }
  // the opt-in sources after the GeoIP update, whose sanity checks then
  // compare with the table that answers now rather than compile one from a
  // new GeoLite2 first; IPinfo Lite after GeoLite2, so that the table
  // compiled with it holds the fresh GeoLite2 too; DB11 last, likewise
  const update = config.dataUpdate;
  const optIn = {
    dataDir,
    geoipDb: config.geoipDb,
    geolite2CityDb: config.geolite2CityDb,
    timeoutMs: update.timeoutMs,
    maxBytes: update.maxBytes,
    onProgress: geoReporter(out, width),
  };
  const { ipinfoLite: ipinfo, ip2location } = update;
  const optInRuns = [
    ...(withGeolite2
      ? [() => updateGeolite2City({ ...optIn, settings: sourceSettings(update) })]
      : []),
    ...(withIpinfo && ipinfo !== null ? [() => updateIpinfoLite({ ...optIn, ipinfo })] : []),
    ...(withDb11 && ip2location !== null ? [() => updateDb11({ ...optIn, ip2location })] : []),
  ];
  for (const run of optInRuns) {
    const result = await run();
    attempted++;
    if (result.outcome !== 'failed') current++;
    if (result.outcome === 'updated') geoUpdated = true;
  }
  if (geoUpdated) {
    out.write('a running service loads the new data within a minute, or at once on SIGHUP\n');
  }
  // a separate process: what a start derives from the feeds and the tables
  // is compiled now, so that the service's next start opens it (the service
  // running the update compiles it as it reloads)
  if (
    options.current === undefined &&
    current > 0 &&
    (feeds.length > 0 || kinds.length > 0 || optIns)
  ) {
    await compileDerived({ ...config, dataDir }, out, options.log);
  }
  out.write(`${current} of ${attempted} data set(s) current\n`);
  return current === 0 ? 1 : 0;
}

/**
 * The detection index and the geofeeds, built from DATA_DIR's feeds and
 * tables as the service would and kept in DATA_DIR/tables (nothing is
 * rebuilt when those files are current already).
 */
async function compileDerived(config: Readonly<Config>, out: Output, log: Logger): Promise<void> {
  const started = performance.now();
  try {
    // paged, as the service opens them: only what the builds read is read
    const geo = await loadConfiguredGeoData(config, log);
    await openDetection(config, geo, log);
    await openGeofeeds(config, geo, log);
    const ms = Math.round(performance.now() - started);
    out.write(
      `compiled the detection index and geofeeds into ${join(config.dataDir, 'tables')} (${ms} ms)\n`,
    );
  } catch (error) {
    // the service compiles them at its start instead
    const message = error instanceof Error ? error.message : String(error);
    out.write(`compiling the detection index and geofeeds FAILED: ${message}\n`);
  }
}

/** The IANA RDAP bootstrap, so /whois follows registry moves without a release. */
async function updateBootstrap(
  baseUrl: string,
  timeoutMs: number,
  dataDir: string,
  out: Output,
  width: number,
): Promise<boolean> {
  const name = 'rdap-bootstrap'.padEnd(width);
  try {
    const urls = { ipv4: `${baseUrl}ipv4.json`, ipv6: `${baseUrl}ipv6.json` };
    out.write(`${name}  fetching ${urls.ipv4} and ipv6.json\n`);
    const table = await refreshBootstrap({ fetch, urls, timeoutMs });
    mkdirSync(dataDir, { recursive: true });
    writeBootstrapFile(join(dataDir, BOOTSTRAP_FILE), table);
    out.write(`${name}  ok      ${table.entries.length} prefixes\n`);
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    out.write(`${name}  FAILED  ${message} (previous file kept)\n`);
    return false;
  }
}
