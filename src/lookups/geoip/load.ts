// Opens the GeoIP and ASN data the configuration names, as compiled tables.
// Per data set, in order of preference:
//  1. the operator's file (GEOIP_DB, ASN_DB): named on purpose, it always wins;
//  2. the tables an update fetched into DATA_DIR/tables/<kind>.update.tables
//     (src/lookups/geoip/update/), newer than anything installed with the code;
//  3. the installation's tables of the embedded data.
// Operator files are compiled on first sight and kept in DATA_DIR/tables
// under their SHA-256 (src/lookups/geoip/compile/compile-sources.ts).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  DataError,
  INSTALLED_TABLES_DIR,
  hasOptIn,
  loadEmbedded,
  loadUserFile,
} from './compile/compile-sources.js';
import { loadNewestDbipWithExtras } from './compile/newest-dbip.js';
import {
  COMPILER_VERSION,
  loadCompiledSetAsync,
  type LoadOptions,
  type CompiledSet,
  type DataSetKind,
  type LocationSourceInfo,
  type Manifest,
} from './compiled-set.js';
import { fileSignature } from '../../data/file-signature.js';
import { readTableManifest } from '../../data/table-file.js';
import {
  fetchedGeolite2Path,
  fetchedDb11Paths,
  fetchedIpinfoLitePath,
  optInFiles,
  updateTablesPath,
  type OptInFiles,
} from './update/paths.js';
import type { GeoTables } from './geoip.js';

export { DataError };

export interface DataSetInfo {
  name: string;
  kind: 'geoip' | 'asn';
  source: Manifest['source']['origin'];
  layout: string;
  version: string | null;
  builtAt: string | null;
  /** when an update fetched it (null for embedded data and operator files) */
  fetchedAt: string | null;
  /** ip-location-db, dbip or maxmind for fetched data; null otherwise */
  publisher: string | null;
  /** SHA-256 of each source file */
  files: Manifest['source']['files'];
  compiledAt: string;
  licence: string;
  attribution: { text: string; url: string } | null;
  counts: Manifest['counts'];
  /** a reconciled location table's sources (GET /, X-Data-Attribution); empty otherwise */
  locationSources: LocationSourceInfo[];
}

export interface GeoData {
  tables: GeoTables;
  dataSets: DataSetInfo[];
}

export interface GeoDataOptions {
  geoipDb: string | null;
  asnDb: string | null;
  /**
   * GEOLITE2_CITY_DB: reconciled with the GeoIP data (a GEOIP_DB file or the
   * embedded DB-IP); when null, the GeoLite2 City `update-data` fetched into
   * DATA_DIR with the operator's key, if there is one
   */
  geolite2CityDb?: string | null;
  dataDir: string;
  /** the tables in memory (a reload): a file whose manifest matches one of them is not read again */
  current?: GeoTables;
  /** read the tables as lookups need them, the rest with readRest (LoadOptions) */
  paged?: boolean;
}

function dataSetInfo(set: CompiledSet): DataSetInfo {
  const m = set.manifest;
  return {
    name: m.name,
    kind: m.kind,
    source: m.source.origin,
    layout: m.source.layout,
    version: m.source.version,
    builtAt: m.source.builtAt,
    fetchedAt: m.source.update?.fetchedAt ?? null,
    publisher: m.source.update?.publisher ?? null,
    files: m.source.files,
    compiledAt: m.compiledAt,
    licence: m.licence,
    attribution: m.attribution,
    counts: m.counts,
    locationSources: m.location?.sources ?? [],
  };
}

/**
 * When the data itself dates from (epoch ms): its build date, else when it
 * was fetched, else a date in its version (ip-location-db's npm versions end
 * in YYYYMMDDHH), else when it was compiled.
 */
export function dataDate(d: DataSetInfo): number {
  const fromVersion = /(20\d{2})(\d{2})(\d{2})\d{0,4}$/.exec(d.version ?? '');
  const versionDate =
    fromVersion === null ? null : `${fromVersion[1]}-${fromVersion[2]}-${fromVersion[3]}T00:00:00Z`;
  return Date.parse(d.builtAt ?? d.fetchedAt ?? versionDate ?? d.compiledAt);
}

/** `current` when the table file at `path` holds the same tables (only its manifest is read). */
function unchanged(path: string, current: CompiledSet | undefined): CompiledSet | null {
  if (current === undefined) return null;
  const manifest = readTableManifest<Manifest>(path);
  return manifest !== null && JSON.stringify(manifest) === JSON.stringify(current.manifest)
    ? current
    : null;
}

/** The update's tables for `kind`, or null when there are none usable (said in the log). */
async function loadUpdate(
  kind: DataSetKind,
  dataDir: string,
  log: Logger,
  current: CompiledSet | undefined,
  options: LoadOptions,
): Promise<CompiledSet | null> {
  const path = updateTablesPath(dataDir, kind);
  try {
    statSync(path);
  } catch {
    return null;
  }
  const same = unchanged(path, current);
  if (same !== null) return same;
  try {
    const set = await loadCompiledSetAsync(path, options);
    if (set.manifest.kind === kind && set.manifest.compiler === COMPILER_VERSION) return set;
    log.warn({ path }, 'updated tables of another kind or compiler version: ignored');
  } catch (error) {
    log.warn({ err: error, path }, 'updated tables unreadable: ignored');
  }
  return null;
}

/**
 * The GeoIP and ASN data a configuration names, paged: the CLI reads only
 * what its lookups need, the service reads the rest once it listens
 * (readRest).
 */
export function loadConfiguredGeoData(
  config: Pick<GeoDataOptions, 'geoipDb' | 'asnDb' | 'dataDir'> & {
    geolite2CityDb?: string | null;
  },
  log: Logger,
): Promise<GeoData> {
  const { geoipDb, asnDb, dataDir } = config;
  const geolite2CityDb = config.geolite2CityDb ?? null;
  return loadGeoData({ geoipDb, asnDb, dataDir, geolite2CityDb, paged: true }, log);
}

/**
 * Reads what is left of paged tables (the service, once it listens: it
 * answered from them meanwhile, reading only what each lookup needed).
 */
export async function readRest(tables: GeoTables): Promise<void> {
  await tables.geoip.pager.readRest();
  await tables.asn.pager.readRest();
}

/**
 * The opt-in sources DB-IP is reconciled with (GEOLITE2_CITY_DB, else the
 * GeoLite2 copy `update-data` fetched; IPinfo Lite; IP2Location LITE DB11),
 * or null: none in use, or GEOIP_DB answers.
 */
export function optInInUse(config: {
  geoipDb: string | null;
  geolite2CityDb: string | null;
  dataDir: string;
}): OptInFiles | null {
  if (config.geoipDb !== null) return null;
  const optIn = optInFiles(config.dataDir, config.geolite2CityDb);
  return hasOptIn(optIn) ? optIn : null;
}

/** The update tables' and the fetched opt-in sources' file signatures: a change means new data to load. */
export function updateSignature(dataDir: string): string {
  const paths = [
    updateTablesPath(dataDir, 'geoip'),
    updateTablesPath(dataDir, 'asn'),
    fetchedGeolite2Path(dataDir),
    fetchedIpinfoLitePath(dataDir),
    fetchedDb11Paths(dataDir).v4,
    fetchedDb11Paths(dataDir).v6,
  ];
  return paths
    .map((path) => {
      try {
        return fileSignature(statSync(path));
      } catch {
        return '-';
      }
    })
    .join('/');
}

export async function loadGeoData(options: GeoDataOptions, log: Logger): Promise<GeoData> {
  const cacheDir = join(options.dataDir, 'tables');
  const { current } = options;
  const loadOptions: LoadOptions = { paged: options.paged === true };
  const optIn = optInFiles(options.dataDir, options.geolite2CityDb ?? null);
  const withOptIn = hasOptIn(optIn);
  const updated = {
    geoip:
      // an update's tables hold DB-IP alone: with an opt-in source its release is reconciled with it instead
      options.geoipDb === null && !withOptIn
        ? await loadUpdate('geoip', options.dataDir, log, current?.geoip, loadOptions)
        : null,
    asn:
      options.asnDb === null
        ? await loadUpdate('asn', options.dataDir, log, current?.asn, loadOptions)
        : null,
  };
  // the installation's tables in memory still answer when the files beside the code are the same
  const installed = (kind: DataSetKind) =>
    unchanged(join(INSTALLED_TABLES_DIR, `${kind}.tables`), current?.[kind]);
  const kept = {
    geoip:
      options.geoipDb === null && updated.geoip === null && !withOptIn ? installed('geoip') : null,
    asn: options.asnDb === null && updated.asn === null ? installed('asn') : null,
  };
  const needsEmbedded =
    (options.geoipDb === null && !withOptIn && updated.geoip === null && kept.geoip === null) ||
    (options.asnDb === null && updated.asn === null && kept.asn === null);
  const embedded = needsEmbedded ? await loadEmbedded(log, undefined, loadOptions) : null;
  const geoip =
    options.geoipDb !== null
      ? await loadUserFile(
          {
            kind: 'geoip',
            path: options.geoipDb,
            variable: 'GEOIP_DB',
            cacheDir,
            geolite2: optIn.geolite2,
            ipinfoLite: optIn.ipinfoLite,
            db11: optIn.db11,
            ...loadOptions,
          },
          log,
        )
      : withOptIn
        ? await loadNewestDbipWithExtras(options.dataDir, optIn, cacheDir, log, loadOptions)
        : (updated.geoip ?? kept.geoip ?? embedded!.geoip);
  const asn =
    options.asnDb !== null
      ? await loadUserFile(
          { kind: 'asn', path: options.asnDb, variable: 'ASN_DB', cacheDir, ...loadOptions },
          log,
        )
      : (updated.asn ?? kept.asn ?? embedded!.asn);
  return { tables: { geoip, asn }, dataSets: [dataSetInfo(geoip), dataSetInfo(asn)] };
}
