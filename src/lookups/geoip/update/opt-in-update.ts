// One opt-in location source fetched with the operator's own credentials
// (GeoLite2 City with the MaxMind key: geolite2-update.ts; IPinfo Lite with
// IPINFO_TOKEN: ipinfo-lite-update.ts), the same steps for each: the file
// fetched into a work folder in DATA_DIR/tables (a published checksum or the
// server's validators first: an unchanged file is not downloaded again;
// time and size bounds), checked by the source's own test and against the
// copy it replaces (a half-published file still opens, far smaller), the
// location table reconciled with it compiled in a worker thread into
// DATA_DIR/tables (where the GeoIP load finds it compiled, as it would have
// compiled it itself), then renamed into DATA_DIR, where that load finds it
// and the reloader sees it change. Any failure leaves the previous copy;
// every outcome is recorded in update-status.json for /metrics. Credentials
// travel in request headers or the URL's query and are in no message, no
// progress line and no record (an artifact's `shownUrl`).
import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Reader } from 'maxmind';
import type { FetchedArtifact } from '../compiled-set.js';
import { DataError, mmdbReader } from '../compile/compile-sources.js';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import { compileInWorker } from './compile-in-worker.js';
import { dropTablesOf } from './dbip-sources.js';
import { fetchRelease } from './fetch-release.js';
import { downloadLimits, workFolder, type GeoUpdateOptions } from './geo-updater.js';
import { optInFiles, type OptInFiles } from './paths.js';
import { DEFAULT_MIN_RATIO } from './sanity.js';
import type { Release } from './sources.js';
import { recordOutcome, type UpdateOutcome, type UpdatedSet } from './update-status.js';

/** GeoUpdateOptions but the kinds and the current tables; `minRatio` applies to the search-tree nodes */
export type OptInUpdateOptions = Omit<GeoUpdateOptions, 'kinds' | 'current' | 'settings'> & {
  /** GEOIP_DB (null: the embedded DB-IP), which the location table reconciles with the source */
  geoipDb: string | null;
  /** GEOLITE2_CITY_DB (null: the fetched copy, if any), for the table compiled with IPinfo Lite */
  geolite2CityDb?: string | null;
};

export interface OptInUpdateResult {
  kind: UpdatedSet;
  outcome: UpdateOutcome;
  error: string | null;
}

/** What differs between the opt-in sources. */
export interface OptInSource {
  kind: UpdatedSet;
  /** what the progress line's "check" names */
  label: string;
  /** the name the progress line's "done" gives, and the files to fetch */
  release: Pick<Release, 'name' | 'artifacts'>;
  /** where the copy in use lives, one file per artifact (DATA_DIR/<name>) */
  targets: string[];
  /**
   * Why the fetched files (one per artifact) may not replace the copies in
   * use (`before`: null when there are none); null when they may
   */
  problemOf(fresh: string[], before: string[] | null, minRatio: number): Promise<string | null>;
  /** the opt-in files with the fresh copy in place of this source's */
  withFresh(inUse: OptInFiles, fresh: string[]): OptInFiles;
  /** a refused credential's hint, after an HTTP 401/403 */
  refused: string;
}

/** What was fetched last time: the artifacts, for the checksum or validator comparison. */
interface FetchRecord {
  fetchedAt: string;
  artifacts: FetchedArtifact[];
}

function recordPath(dataDir: string, kind: UpdatedSet): string {
  return join(dataDir, 'tables', `${kind}.fetch.json`);
}

function readRecord(dataDir: string, kind: UpdatedSet): FetchRecord | null {
  try {
    const doc = JSON.parse(readFileSync(recordPath(dataDir, kind), 'utf8')) as FetchRecord;
    return Array.isArray(doc.artifacts) ? doc : null;
  } catch {
    return null;
  }
}

/** The SHA-256 of each file, null for one that is missing. */
async function hashes(paths: readonly string[]): Promise<(string | null)[]> {
  return Promise.all(
    paths.map((path) =>
      readFile(path).then(
        (data) => createHash('sha256').update(data).digest('hex'),
        () => null,
      ),
    ),
  );
}

/**
 * The check of a single-MMDB source (GeoLite2, IPinfo Lite): it opens, it
 * is the source's own (`own`), and its search tree is not far smaller than
 * the copy's — the node count stands for the number of networks: a file cut
 * short in publishing still opens with far fewer, read from the metadata
 * without walking the tree.
 */
export function mmdbCheck(
  own: (reader: Reader<object>) => string | null,
): OptInSource['problemOf'] {
  return async ([fresh], before, minRatio) => {
    let reader: Reader<object>;
    try {
      reader = await mmdbReader(await readFile(fresh!));
    } catch {
      return 'the downloaded file is not a readable MMDB file';
    }
    const problem = own(reader);
    if (problem !== null) return problem;
    const nodes = before === null ? null : await nodeCount(before[0]!);
    const { nodeCount: now } = reader.metadata;
    if (nodes !== null && now < nodes * minRatio) {
      return `the new file has ${now} search-tree nodes, far fewer than the ${nodes} of the current copy (at least ${Math.ceil(nodes * minRatio)} expected)`;
    }
    return null;
  };
}

/** The search-tree size of the copy in place, null when it does not open. */
async function nodeCount(path: string): Promise<number | null> {
  try {
    return (await mmdbReader(await readFile(path))).metadata.nodeCount;
  } catch {
    return null;
  }
}

/**
 * The last fetch's artifacts, when a copy is in place: without one the last
 * fetch says nothing. A file with neither a checksum nor validators is
 * fetched again (its name never changes), then compared with the copy.
 */
async function previousArtifacts(source: OptInSource, dataDir: string): Promise<FetchedArtifact[]> {
  const inPlace = (
    await Promise.all(
      source.targets.map((target) =>
        stat(target).then(
          (st) => st.isFile(),
          () => false,
        ),
      ),
    )
  ).every(Boolean);
  const record = inPlace ? readRecord(dataDir, source.kind) : null;
  const withChecksum = source.release.artifacts.every((a) => a.checksumUrl !== null);
  return (record?.artifacts ?? []).filter(
    (a) => withChecksum || a.etag !== null || a.lastModified !== null,
  );
}

export async function updateOptIn(
  source: OptInSource,
  options: OptInUpdateOptions,
): Promise<OptInUpdateResult> {
  const { kind, release, targets } = source;
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  const progress = options.onProgress ?? (() => undefined);
  const now = (options.now ?? (() => new Date()))();
  const tablesDir = join(options.dataDir, 'tables');
  let workDir: string | null = null;
  let result: OptInUpdateResult;
  try {
    progress({ kind, phase: 'check', source: source.label });
    workDir = await workFolder(tablesDir, kind);
    const fetched = await fetchRelease(release, {
      limits: downloadLimits(kind, options),
      previous: await previousArtifacts(source, options.dataDir),
      workDir,
      onArtifact: (a) =>
        progress({ kind, phase: 'download', file: a.name, url: a.shownUrl ?? a.url }),
    }).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      throw /HTTP 40[13]$/.test(message) ? new DataError(`${message} (${source.refused})`) : error;
    });
    let outcome: 'updated' | 'unchanged' = 'unchanged';
    if (fetched.status === 'fetched') {
      const fresh = fetched.files;
      const before = await hashes(targets);
      const inPlace = before.every((h) => h !== null) ? targets : null;
      const minRatio = options.minRatio ?? DEFAULT_MIN_RATIO;
      const problem = await source.problemOf(fresh, inPlace, minRatio);
      if (problem !== null) throw new DataError(problem);
      const after = await hashes(fresh);
      if (after.some((h, i) => h !== before[i])) {
        // the reconciled table compiled into the cache now, in a worker, from
        // the work folder's copy: a failure keeps the copy in place, and the
        // load that swaps it in (a serving process) finds it compiled
        progress({ kind, phase: 'compile' });
        const inUse = optInFiles(options.dataDir, options.geolite2CityDb ?? null);
        await compileInWorker({
          reconcile: {
            geoipDb: options.geoipDb,
            optIn: source.withFresh(inUse, fresh),
            // with the DB-IP a load would reconcile: the kept update's, else the embedded one
            dataDir: options.dataDir,
            cacheDir: tablesDir,
          },
        });
        // the work folder is in DATA_DIR/tables: the renames stay on one file system
        for (const [i, file] of fresh.entries()) await rename(file, targets[i]!);
        outcome = 'updated';
        for (const [i, replaced] of before.entries()) {
          if (replaced !== null && replaced !== after[i]) await dropTablesOf(tablesDir, replaced);
        }
      }
      const kept: FetchRecord = { fetchedAt: now.toISOString(), artifacts: fetched.artifacts };
      await writeFileAtomic(
        recordPath(options.dataDir, kind),
        `${JSON.stringify(kept, null, 2)}\n`,
      );
    }
    progress({ kind, phase: 'done', outcome, name: release.name, seconds: seconds() });
    result = { kind, outcome, error: null };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    progress({ kind, phase: 'failed', error: message, seconds: seconds() });
    result = { kind, outcome: 'failed', error: message };
  } finally {
    if (workDir !== null)
      await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  }
  await recordOutcome(options.dataDir, result, now);
  return result;
}
