// Operations and discovery: GET / (what this service is, its data and their
// licences: DB-IP's CC BY 4.0 requires a visible link), /healthz, /readyz and
// /openapi.json.
import { basename } from 'node:path';
import { z } from 'zod';
import { healthSchema, readinessSchema, serviceInfoSchema } from '../api/schemas.js';
import { AppError } from '../kit/errors.js';
import { JSON_TYPE } from '../http/exchange.js';
import { defineHandler } from '../http/route.js';
import { dataDate, type DataSetInfo } from '../lookups/geoip/load.js';
import type { Metrics } from '../observe/metrics.js';
import { overrideWarnings, type OverridesStatus } from '../lookups/overrides/overrides-holder.js';
import type { GeofeedInfo } from '../lookups/geofeed/geofeed-index.js';
import { CLOUD_PROVIDER_NAMES } from '../lookups/geofeed/cloud-regions.js';
import { locationSourceAgeLimit } from '../lookups/geoip/source-age.js';

const DAY_MS = 86_400_000;

/** Whole days from the time `at` (ms; NaN: unknown, 0 days) to `now`. */
function daysSince(at: number, now: number): number {
  return Number.isNaN(at) ? 0 : Math.max(0, Math.floor((now - at) / DAY_MS));
}

/** Days since the publisher's date when it is one, else since the fetch. */
function feedAgeDays(f: GeofeedInfo, now: number): number {
  const published = f.publishedAt === null ? NaN : Date.parse(f.publishedAt);
  return daysSince(Number.isNaN(published) ? Date.parse(f.fetchedAt) : published, now);
}

/** Days since the fetch: how old the copy is (a network's own date may be old for a layout it kept). */
function fetchAgeDays(f: GeofeedInfo, now: number): number {
  return daysSince(Date.parse(f.fetchedAt), now);
}

/** At most this many feeds named in the one warning about stale geofeeds and cloud range files. */
const NAMED_STALE_FEEDS = 3;

/**
 * The geofeeds, relay lists and cloud range files fetched more than
 * `maxAgeDays` ago, in one warning (a DATA_DIR nobody updates would
 * otherwise list every feed), each named as X-Location-Source names it.
 */
function placeFeedWarnings(
  feeds: readonly GeofeedInfo[],
  maxAgeDays: number,
  now: number,
): string[] {
  const stale = feeds
    .map((f) => ({ f, age: fetchAgeDays(f, now) }))
    .filter(({ age }) => age > maxAgeDays)
    .sort((a, b) => b.age - a.age);
  if (stale.length === 0) return [];
  const advice = 'run `npm run update-data` or set FEED_UPDATE_INTERVAL_HOURS';
  const ids = stale.map(
    ({ f }) => `"${f.kind === 'cloud-region' ? 'cloud-region' : 'geofeed'}=${f.feed}"`,
  );
  const oldest = stale[0]!.age;
  if (ids.length === 1) {
    return [
      `location source ${ids[0]} was fetched ${oldest} days ago (more than ${maxAgeDays}): ${advice}`,
    ];
  }
  const named = ids.slice(0, NAMED_STALE_FEEDS).join(', ');
  const more = ids.length > NAMED_STALE_FEEDS ? ` and ${ids.length - NAMED_STALE_FEEDS} more` : '';
  return [
    `location sources ${named}${more} were fetched up to ${oldest} days ago (more than ${maxAgeDays}): ${advice}`,
  ];
}

export interface OpsOptions {
  version: string;
  /** read per request: a data reload changes them */
  dataSets: () => readonly DataSetInfo[];
  /** /readyz warns (without failing) about a data set older than this */
  maxAgeDays: number;
  now: () => number;
  isReady: () => boolean;
  /** built lazily: it needs the whole route table, this list included */
  openApi: () => string;
  endpoints: () => { method: string; path: string; summary: string }[];
  metrics: Metrics;
  /** external dependencies and their state, e.g. { redis: 'down' }: reported, not fatal */
  dependencies: () => Readonly<Record<string, string>>;
  /** the VPN/hosting/Tor feeds in use, read per request (an update swaps them) */
  feeds?: () => readonly FeedInUse[];
  /** the operator's overrides file: what answers now, and a refusal of the file on disk */
  overrides?: () => Readonly<OverridesStatus>;
  /** the RFC 8805 geofeeds answering locations, read per request */
  geofeeds?: () => readonly GeofeedInfo[];
}

/** One loaded feed as GET / shows it. */
export interface FeedInUse {
  feed: string;
  kind: string;
  fetchedAt: string;
  /** the publisher's time, ISO 8601 UTC; or its serial when it publishes no date */
  publishedAt: string | null;
  prefixes: number;
  skippedRows: number;
}

export function opsHandlers(options: OpsOptions) {
  const ageDays = (d: DataSetInfo) => daysSince(dataDate(d), options.now());
  // where each data set came from and how old it is: an answer is only as good as its data
  const dataSources = () =>
    options.dataSets().map((d) => ({
      name: d.name,
      kind: d.kind,
      source: d.source,
      publisher: d.publisher,
      version: d.version,
      builtAt: d.builtAt,
      fetchedAt: d.fetchedAt,
      ageDays: ageDays(d),
      licence: d.licence,
      attribution: d.attribution,
    }));
  // every source the location answers are reconciled from, with its own version, age and licence
  const locationSources = () => [
    ...options
      .dataSets()
      .filter((d) => d.kind === 'geoip')
      .flatMap((d) =>
        d.locationSources.map((s) => ({
          id: s.id,
          name: s.name,
          kind: s.kind,
          version: s.version,
          builtAt: s.builtAt,
          ageDays: ageDays({ ...d, version: s.version, builtAt: s.builtAt }),
          licence: s.licence,
          attribution: s.attribution,
        })),
      ),
    ...cloudRegionSources(),
  ];
  // the clouds' range files whose regions place their prefixes (docs/data.md, "Cloud regions")
  const cloudRegionSources = () =>
    (options.geofeeds?.() ?? [])
      .filter((f) => f.kind === 'cloud-region')
      .map((f) => ({
        id: `cloud-region=${f.feed}`,
        name: `${CLOUD_PROVIDER_NAMES[f.feed] ?? f.feed} regions of its published ranges, placed by its documentation`,
        kind: 'cloud-region' as const,
        version: f.publishedAt,
        builtAt: null,
        ageDays: feedAgeDays(f, options.now()),
        licence: 'none stated (public range file)',
        attribution: null,
      }));
  const brief = () =>
    options.dataSets().map((d) => ({
      name: d.name,
      kind: d.kind,
      source: d.source,
      builtAt: d.builtAt,
      fetchedAt: d.fetchedAt,
      ageDays: ageDays(d),
    }));
  // data older than its limit: a warning in GET / and /readyz, never "not ready"
  const ageWarnings = () => [
    ...options
      .dataSets()
      .filter((d) => ageDays(d) > options.maxAgeDays)
      .map(
        (d) =>
          `${d.kind} data "${d.name}" is ${ageDays(d)} days old (more than ${options.maxAgeDays}): run \`npm run update-data\` or set FEED_UPDATE_INTERVAL_HOURS`,
      ),
    ...locationSources().flatMap((s) => {
      const limit = locationSourceAgeLimit(s.id, options.maxAgeDays);
      return limit === null || s.ageDays <= limit.maxAgeDays
        ? []
        : [
            `location source "${s.name}" is ${s.ageDays} days old (more than ${limit.maxAgeDays}): ${limit.advice}`,
          ];
    }),
    ...placeFeedWarnings(options.geofeeds?.() ?? [], options.maxAgeDays, options.now()),
  ];
  const warnings = () => [
    ...ageWarnings(),
    ...(options.overrides === undefined ? [] : overrideWarnings(options.overrides())),
  ];
  const overrides = () => {
    const status = options.overrides?.();
    return status === undefined
      ? null
      : {
          // the name only: a public answer does not show the server's folders
          file: basename(status.file),
          rows: status.rows,
          loadedAt: status.loadedAt,
          version: status.version,
          refusedAt: status.refused?.at ?? null,
        };
  };
  return {
    info: defineHandler({
      summary: 'Service information, endpoints and data attribution',
      tags: ['Service'],
      response: serviceInfoSchema,
      errors: [],
      handle: () => ({
        name: 'ipintel',
        version: options.version,
        documentation: '/openapi.json',
        endpoints: options.endpoints(),
        dataSources: dataSources(),
        locationSources: locationSources(),
        warnings: ageWarnings(),
        feeds: (options.feeds?.() ?? []).map((f) => ({
          id: f.feed,
          kind: f.kind,
          fetchedAt: f.fetchedAt,
          publishedAt: f.publishedAt,
          prefixes: f.prefixes,
          skippedRows: f.skippedRows,
        })),
        geofeeds: (options.geofeeds?.() ?? []).map((f) => ({
          id: f.feed,
          kind: f.kind,
          fetchedAt: f.fetchedAt,
          publishedAt: f.publishedAt,
          ageDays: feedAgeDays(f, options.now()),
          prefixes: f.prefixes,
          skippedRows: f.skippedRows,
        })),
        overrides: overrides(),
      }),
    }),
    health: defineHandler({
      summary: 'Liveness: the process answers',
      tags: ['Service'],
      response: healthSchema,
      errors: [],
      handle: () => ({ status: 'ok' as const }),
    }),
    ready: defineHandler({
      summary: 'Readiness: data loaded and dependencies usable',
      tags: ['Service'],
      response: readinessSchema,
      errors: ['SERVICE_UNAVAILABLE'],
      handle: () => {
        if (!options.isReady()) {
          throw new AppError('SERVICE_UNAVAILABLE', 'The service is starting or shutting down.');
        }
        return {
          status: 'ready' as const,
          dataSets: brief(),
          warnings: warnings(),
          dependencies: options.dependencies(),
        };
      },
    }),
    metrics: defineHandler({
      summary: 'Prometheus metrics',
      description:
        'Requests and latency per route and status, cache hits and misses per endpoint, upstream latency and errors per kind, rate-limit rejections and data-set ages, in the Prometheus text format.',
      tags: ['Service'],
      response: z.string(),
      errors: [],
      raw: true,
      handle: async () => ({
        body: await options.metrics.render(),
        contentType: options.metrics.contentType,
      }),
    }),
    openApi: defineHandler({
      summary: 'This API as an OpenAPI 3.1 document',
      tags: ['Service'],
      response: z.record(z.string(), z.unknown()),
      errors: [],
      raw: true,
      handle: () => ({ body: options.openApi(), contentType: JSON_TYPE }),
    }),
  };
}
