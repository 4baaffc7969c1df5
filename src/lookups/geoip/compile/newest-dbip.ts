// The newest DB-IP the service has, as the primary location source
// reconciled with the operator's opt-in sources (GeoLite2 City, IPinfo Lite,
// IP2Location LITE DB11; issue 42): the release an
// update fetched — its tables' manifest in DATA_DIR/tables/geoip.update.tables,
// its unpacked MMDB files kept beside them under their SHA-256
// (update/dbip-sources.ts) — when those files are all there, else the
// embedded DB-IP Lite City. The reconciled table is compiled the first time
// a pair is seen (an update does it in its worker before it renames its
// files into place) and kept in DATA_DIR/tables under the hash of every
// input, where a start or a reload opens it without compiling.
import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Reader } from 'maxmind';
import type { Logger } from 'pino';
import { readTableManifest } from '../../../data/table-file.js';
import {
  COMPILER_VERSION,
  type CompiledSet,
  type LoadOptions,
  type Manifest,
} from '../compiled-set.js';
import { DBIP_SOURCE_ID } from '../location-sources.js';
import { dbipMapper, maxmindMapper } from '../record-map.js';
import { createTimezoneResolver } from '../timezone.js';
import { keptSourcePath, updateTablesPath, type OptInFiles } from '../update/paths.js';
import {
  DataError,
  builtAt,
  cachedTables,
  compileLocationTable,
  installedTimezones,
  keepTables,
  loadEmbeddedWithExtras,
  manifest,
  mmdbReader,
  optInInputs,
  optInNames,
  optInTablesPrefix,
  reconcileInputs,
  seconds,
  sourcesOf,
  type PrimarySource,
} from './compile-sources.js';

/** A DB-IP release an update fetched: its unpacked files and its tables' manifest. */
export interface DbipRelease {
  /** [IPv4, IPv6] or [one file holding both], in the order of `manifest.source.files` */
  files: string[];
  /** the update tables' manifest: name, version, layout, licence, each file's SHA-256 */
  manifest: Manifest;
}

/**
 * An update's GeoIP release is DB-IP's unless MaxMind published it
 * (DATA_SOURCE=maxmind: GeoLite2 is then the GeoIP data itself).
 */
export function isDbipRelease(m: Manifest): boolean {
  return (
    m.kind === 'geoip' && m.source.update !== undefined && m.source.update.publisher !== 'maxmind'
  );
}

/** The DB-IP release an update fetched into `dataDir`, when it and its kept files are all there. */
export function keptDbipRelease(dataDir: string): DbipRelease | null {
  const m = readTableManifest<Manifest>(updateTablesPath(dataDir, 'geoip'));
  if (m === null || m.compiler !== COMPILER_VERSION || !isDbipRelease(m)) return null;
  const files = m.source.files.map((f) => keptSourcePath(dataDir, f.sha256));
  const kept = m.source.files.every((f, i) => {
    try {
      return statSync(files[i]!).size === f.bytes;
    } catch {
      return false;
    }
  });
  return kept ? { files, manifest: m } : null;
}

/**
 * A kept release file that cannot serve (unreadable, or not the file its
 * tables were compiled from): the embedded DB-IP is reconciled instead. An
 * opt-in source's own failure is another DataError, and is not caught.
 */
export class ReleaseFileError extends DataError {}

/** The release's files opened as the primary source, each checked against its recorded SHA-256. */
async function releaseSource(release: DbipRelease): Promise<PrimarySource> {
  const m = release.manifest;
  const readers: Reader<object>[] = [];
  for (const [i, path] of release.files.entries()) {
    const data = await readFile(path).catch((cause: unknown) => {
      throw new ReleaseFileError(`the DB-IP update's file ${path} cannot be read`, { cause });
    });
    if (createHash('sha256').update(data).digest('hex') !== m.source.files[i]?.sha256) {
      throw new ReleaseFileError(
        `${path} is not the file the DB-IP update's tables were compiled from`,
      );
    }
    readers.push(await mmdbReader(data));
  }
  const v4 = readers[0]!;
  // DB-IP Lite carries no time zone: the install-time index fills it, as for the update itself
  const resolver = createTimezoneResolver(installedTimezones());
  return {
    id: DBIP_SOURCE_ID,
    v4,
    v6: readers[1] ?? v4,
    map: (m.source.layout === 'dbip-flat' ? dbipMapper : maxmindMapper)(resolver),
    info: {
      name: m.name,
      version: m.source.version,
      builtAt: builtAt(v4),
      licence: m.licence,
      attribution: m.attribution,
    },
  };
}

/**
 * The DB-IP release reconciled with the opt-in sources in use (GeoLite2
 * City, IPinfo Lite, IP2Location LITE DB11) and the country sources,
 * compiled the first time this set is seen and kept in `cacheDir` under
 * the hash of every input.
 */
export async function loadDbipWithExtras(
  release: DbipRelease,
  optIn: OptInFiles,
  cacheDir: string,
  log: Logger,
  options: LoadOptions = {},
): Promise<CompiledSet> {
  const m = release.manifest;
  const extras = await optInInputs(optIn, cacheDir);
  const inputs = [...m.source.files, ...extras.flatMap((e) => e.files), ...reconcileInputs()];
  const { name, dirs, cached } = cachedTables(cacheDir, optInTablesPrefix(optIn), inputs, options);
  if (cached !== null) return cached;
  const started = performance.now();
  const primary = await releaseSource(release);
  const { compiled, location } = await compileLocationTable(primary, await sourcesOf(extras));
  const set: CompiledSet = {
    ...compiled,
    manifest: manifest('geoip', compiled, {
      location,
      name: `${m.name}${optInNames(optIn)}`,
      // the update's provenance (publisher, fetch time) stays what GET / shows
      source: { ...m.source, files: inputs },
      licence: m.licence,
      attribution: m.attribution,
    }),
  };
  log.info(
    { ...set.manifest.counts, seconds: seconds(started) },
    'GeoIP tables of the DB-IP update with the opt-in sources compiled',
  );
  keepTables(dirs, name, set, log);
  return set;
}

/**
 * The newest DB-IP the service has (the update in `dataDir`, else the
 * embedded data) reconciled with the opt-in sources. A kept release that
 * cannot be used is said in the log and the embedded data answers instead.
 */
export async function loadNewestDbipWithExtras(
  dataDir: string,
  optIn: OptInFiles,
  cacheDir: string,
  log: Logger,
  options: LoadOptions = {},
): Promise<CompiledSet> {
  const release = keptDbipRelease(dataDir);
  if (release === null) {
    const update = readTableManifest<Manifest>(updateTablesPath(dataDir, 'geoip'));
    if (update !== null && isDbipRelease(update)) {
      log.warn(
        'the DB-IP update has no kept source files (fetched by an earlier version): the embedded DB-IP is reconciled with the opt-in sources until the next update fetches it again',
      );
    }
    return loadEmbeddedWithExtras(optIn, cacheDir, log, options);
  }
  try {
    return await loadDbipWithExtras(release, optIn, cacheDir, log, options);
  } catch (error) {
    if (!(error instanceof ReleaseFileError)) throw error;
    log.warn({ err: error }, 'the DB-IP update cannot be reconciled: the embedded DB-IP is');
    return loadEmbeddedWithExtras(optIn, cacheDir, log, options);
  }
}
