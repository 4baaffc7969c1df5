// GeoLite2 City as the second location source, fetched with the operator's
// own MaxMind key while DB-IP stays the GeoIP data (MAXMIND_ACCOUNT_ID and
// MAXMIND_LICENSE_KEY set, DATA_SOURCE not maxmind, GEOLITE2_CITY_DB unset).
// The download is DATA_SOURCE=maxmind's City release through the same fetch
// (published checksum first, an unchanged release not downloaded again,
// time and size bounds), then the unpacked MMDB is checked — a City
// database, not far smaller than the copy it replaces (a half-published file
// still opens) — and renamed into DATA_DIR/geolite2-city.mmdb, where the
// GeoIP load finds it (load.ts) and the reloader sees it change. Before the
// rename, the location table reconciled with it is compiled in a worker
// thread into DATA_DIR/tables, where that load finds it compiled (as it
// would have compiled a GEOLITE2_CITY_DB file itself, on its own thread).
// Any failure leaves the previous copy.
import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { FetchedArtifact } from '../compiled-set.js';
import { DataError, mmdbReader } from '../compile/compile-sources.js';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import { compileInWorker } from './compile-in-worker.js';
import { dropTablesOf } from './dbip-sources.js';
import { fetchRelease } from './fetch-release.js';
import { downloadLimits, workFolder, type GeoUpdateOptions } from './geo-updater.js';
import { fetchedGeolite2Path } from './paths.js';
import { DEFAULT_MIN_RATIO } from './sanity.js';
import { geolite2CityRelease } from './sources.js';
import { recordOutcome, type UpdateOutcome } from './update-status.js';

export const GEOLITE2_UPDATE_ID = 'geolite2-city';

/** GeoUpdateOptions but the kinds and the current tables; `minRatio` applies to the search-tree nodes */
export type Geolite2UpdateOptions = Omit<GeoUpdateOptions, 'kinds' | 'current'> & {
  /** GEOIP_DB (null: the embedded DB-IP), which the location table reconciles with GeoLite2 */
  geoipDb: string | null;
};

export interface Geolite2UpdateResult {
  kind: typeof GEOLITE2_UPDATE_ID;
  outcome: UpdateOutcome;
  error: string | null;
}

/** What was fetched last time: the artifacts, for the checksum comparison. */
interface FetchRecord {
  fetchedAt: string;
  artifacts: FetchedArtifact[];
}

function recordPath(dataDir: string): string {
  return join(dataDir, 'tables', 'geolite2-city.fetch.json');
}

function readRecord(dataDir: string): FetchRecord | null {
  try {
    const doc = JSON.parse(readFileSync(recordPath(dataDir), 'utf8')) as FetchRecord;
    return Array.isArray(doc.artifacts) ? doc : null;
  } catch {
    return null;
  }
}

const sha256Of = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** The copy in place: its search-tree size and its SHA-256, or null when there is none that opens. */
async function currentCopy(path: string): Promise<{ nodes: number; sha256: string } | null> {
  try {
    const data = await readFile(path);
    const nodes = (await mmdbReader(data)).metadata.nodeCount;
    return { nodes, sha256: sha256Of(data) };
  } catch {
    return null;
  }
}

/**
 * Null when the unpacked file may replace the current copy; else why not.
 * The search tree's node count stands for the number of networks: a file
 * cut short in publishing has far fewer, and it is read from the metadata
 * without walking the tree.
 */
async function problemOf(
  data: Buffer,
  before: number | null,
  minRatio: number,
): Promise<string | null> {
  let reader;
  try {
    reader = await mmdbReader(data);
  } catch {
    return 'the downloaded file is not a readable MMDB file';
  }
  const { databaseType: type, nodeCount } = reader.metadata;
  if (!/City/i.test(type) || /ASN|ISP/i.test(type)) {
    return `database type "${type}" is not a City database`;
  }
  if (before !== null && nodeCount < before * minRatio) {
    return `the new file has ${nodeCount} search-tree nodes, far fewer than the ${before} of the current copy (at least ${Math.ceil(before * minRatio)} expected)`;
  }
  return null;
}

/** The download's problem (null: none) and its SHA-256: read once, not kept through the compile. */
async function inspect(
  file: string,
  before: number | null,
  minRatio: number,
): Promise<{ problem: string | null; sha256: string }> {
  const data = await readFile(file);
  return { problem: await problemOf(data, before, minRatio), sha256: sha256Of(data) };
}

export async function updateGeolite2City(
  options: Geolite2UpdateOptions,
): Promise<Geolite2UpdateResult> {
  const kind = GEOLITE2_UPDATE_ID;
  const started = performance.now();
  const seconds = () => Math.round((performance.now() - started) / 100) / 10;
  const progress = options.onProgress ?? (() => undefined);
  const now = (options.now ?? (() => new Date()))();
  const tablesDir = join(options.dataDir, 'tables');
  const target = fetchedGeolite2Path(options.dataDir);
  let workDir: string | null = null;
  let result: Geolite2UpdateResult;
  try {
    const release = geolite2CityRelease(options.settings);
    progress({ kind, phase: 'check', source: 'maxmind (second location source)' });
    workDir = await workFolder(tablesDir, kind);
    // without a copy in place the last fetch says nothing: fetched again
    const inPlace = await stat(target).then(
      (st) => st.isFile(),
      () => false,
    );
    const record = inPlace ? readRecord(options.dataDir) : null;
    const fetched = await fetchRelease(release, {
      limits: downloadLimits(kind, options),
      previous: record?.artifacts ?? [],
      workDir,
      onArtifact: (a) => progress({ kind, phase: 'download', file: a.name, url: a.url }),
    });
    if (fetched.status === 'fetched') {
      const before = await currentCopy(target);
      const { problem, sha256 } = await inspect(
        fetched.files[0]!,
        before?.nodes ?? null,
        options.minRatio ?? DEFAULT_MIN_RATIO,
      );
      if (problem !== null) throw new DataError(problem);
      // the reconciled table compiled into the cache now, in a worker, from
      // the work folder's copy: a failure keeps the copy in place, and the
      // load that swaps it in (a serving process) finds it compiled
      progress({ kind, phase: 'compile' });
      await compileInWorker({
        reconcile: {
          geoipDb: options.geoipDb,
          geolite2: fetched.files[0]!,
          // with the DB-IP a load reconciles: the release an update fetched, else the embedded one
          dataDir: options.dataDir,
          cacheDir: tablesDir,
        },
      });
      // the work folder is in DATA_DIR/tables: the rename stays on one file system
      await rename(fetched.files[0]!, target);
      const kept: FetchRecord = { fetchedAt: now.toISOString(), artifacts: fetched.artifacts };
      await writeFileAtomic(recordPath(options.dataDir), `${JSON.stringify(kept, null, 2)}\n`);
      const replaced = before?.sha256 ?? null;
      if (replaced !== null && replaced !== sha256) await dropTablesOf(tablesDir, replaced);
    }
    const outcome = fetched.status === 'fetched' ? 'updated' : 'unchanged';
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
