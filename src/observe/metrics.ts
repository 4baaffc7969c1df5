// Prometheus metrics (prom-client): requests and latency per route and
// status, cache hits and misses per endpoint, upstream latency and errors per
// kind, rate-limit rejections and the age of every data set. The per-request
// series are counted by src/observe/request-stats.ts and rendered by prom-client.
import type { ExportBuildCounts } from '../kit/export-files.js';
import type { Aggregator, Counter, Gauge, Registry } from 'prom-client';
import {
  FastCounter,
  FastHistogram,
  type CounterSeries,
  type HistogramSeries,
} from './request-stats.js';

export interface DataUpdateSample {
  kind: string;
  outcome: 'updated' | 'unchanged' | 'failed';
  /** epoch ms of the last run, and of the last run that ended with current data */
  checkedAt: number;
  succeededAt: number | null;
}

export type UpstreamKind = 'dns' | 'dnsbl' | 'rdap' | 'whois';

/** What src/http/fast-path.ts counts (its FastPathStats). */
export interface FastPathCounts {
  plainRequests: number;
  handOffReasons: Readonly<Record<string, number>>;
}

export interface Metrics {
  readonly contentType: string;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  cache(namespace: string, hit: boolean): void;
  upstream(kind: UpstreamKind, seconds: number, outcome: 'ok' | 'error' | 'timeout'): void;
  rateLimited(): void;
  /** dependency name → 'up' | 'down', read at scrape time */
  dependencies(read: () => Readonly<Record<string, string>>): void;
  /** WORKERS: the processes serving the port (1 without a cluster) */
  workers(count: number): void;
  /** data set name → when it was built or fetched (epoch ms), read at scrape time */
  dataSetAges(read: () => readonly { name: string; kind: string; at: number | null }[]): void;
  /** the last GeoIP/ASN update per kind (outcome, when it ran), read at scrape time */
  dataUpdates(read: () => readonly DataUpdateSample[]): void;
  /** the fast path's counts (requests it served, connections it handed to node:http and why), read at scrape time */
  fastPath(read: () => FastPathCounts): void;
  /** EXPORT_DIR's builds (src/export/export-keeper.ts), read at scrape time */
  exportBuilds(read: () => ExportBuildCounts): void;
  render(): Promise<string>;
  /** this process's metrics in prom-client's JSON form (for the cluster's sum: cluster-metrics.ts) */
  snapshot(): Promise<unknown[]>;
  /**
   * Loads prom-client and builds the registry now, in the background
   * (otherwise at the first scrape). prom-client takes ~60–90 ms to import:
   * the service calls this shortly after it listens, not before its first
   * answers. Node's default metrics (GC, event-loop delay) count from then.
   */
  prepare(): void;
}

/** Prometheus' text exposition format, as prom-client's Registry writes it */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

type PromClient = typeof import('../later/prom-client.js');

/**
 * `loadPromClient` is prom-client's import (a test makes it fail to see the
 * next scrape try again).
 */
export function createMetrics(
  now: () => number = Date.now,
  loadPromClient: () => Promise<PromClient> = () => import('../later/prom-client.js'),
): Metrics {
  const requests = new FastCounter(
    'ipintel_http_requests_total',
    'HTTP requests by route, method and status',
  );
  const latency = new FastHistogram(
    'ipintel_http_request_duration_seconds',
    'HTTP request latency by route and status',
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const cache = new FastCounter(
    'ipintel_cache_requests_total',
    'Lookup cache hits and misses by endpoint',
  );
  const upstream = new FastHistogram(
    'ipintel_upstream_duration_seconds',
    'Upstream lookups (DNS, DNSBL, RDAP, whois) by kind and outcome',
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const upstreamErrors = new FastCounter(
    'ipintel_upstream_errors_total',
    'Upstream lookups that failed, by kind and outcome (error or timeout)',
  );
  const limited = new FastCounter(
    'ipintel_rate_limited_total',
    'Requests refused by the rate limit',
  );
  // a family without labels has its one series from the start (0 until the first refusal)
  const limitedSeries = limited.series({});
  let readAges: () => readonly { name: string; kind: string; at: number | null }[] = () => [];
  let readUpdates: () => readonly DataUpdateSample[] = () => [];
  let readDependencies: () => Readonly<Record<string, string>> = () => ({});
  let readFastPath: () => FastPathCounts = () => ({ plainRequests: 0, handOffReasons: {} });
  let workerCount = 1;
  let readExports: (() => ExportBuildCounts) | null = null;

  /** The registry: Node's default metrics, the families above and the gauges read at scrape time. */
  async function buildRegistry(): Promise<Registry> {
    const prom = await loadPromClient();
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    for (const family of [requests, latency, cache, upstream, upstreamErrors, limited]) {
      family.register(registry);
    }
    /** A gauge whose samples are read at each scrape (prom-client calls collect() then). */
    /** `aggregator`: how WORKERS' values of it add up into the cluster's (cluster-metrics.ts) */
    function readAtScrape<L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      aggregator: Aggregator,
      read: () => Iterable<readonly [Record<L, string>, number]>,
    ): void {
      const gauge: Gauge<L> = new prom.Gauge({
        name,
        help,
        labelNames,
        aggregator,
        registers: [registry],
        collect() {
          gauge.reset();
          for (const [labels, value] of read()) gauge.set(labels, value);
        },
      });
    }
    readAtScrape(
      'ipintel_data_set_age_seconds',
      'Age of each data set (build or fetch time), by name and kind',
      ['name', 'kind'],
      'max', // the stalest copy any worker holds
      function* () {
        for (const { name, kind, at } of readAges()) {
          if (at !== null) yield [{ name, kind }, Math.max(0, (now() - at) / 1000)];
        }
      },
    );
    readAtScrape(
      'ipintel_data_update_last_outcome',
      'Outcome of the last GeoIP/ASN update per data set kind: 1 for the outcome it had (updated, unchanged, failed), 0 for the others',
      ['kind', 'outcome'],
      'max', // an outcome any worker's last update had
      function* () {
        for (const u of readUpdates()) {
          for (const outcome of ['updated', 'unchanged', 'failed'] as const) {
            yield [{ kind: u.kind, outcome }, u.outcome === outcome ? 1 : 0];
          }
        }
      },
    );
    readAtScrape(
      'ipintel_data_update_timestamp_seconds',
      'When the last GeoIP/ASN update ran (event="checked") and last ended with current data (event="succeeded"), per kind',
      ['kind', 'event'],
      'max', // the latest run of any worker
      function* () {
        for (const u of readUpdates()) {
          yield [{ kind: u.kind, event: 'checked' }, u.checkedAt / 1000];
          if (u.succeededAt !== null)
            yield [{ kind: u.kind, event: 'succeeded' }, u.succeededAt / 1000];
        }
      },
    );
    readAtScrape(
      'ipintel_export_builds',
      'Builds of the EXPORT_DIR export since start, by result: ok (files written), skipped (already current), failed (the old files kept)',
      ['result'],
      'sum',
      function* () {
        const counts = readExports?.();
        if (counts === undefined) return;
        for (const result of ['ok', 'skipped', 'failed'] as const) {
          yield [{ result }, counts[result]];
        }
      },
    );
    readAtScrape(
      'ipintel_export_last_success_timestamp_seconds',
      'When the last EXPORT_DIR build ended with current files',
      [],
      'max',
      function* () {
        const at = readExports?.().lastSuccessAt ?? null;
        if (at !== null) yield [{}, at / 1000];
      },
    );
    readAtScrape(
      'ipintel_dependency_up',
      'Whether each external dependency (Redis) answers: 1 up, 0 down',
      ['name'],
      'min', // up only when every worker reaches it
      function* () {
        for (const [name, state] of Object.entries(readDependencies())) {
          yield [{ name }, state === 'up' ? 1 : 0];
        }
      },
    );
    /** A counter whose value is read at each scrape (a count kept elsewhere, as a plain number). */
    function countedElsewhere<L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[],
      read: () => Iterable<readonly [Record<L, string>, number]>,
    ): void {
      const counter: Counter<L> = new prom.Counter({
        name,
        help,
        labelNames,
        registers: [registry],
        collect() {
          counter.reset();
          for (const [labels, value] of read()) counter.inc(labels, value);
        },
      });
    }
    countedElsewhere(
      'ipintel_fast_path_requests_total',
      'Requests the fast path read and answered without node:http (plain GET and HEAD)',
      [],
      function* () {
        yield [{}, readFastPath().plainRequests];
      },
    );
    countedElsewhere(
      'ipintel_fast_path_handoffs_total',
      "Connections the fast path handed to node:http, by reason: not-plain (a request it does not read), partial (a head not whole when it came), traced (a tracer wraps the server's events)",
      ['reason'],
      function* () {
        for (const [reason, count] of Object.entries(readFastPath().handOffReasons)) {
          yield [{ reason }, count];
        }
      },
    );
    readAtScrape(
      'ipintel_workers',
      'Worker processes configured to serve the port (WORKERS; 1 without a cluster)',
      [],
      'first', // the same setting in every worker
      function* () {
        yield [{}, workerCount];
      },
    );
    return registry;
  }
  let registry: Promise<Registry> | null = null;
  const registryNow = (): Promise<Registry> => {
    registry ??= buildRegistry().catch((error: unknown) => {
      registry = null; // the next scrape tries again
      throw error;
    });
    return registry;
  };

  /** upstream series by kind, then outcome: asked for once, kept */
  const upstreamSeries = new Map<string, { time: HistogramSeries; errors: CounterSeries | null }>();

  type RequestSeries = { count: CounterSeries; time: HistogramSeries };
  type StatusSeries = Map<number, RequestSeries>;
  const requestSeries = new Map<string, Map<string, StatusSeries>>();
  const cacheSeries = new Map<string, { hit: CounterSeries; miss: CounterSeries }>();

  return {
    contentType: PROMETHEUS_CONTENT_TYPE,
    observeRequest(route, method, status, seconds) {
      // nested maps: route and method strings are interned, so no key is built per request
      let byMethod = requestSeries.get(route);
      if (byMethod === undefined)
        requestSeries.set(route, (byMethod = new Map<string, StatusSeries>()));
      let byStatus = byMethod.get(method);
      if (byStatus === undefined)
        byMethod.set(method, (byStatus = new Map<number, RequestSeries>()));
      let series = byStatus.get(status);
      if (series === undefined) {
        const code = String(status);
        series = {
          count: requests.series({ route, method, status: code }),
          time: latency.series({ route, status: code }),
        };
        byStatus.set(status, series);
      }
      series.count.value++;
      series.time.observe(seconds);
    },
    cache(namespace, hit) {
      let pair = cacheSeries.get(namespace);
      if (pair === undefined) {
        pair = {
          hit: cache.series({ endpoint: namespace, result: 'hit' }),
          miss: cache.series({ endpoint: namespace, result: 'miss' }),
        };
        cacheSeries.set(namespace, pair);
      }
      (hit ? pair.hit : pair.miss).value++;
    },
    upstream(kind, seconds, outcome) {
      const key = `${kind} ${outcome}`;
      let series = upstreamSeries.get(key);
      if (series === undefined) {
        series = {
          time: upstream.series({ kind, outcome }),
          errors: outcome === 'ok' ? null : upstreamErrors.series({ kind, outcome }),
        };
        upstreamSeries.set(key, series);
      }
      series.time.observe(seconds);
      if (series.errors !== null) series.errors.value++;
    },
    rateLimited() {
      limitedSeries.value++;
    },
    dependencies(read) {
      readDependencies = read;
    },
    workers(count) {
      workerCount = count;
    },
    dataSetAges(read) {
      readAges = read;
    },
    dataUpdates(read) {
      readUpdates = read;
    },
    fastPath(read) {
      readFastPath = read;
    },
    exportBuilds(read) {
      readExports = read;
    },
    render: async () => (await registryNow()).metrics(),
    snapshot: async () => (await registryNow()).getMetricsAsJSON(),
    prepare() {
      registryNow().catch(() => undefined);
    },
  };
}

/** The cluster's metrics from every worker's snapshot, summed by prom-client (in the primary). */
export async function aggregateMetrics(
  parts: readonly (readonly unknown[])[],
  loadPromClient: () => Promise<PromClient> = () => import('../later/prom-client.js'),
): Promise<string> {
  const prom = await loadPromClient();
  type Parts = Parameters<typeof prom.AggregatorRegistry.aggregate>[0];
  return prom.AggregatorRegistry.aggregate(parts as unknown as Parts).metrics();
}
