// The composition root of the service's objects: every lookup, route, store
// and holder is made and wired here, shared by src/main.ts (the process's
// entry), the CLI and the tests. Data loading (slow, once) is apart from app
// building (cheap, per server), so a test suite can build many apps on one
// copy of the data.
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { buildApp, type App, type RawInput } from './app.js';
import { MemoryCacheStore, type CacheStore } from './cache/cache-store.js';
import { LookupCache } from './cache/lookup-cache.js';
import type { Config } from './config.js';
import { PROJECT_ROOT } from './kit/project-root.js';
import { silentAccessLog, type AccessLog } from './http/access-log.js';
import { buildOpenApi, type OpenApiAuth } from './api/openapi.js';
import type { Attribution } from './web/html.js';
import { MemoryRateLimitStore } from './ratelimit/memory-rate-limit-store.js';
import type { RateLimitStore } from './ratelimit/rate-limit-store.js';
import type { AnyRoute, RequestContext } from './http/route.js';
import { createGeoIpLookup } from './lookups/geoip/geoip.js';
import {
  dataDate,
  loadConfiguredGeoData,
  loadGeoData,
  updateSignature,
  type DataSetInfo,
  type GeoData,
} from './lookups/geoip/load.js';
import { statusReader } from './lookups/geoip/update/update-status.js';
import { batchHandlers } from './routes/batch-routes.js';
import { compatHandlers } from './routes/compat-routes.js';
import { cidrHandlers } from './routes/cidr-routes.js';
import { geoipHandlers } from './routes/geoip-routes.js';
import { opsHandlers } from './routes/ops-routes.js';
import { AppError } from './kit/errors.js';
import { createMetrics, type Metrics, type UpstreamKind } from './observe/metrics.js';
import { createDnsClient } from './lookups/dns/index.js';
import { createBlacklistChecker } from './lookups/dnsbl/index.js';
import { BOOTSTRAP_FILE, createWhoisClient, readBootstrapFile } from './lookups/rdap/index.js';
import type { DetectionIndexHolder } from './lookups/vpn/index.js';
import { openDetection } from './lookups/vpn/open-detection.js';
import { exportHandlers } from './routes/export-routes.js';
import { GeofeedHolder, openGeofeeds } from './lookups/geofeed/geofeed-holder.js';
import { fullCollection } from './observe/idle-memory.js';
import { createVpnJson } from './lookups/vpn/record-json.js';
import { networkHandlers, type NetworkLookups } from './routes/network-routes.js';
import { mcpHandlers } from './mcp/mcp-route.js';
import { vpnHandlers } from './routes/vpn-routes.js';
import { rangeHandlers } from './routes/range-routes.js';
import { metricsTable, routeTable } from './routes/route-table.js';
import { AccessControl, MISSING as MISSING_KEY } from './http/access-control.js';
import { ApiKeySource } from './auth/api-key-source.js';
import { OverridesHolder } from './lookups/overrides/overrides-holder.js';
import { provenance, type ProvenanceSources } from './lookups/provenance.js';
import { pageHandlers } from './routes/page-routes.js';
import { pageAssetSet } from './web/page-assets.js';
import { ASSET_PREFIX } from './web/assets.js';

export interface ServiceData {
  /** the operator's corrections (OVERRIDES_FILE), reloaded in place */
  overrides: OverridesHolder;
  /** replaced in place by reloadGeoData, so every holder of this object sees the new data */
  geo: GeoData;
  vpn: DetectionIndexHolder;
  /** the compiled RFC 8805 geofeeds of DATA_DIR/feeds, rebuilt with the feeds and the GeoIP data */
  geofeeds: GeofeedHolder;
  /** the update tables' modification times when the data was loaded (load.ts updateSignature) */
  geoSignature: string;
}

export async function loadServiceData(config: Readonly<Config>, log: Logger): Promise<ServiceData> {
  const geoSignature = updateSignature(config.dataDir);
  // the IPv6 sections are read after the service listens (src/main.ts); the
  // detection index follows the ASN table, whose ranges the vpn-range rule reads;
  // the operator's overrides are read meanwhile
  const overridesLoading = OverridesHolder.open(config.overridesFile, log);
  const geo = await loadConfiguredGeoData(config, log);
  const vpn = await openDetection(config, geo, log);
  const geofeeds = await openGeofeeds(config, geo, log);
  // compiling the relay lists and geofeeds (Apple's: ~250,000 prefixes read
  // twice) leaves tens of MB of garbage in the old generation, which V8 would
  // otherwise keep committed: collected once before the service listens
  // (opened from DATA_DIR/tables, they leave next to none)
  if (geofeeds.built && geofeeds.current.size > 0) fullCollection()();
  const overrides = await overridesLoading;
  for (const problem of vpn.current().problems) log.warn({ problem }, 'feed file skipped');
  for (const problem of geofeeds.problems)
    log.warn({ problem }, 'geofeed file or cloud region skipped');
  return { geo, vpn, geofeeds, overrides, geoSignature };
}

/**
 * Re-reads the GeoIP and ASN files (GEOIP_DB/ASN_DB swapped on disk, or a new
 * embedded data drop) and swaps them in at once: a request sees the old data
 * or the new, never a mix. Tables whose file holds the same manifest as the
 * ones in memory (update or installation tables) are kept, not read again.
 * On failure the old data stays and the error is thrown. Says whether the ASN
 * table changed: what is built from it (the detection index) is then stale.
 */
export async function reloadGeoData(
  config: Readonly<Config>,
  data: ServiceData,
  log: Logger,
): Promise<{ asnChanged: boolean }> {
  // taken first: a file renamed in while this load runs is seen by the next check
  data.geoSignature = updateSignature(config.dataDir);
  const fresh = await loadGeoData(
    {
      geoipDb: config.geoipDb,
      asnDb: config.asnDb,
      geolite2CityDb: config.geolite2CityDb,
      dataDir: config.dataDir,
      current: data.geo.tables,
    },
    log,
  );
  const asnChanged = fresh.tables.asn !== data.geo.tables.asn;
  // one assignment each: a request reads the tables once, old or new
  data.geo.tables = fresh.tables;
  data.geo.dataSets = fresh.dataSets;
  return { asnChanged };
}

/** The network clients, built from the configuration (DNS servers, RDAP base, whois server). */
export function networkLookups(config: Readonly<Config>): NetworkLookups {
  const dns = createDnsClient({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs });
  const bootstrap = readBootstrapFile(join(config.dataDir, BOOTSTRAP_FILE));
  return {
    dns,
    blacklist: createBlacklistChecker({
      query: dns.query,
      zones: config.dnsblZones,
      timeoutMs: config.dnsTimeoutMs,
    }),
    whois: createWhoisClient({
      // a bootstrap refreshed by `npm run update-data`, else the shipped snapshot
      ...(bootstrap === null ? {} : { bootstrap }),
      rdapBaseUrl: config.rdapBaseUrl,
      rdapTimeoutMs: config.rdapTimeoutMs,
      whoisServer: config.whoisServer,
      whoisTimeoutMs: config.whoisTimeoutMs,
    }),
  };
}

/** Times every upstream lookup and counts its failures, by kind. */
function instrumented(lookups: NetworkLookups, metrics: Metrics): NetworkLookups {
  async function timed<T>(
    kind: UpstreamKind | ((result: T) => UpstreamKind),
    run: () => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const fixedKind = typeof kind === 'string' ? kind : 'rdap';
    try {
      const result = await run();
      const k = typeof kind === 'string' ? kind : kind(result);
      metrics.upstream(k, (performance.now() - started) / 1000, 'ok');
      return result;
    } catch (error) {
      const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
      // answers such as NXDOMAIN or "no registry record" are not upstream failures
      if (code === 'UPSTREAM_TIMEOUT' || code === 'UPSTREAM_ERROR') {
        const outcome = code === 'UPSTREAM_TIMEOUT' ? 'timeout' : 'error';
        metrics.upstream(fixedKind, (performance.now() - started) / 1000, outcome);
      }
      throw error;
    }
  }
  return {
    dns: {
      ...lookups.dns,
      lookupDns: (domain, type) => timed('dns', () => lookups.dns.lookupDns(domain, type)),
      lookupReverse: (ip) => timed('dns', () => lookups.dns.lookupReverse(ip)),
    },
    blacklist: {
      checkBlacklist: (ip) => timed('dnsbl', () => lookups.blacklist.checkBlacklist(ip)),
    },
    whois: {
      // the record says which protocol answered; a failure counts against RDAP, tried first
      lookupWhois: (ip) =>
        timed(
          (record) => record.source,
          () => lookups.whois.lookupWhois(ip),
        ),
    },
  };
}

/**
 * The attributions the data sets of these kinds ask for (one per distinct
 * one) and the X-Data-Attribution header of answers made from them (null when
 * none asks); rebuilt only when a reload changes the data sets.
 */
function attributionOf(
  geo: GeoData,
  kinds: readonly DataSetInfo['kind'][],
): {
  list: () => readonly Attribution[];
  headers: () => Readonly<Record<string, string>> | null;
} {
  let of: readonly DataSetInfo[] | null = null;
  let list: readonly Attribution[] = [];
  let headers: Readonly<Record<string, string>> | null = null;
  const refresh = (): void => {
    if (of === geo.dataSets) return;
    of = geo.dataSets;
    const byLine = new Map<string, Attribution>();
    for (const d of of) {
      if (!kinds.includes(d.kind)) continue;
      // a reconciled location table: every source it was made from asks its own
      const credits = [{ attribution: d.attribution, licence: d.licence }, ...d.locationSources];
      for (const { attribution, licence } of credits) {
        if (attribution === null) continue;
        const a = { text: attribution.text, url: attribution.url, licence };
        byLine.set(`${a.text} <${a.url}> (${a.licence})`, a);
      }
    }
    list = [...byLine.values()];
    headers = byLine.size === 0 ? null : { 'x-data-attribution': [...byLine.keys()].join(', ') };
  };
  return {
    list: () => (refresh(), list),
    headers: () => (refresh(), headers),
  };
}

export interface ServiceOverrides {
  metrics?: Metrics;
  dependencies?: () => Readonly<Record<string, string>>;
  network?: NetworkLookups;
  now?: () => number;
  accessLog?: AccessLog;
  cacheStore?: CacheStore;
  rateLimitStore?: RateLimitStore;
  isReady?: () => boolean;
  /** the API keys (src/main.ts reloads them); default: API_KEYS_FILE read now, if set */
  apiKeys?: ApiKeySource | null;
}

/** What guards the routes, as the OpenAPI document says it. */
function openApiAuth(config: Readonly<Config>): OpenApiAuth {
  return {
    apiKeys: config.apiKeysFile === null ? 'off' : config.apiKeysRequired ? 'required' : 'optional',
    metricsToken: config.metricsToken !== null,
  };
}

/** API_KEYS_FILE (its keys read now, or the source given) and METRICS_TOKEN; undefined: neither set. */
export function accessControl(
  config: Readonly<Config>,
  apiKeys?: ApiKeySource | null,
): AccessControl | undefined {
  const source =
    apiKeys !== undefined
      ? apiKeys
      : config.apiKeysFile === null
        ? null
        : ApiKeySource.open(config.apiKeysFile, config.rateLimitMax);
  if (source === null && config.metricsToken === null) return undefined;
  return new AccessControl({
    keys: source === null ? null : () => source.current(),
    required: config.apiKeysRequired,
    metricsToken: config.metricsToken,
  });
}

export const VERSION = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

export function buildService(
  config: Readonly<Config>,
  data: ServiceData,
  log: Logger,
  overrides: ServiceOverrides = {},
): App {
  const now = overrides.now ?? Date.now;
  const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
  const vpnJson = createVpnJson(geoip, data.vpn);
  // DB-IP's CC BY 4.0 asks for a visible link wherever its data answers: the
  // GeoIP record (location and network) and the VPN record (its network)
  const geoipAttribution = attributionOf(data.geo, ['geoip', 'asn']);
  const vpnAttribution = attributionOf(data.geo, ['asn']);
  // X-Data-Version and ETag: the versions of the data each kind of answer is made from
  const sources: ProvenanceSources = {
    dataSets: () => data.geo.dataSets,
    feeds: () => data.vpn.current().feeds,
    geofeeds: () => data.geofeeds.current.feeds,
    overridesVersion: () => data.overrides.status.version,
  };
  const geoipProvenance = provenance(
    ['geoip', 'asn', 'geofeeds', 'overrides'],
    sources,
    geoipAttribution.headers,
  );
  const vpnProvenance = provenance(['asn', 'feeds', 'overrides'], sources, vpnAttribution.headers);
  const batchProvenance = provenance(
    ['geoip', 'asn', 'feeds', 'geofeeds', 'overrides'],
    sources,
    geoipAttribution.headers,
  );
  const metrics = overrides.metrics ?? createMetrics(now);
  metrics.dependencies(overrides.dependencies ?? (() => ({})));
  metrics.workers(config.workers);
  metrics.dataSetAges(() => [
    ...data.geo.dataSets.map((d) => ({ name: d.name, kind: d.kind, at: dataDate(d) })),
    ...data.vpn.current().feeds.map((f) => ({
      name: f.feed,
      kind: `feed:${f.kind}`,
      at: Date.parse(f.fetchedAt),
    })),
  ]);
  const updateStatus = statusReader(config.dataDir);
  metrics.dataUpdates(() => {
    const status = updateStatus();
    return (['geoip', 'asn', 'geolite2-city', 'ipinfo-lite', 'ip2location-db11'] as const).flatMap(
      (kind) => {
        const s = status[kind];
        return s === undefined
          ? []
          : [
              {
                kind,
                outcome: s.outcome,
                checkedAt: Date.parse(s.checkedAt),
                succeededAt: s.succeededAt === null ? null : Date.parse(s.succeededAt),
              },
            ];
      },
    );
  });
  const routes: AnyRoute[] = [];
  // the MCP tools run the other routes through App.call, which exists only
  // once buildApp has returned: the route gets a late-bound reference
  let app: App | null = null;
  let openApi: string | null = null;
  const callRoute = (path: string, raw: RawInput, ctx: RequestContext): Promise<unknown> => {
    if (app === null) throw new Error('a route ran another before the app was built');
    return app.call(path, raw, ctx);
  };
  routes.push(
    ...routeTable({
      ops: opsHandlers({
        version: VERSION,
        dataSets: () => data.geo.dataSets,
        maxAgeDays: config.dataUpdate.maxAgeDays,
        now,
        isReady: overrides.isReady ?? (() => true),
        openApi: () =>
          (openApi ??= JSON.stringify(
            buildOpenApi(routes, {
              title: 'ipintel',
              version: VERSION,
              description:
                'Self-hostable IP intelligence: GeoIP, VPN/hosting detection, RDAP/whois, DNS, DNSBL and CIDR. Success bodies are {"data": …}; errors are {"error": {"code", "message"}}.',
              auth: openApiAuth(config),
            }),
          )),
        metrics,
        dependencies: overrides.dependencies ?? (() => ({})),
        feeds: () => data.vpn.current().feeds,
        geofeeds: () => data.geofeeds.current.feeds,
        overrides: () => data.overrides.status,
        // the API's endpoints: the page's files (renamed by every release) are not
        endpoints: () =>
          routes
            .filter((r) => !r.path.startsWith(ASSET_PREFIX))
            .map((r) => ({ method: r.method, path: r.path, summary: r.summary })),
      }),
      page: pageHandlers({
        assets: pageAssetSet,
        lookup: callRoute,
        attribution: { geoip: geoipAttribution.list, vpn: vpnAttribution.list },
      }),
      geoip: geoipHandlers(geoip, geoipProvenance.headers, geoipProvenance.callerHeaders),
      vpn: vpnHandlers(vpnJson, vpnProvenance.headers),
      network: networkHandlers(instrumented(overrides.network ?? networkLookups(config), metrics)),
      cidr: cidrHandlers(),
      export: exportHandlers({ dir: config.exportDir }),
      batch: batchHandlers({
        geoip,
        vpnJson,
        maxItems: config.batchMaxItems,
        attribution: batchProvenance.untagged,
      }),
      ranges: rangeHandlers({
        sources: { geoip, vpn: vpnJson, feeds: () => data.vpn.current() },
        headers: batchProvenance.headers,
      }),
      compat: compatHandlers({
        geoip,
        vpnJson,
        maxItems: config.batchMaxItems,
        headers: batchProvenance.headers,
        callerHeaders: batchProvenance.callerHeaders,
        untagged: batchProvenance.untagged,
        missingKeyMessage: MISSING_KEY,
      }),
      mcp: mcpHandlers({
        version: VERSION,
        log,
        call: callRoute,
      }),
    }),
  );
  // METRICS_PORT: /metrics is served by a listener of its own (buildMetricsApp), not here
  // (every operator route: findIndex's -1 would have spliced away the table's last route)
  if (config.metricsPort !== null) {
    for (let i = routes.length - 1; i >= 0; i--)
      if (routes[i]!.operator === true) routes.splice(i, 1);
  }
  app = buildApp(config, {
    log,
    accessLog: overrides.accessLog ?? silentAccessLog,
    metrics,
    now,
    cache: new LookupCache(
      overrides.cacheStore ??
        new MemoryCacheStore(config.cacheMaxEntries, now, config.cacheMaxBytes),
      now,
    ),
    rateLimitStore: overrides.rateLimitStore ?? new MemoryRateLimitStore(now),
    routes,
    ...optional('access', accessControl(config, overrides.apiKeys)),
  });
  return app;
}

/**
 * METRICS_PORT: the listener of /metrics alone (anything else is 404), not
 * counted by the rate limit; METRICS_TOKEN still guards it when set.
 */
export function buildMetricsApp(
  config: Readonly<Config>,
  metrics: Metrics,
  log: Logger,
  accessLog: AccessLog = silentAccessLog,
): App {
  const ops = opsHandlers({
    version: VERSION,
    dataSets: () => [],
    maxAgeDays: config.dataUpdate.maxAgeDays,
    now: Date.now,
    isReady: () => true,
    openApi: () => '{}',
    endpoints: () => [],
    metrics,
    dependencies: () => ({}),
  });
  return buildApp(config, {
    log,
    accessLog,
    metrics,
    now: Date.now,
    cache: new LookupCache(new MemoryCacheStore(0, Date.now, 0), Date.now),
    rateLimitStore: new MemoryRateLimitStore(),
    routes: metricsTable(ops, exportHandlers({ dir: config.exportDir })),
    ...optional('access', accessControl({ ...config, apiKeysFile: null }, null)),
  });
}

/** `{ [name]: value }`, or `{}` for undefined (exactOptionalPropertyTypes). */
function optional<K extends string, V>(name: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [name]: value } as { [P in K]?: V });
}
