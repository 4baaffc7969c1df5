// The update path for the GeoIP and ASN data sets: for each kind, fetch the
// configured source's release (skipped when its checksum says nothing
// changed), verify, compile in a worker thread with the sanity checks, and
// rename the tables into DATA_DIR/tables/<kind>.update.tables, which the
// service prefers over the embedded data (src/lookups/geoip/load.ts). Any
// failure leaves the previous tables in place; the outcome of every run is
// kept in DATA_DIR/tables/update-status.json for /metrics.
import { performance } from 'node:perf_hooks';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DownloadLimits, FetchLike } from '../../vpn/feeds/feed-download.js';
import type { CompiledSet, DataSetKind, Manifest } from '../compiled-set.js';
import { readTableManifest } from '../../../data/table-file.js';
import { partialName } from '../../../kit/atomic-file.js';
import { compileInWorker } from './compile-in-worker.js';
import { fetchRelease, type ReleaseFetch } from './fetch-release.js';
import { withFileUrls } from './file-fetch.js';
import { DEFAULT_MIN_RATIO, baselineOf } from './sanity.js';
import type { SourceSettings } from './source-settings.js';
import { releasesFor, type Artifact, type Release } from './sources.js';
import { recordOutcome, type UpdatedSet, type UpdateOutcome } from './update-status.js';
import { updateTablesPath, type OptInFiles } from './paths.js';
import { dropReplacedSources, keepSources } from './dbip-sources.js';
import { isDbipRelease, keptDbipRelease, type DbipRelease } from '../compile/newest-dbip.js';

export type GeoProgress =
  | { kind: UpdatedSet; phase: 'check'; source: string }
  | { kind: UpdatedSet; phase: 'download'; file: string; url: string }
  | { kind: UpdatedSet; phase: 'bytes'; bytes: number; total: number | null }
  | { kind: UpdatedSet; phase: 'compile' }
  | {
      kind: UpdatedSet;
      phase: 'done';
      outcome: 'updated' | 'unchanged';
      name: string;
      seconds: number;
    }
  | { kind: UpdatedSet; phase: 'failed'; error: string; seconds: number };

export interface GeoUpdateOptions {
  dataDir: string;
  settings: SourceSettings;
  kinds: readonly DataSetKind[];
  /** the data answering now: the sanity checks compare the new data with it */
  current: (kind: DataSetKind) => CompiledSet | null;
  fetch?: FetchLike;
  timeoutMs: number;
  maxBytes: number;
  now?: () => Date;
  /** the new data must have at least this share of the current data's ranges (default 0.5) */
  minRatio?: number;
  onProgress?: (event: GeoProgress) => void;
  /**
   * The opt-in sources the service reconciles DB-IP with (GeoLite2 City,
   * IPinfo Lite, IP2Location LITE DB11; load.ts optInInUse): a new DB-IP
   * release is compiled with them too, before it is renamed into place
   */
  optIn?: OptInFiles | null;
}

export interface GeoUpdateResult {
  kind: DataSetKind;
  outcome: UpdateOutcome;
  error: string | null;
  manifest: Manifest | null;
}

/** Kinds run one after the other: memory stays at one compile. */
export async function updateGeoData(options: GeoUpdateOptions): Promise<GeoUpdateResult[]> {
  const results: GeoUpdateResult[] = [];
  for (const kind of options.kinds) {
    const result = await updateKind(kind, options);
    results.push(result);
    await recordOutcome(options.dataDir, result, (options.now ?? (() => new Date()))());
  }
  return results;
}

async function updateKind(kind: DataSetKind, options: GeoUpdateOptions): Promise<GeoUpdateResult> {
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  const progress = options.onProgress ?? (() => undefined);
  const tablesDir = join(options.dataDir, 'tables');
  const target = updateTablesPath(options.dataDir, kind);
  let workDir: string | null = null;
  let output: string | null = null;
  let previous: Manifest | null = null;
  try {
    const now = (options.now ?? (() => new Date()))();
    const releases = releasesFor(kind, options.settings, now);
    progress({ kind, phase: 'check', source: options.settings.source });
    workDir = await workFolder(tablesDir, kind);
    previous = readTableManifest<Manifest>(target);
    // a DB-IP release whose files were not kept (an earlier version fetched it) is fetched again
    const comparable =
      previous !== null && isDbipRelease(previous) && keptDbipRelease(options.dataDir) === null
        ? null
        : previous;
    const { release, fetched } = await firstAvailable(releases, kind, workDir, comparable, options);
    if (fetched.status === 'unchanged') {
      progress({
        kind,
        phase: 'done',
        outcome: 'unchanged',
        name: release.name,
        seconds: seconds(),
      });
      return { kind, outcome: 'unchanged', error: null, manifest: previous };
    }
    progress({ kind, phase: 'compile' });
    const current = options.current(kind);
    output = partialName(join(tablesDir, `.${kind}.tables`));
    const manifest = await compileInWorker({
      kind,
      layout: release.layout,
      files: fetched.files,
      name: release.name,
      version: release.version,
      licence: release.licence,
      attribution: release.attribution,
      update: {
        publisher: release.publisher,
        fetchedAt: now.toISOString(),
        artifacts: fetched.artifacts,
      },
      output,
      baseline: current === null ? null : baselineOf(current),
      minRatio: options.minRatio ?? DEFAULT_MIN_RATIO,
    });
    if (isDbipRelease(manifest)) {
      await withOptIn(options, {
        files: await keepSources(options.dataDir, fetched.files, manifest),
        manifest,
      });
    }
    await rename(output, target);
    progress({ kind, phase: 'done', outcome: 'updated', name: release.name, seconds: seconds() });
    return { kind, outcome: 'updated', error: null, manifest };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress({ kind, phase: 'failed', error: message, seconds: seconds() });
    return { kind, outcome: 'failed', error: message, manifest: null };
  } finally {
    if (workDir !== null)
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    if (output !== null) await rm(output, { force: true }).catch(() => undefined);
    if (kind === 'geoip')
      await dropReplacedSources(options.dataDir, previous).catch(() => undefined);
  }
}

/**
 * A new DB-IP release reconciled with the opt-in sources in use, compiled in
 * a worker into DATA_DIR/tables before the release is renamed into place: a
 * serving process swaps the table in without compiling, and a failure keeps
 * the old release.
 */
async function withOptIn(options: GeoUpdateOptions, release: DbipRelease): Promise<void> {
  if (options.optIn == null) return;
  await compileInWorker({
    reconcile: {
      geoipDb: null,
      optIn: options.optIn,
      dataDir: options.dataDir,
      cacheDir: join(options.dataDir, 'tables'),
      dbip: release,
    },
  });
}

/** An empty folder for a download in DATA_DIR/tables (so a rename into place stays on one file system). */
export async function workFolder(tablesDir: string, name: UpdatedSet): Promise<string> {
  try {
    await mkdir(tablesDir, { recursive: true });
    const dir = partialName(join(tablesDir, `.work-${name}`));
    await mkdir(dir);
    return dir;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`${tablesDir} cannot be written (${code})`, { cause: error });
  }
}

/** The download's bounds (file:// URLs read too), its bytes reported as progress. */
export function downloadLimits(
  kind: UpdatedSet,
  options: Pick<GeoUpdateOptions, 'fetch' | 'timeoutMs' | 'maxBytes' | 'onProgress'>,
): DownloadLimits {
  return {
    fetch: withFileUrls(options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init))),
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    onBytes: (bytes: number, total: number | null) =>
      options.onProgress?.({ kind, phase: 'bytes', bytes, total }),
  };
}

/** The first release that exists: a 404 moves on to the next (DB-IP's previous month). */
async function firstAvailable(
  releases: Release[],
  kind: DataSetKind,
  workDir: string,
  previous: Manifest | null,
  options: GeoUpdateOptions,
): Promise<{ release: Release; fetched: ReleaseFetch }> {
  const limits = downloadLimits(kind, options);
  for (const [i, release] of releases.entries()) {
    try {
      const fetched = await fetchRelease(release, {
        limits,
        previous: previous?.source.update?.artifacts ?? [],
        workDir,
        onArtifact: (a: Artifact) =>
          options.onProgress?.({ kind, phase: 'download', file: a.name, url: a.url }),
      });
      return { release, fetched };
    } catch (error) {
      const missing = /: HTTP 404$/.test((error as Error).message);
      if (!missing || i === releases.length - 1) throw error;
    }
  }
  throw new Error('no release to fetch');
}
