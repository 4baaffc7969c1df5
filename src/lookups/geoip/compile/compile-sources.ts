// Which compiled tables answer, and how they come to exist:
//  - the embedded data (DB-IP Lite City, the ip-location-db ASN CSV) is
//    compiled once per installation by `npm install` (the `prepare` script)
//    into tables/ beside the code: an empty or missing DATA_DIR starts with
//    full accuracy, and loading is reading two files;
//  - an operator's GEOIP_DB/ASN_DB file is compiled at start the first time
//    it is seen and kept in DATA_DIR/tables/ under its SHA-256, so the next
//    start (or reload of the same file) only reads the tables.
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Reader } from 'maxmind';
import type { Logger } from 'pino';
import { PROJECT_ROOT } from '../../../kit/project-root.js';
import { parseAsnCsv } from '../asn-csv.js';
import { DBIP_ATTRIBUTION, embeddedFiles } from '../embedded-data.js';
import { dbipMapper, maxmindMapper, maxmindStatedRadius } from '../record-map.js';
import { TimezoneIndex, createTimezoneResolver } from '../timezone.js';
import { NetworkSink, compileAsnRanges, compileMmdb, type Compiled } from './compile.js';
import {
  COMPILER_VERSION,
  countsOf,
  loadCompiledSet,
  type LoadOptions,
  saveCompiledSet,
  type CompiledSet,
  type DataSetKind,
  type LocationProvenance,
  type LocationSourceInfo,
  type Manifest,
  type SourceFile,
} from '../compiled-set.js';
import { TABLE_FORMAT, readTableManifest } from '../../../data/table-file.js';
import {
  DBIP_SOURCE_ID,
  GEOLITE2_SOURCE_ID,
  OPERATOR_FILE_SOURCE_ID,
  countryLayers,
  countrySourceFiles,
  countrySourceInfo,
  DB11_SOURCE_ID,
  db11Info,
  ipinfoLiteInfo,
  ipinfoLiteLayer,
} from '../location-sources.js';
import { DB11_ENTRIES, SegmentsBuilder, db11Layer, readDb11 } from './db11.js';
import { zipEntryInfo, zipEntryLines } from './zip-file.js';
import { hashedFile } from './file-hashes.js';
import { LOCATION_RULE_FILE, loadLocationRules } from '../reconcile/rule-file.js';
import type { Mapper } from '../record-map.js';
import { AnswerSet, mmdbLayer, type SourceLayer } from './layers.js';
import { GEOFEED_BUCKET, radiusOf } from '../reconcile/radius.js';
import { compileReconciled } from './reconciled.js';
import type { OptInFiles } from '../update/paths.js';

/** The installation's compiled tables (built by `npm install`), beside the code. */
export const INSTALLED_TABLES_DIR = join(PROJECT_ROOT, 'tables');
export const TIMEZONE_INDEX_FILE = 'timezones.bin';

export class DataError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataError';
  }
}

export function sha256File(path: string): SourceFile {
  return sourceFile(path, readFileSync(path));
}

function sourceFile(path: string, data: Buffer): SourceFile {
  return {
    name: basename(path),
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
  };
}

export function manifest(
  kind: DataSetKind,
  compiled: Compiled,
  fields: Pick<Manifest, 'name' | 'source' | 'licence' | 'attribution' | 'location'>,
): Manifest {
  return {
    format: TABLE_FORMAT,
    compiler: COMPILER_VERSION,
    kind,
    ...fields,
    counts: countsOf(compiled.table, compiled),
    compiledAt: new Date().toISOString(),
  };
}

export function builtAt(reader: Reader<object>): string | null {
  const epoch = reader.metadata.buildEpoch;
  return epoch instanceof Date && !Number.isNaN(epoch.getTime()) ? epoch.toISOString() : null;
}

/** The time-zone index built from geo-tz at install time; null when it is not there. */
export function installedTimezones(dir = INSTALLED_TABLES_DIR): TimezoneIndex | null {
  try {
    return TimezoneIndex.deserialize(readFileSync(join(dir, TIMEZONE_INDEX_FILE)), null);
  } catch {
    return null;
  }
}

/** Same sources (by SHA-256), format and compiler: the tables at `path` are current. */
function isCurrent(
  path: string,
  files: readonly SourceFile[],
  options: LoadOptions = {},
): CompiledSet | null {
  try {
    const set = loadCompiledSet(path, options);
    const have = set.manifest.source.files;
    const same =
      set.manifest.compiler === COMPILER_VERSION &&
      have.length === files.length &&
      have.every((f, i) => f.sha256 === files[i]?.sha256 && f.bytes === files[i]?.bytes);
    return same ? set : null;
  } catch {
    return null;
  }
}

// ---- the embedded data, compiled at install time ----

export interface EmbeddedCompileResult {
  geoip: CompiledSet;
  asn: CompiledSet;
  rebuilt: DataSetKind[];
}

/** mmdb-lib's reader, loaded only to compile (the service itself never reads MMDB files). */
export async function mmdbReader(buffer: Buffer): Promise<Reader<object>> {
  const { Reader } = await import('../../../later/maxmind.js');
  return new Reader<object>(buffer);
}

/** The files besides the GeoIP data a reconciled location table is current against. */
export function reconcileInputs(): SourceFile[] {
  return [...countrySourceFiles(), join(PROJECT_ROOT, LOCATION_RULE_FILE)].map(sha256File);
}

/** The primary GeoIP source (DB-IP, or the operator's file) and its description in GET /. */
export interface PrimarySource {
  /** its id in X-Location-Source and GET /: dbip unless said (`geolite2`, `geoip-db`) */
  id?: string;
  v4: Reader<object>;
  v6: Reader<object>;
  map: Mapper;
  info: Omit<LocationSourceInfo, 'id' | 'kind'>;
}

/**
 * The location table of a GeoIP source reconciled with the embedded country
 * sources and the operator's opt-in sources (`extras`: GeoLite2 City,
 * IPinfo Lite), with the rule and radii resources/location-rule.json holds
 * (docs/data.md). The rule is the GeoLite2 one when a calibrated extra (GeoLite2) is
 * among them; an uncalibrated one (IPinfo Lite) changes no rule.
 */
export async function compileLocationTable(
  primary: PrimarySource,
  extras: readonly Pick<ExtraSource, 'layer' | 'info'>[] = [],
): Promise<{ compiled: Compiled; location: LocationProvenance }> {
  const { Reader } = await import('../../../later/maxmind.js');
  const calibrated = extras.filter((e) => e.layer.calibrated !== false);
  const uncalibrated = extras.filter((e) => e.layer.calibrated === false);
  const layers = [
    mmdbLayer(primary.id ?? DBIP_SOURCE_ID, 'city', primary.v4, primary.v6, primary.map, true),
    ...calibrated.map((e) => e.layer),
    ...countryLayers((data) => new Reader<object>(data)),
    ...uncalibrated.map((e) => e.layer),
  ];
  const rules = loadLocationRules();
  // GeoLite2 is the calibrated extra; a copy stating no accuracy_radius has
  // its own calibration (docs/data.md, round 12)
  const geolite2 = calibrated[0];
  const choice =
    geolite2 === undefined
      ? rules.default
      : geolite2.layer.stated === undefined
        ? rules.geolite2Flat
        : rules.geolite2;
  const { compiled, decidedBy } = compileReconciled(layers, choice);
  const sources: LocationSourceInfo[] = [
    { id: primary.id ?? DBIP_SOURCE_ID, kind: 'city', ...primary.info },
    ...calibrated.map((e) => e.info),
    ...countrySourceInfo(),
    ...uncalibrated.map((e) => e.info),
  ];
  const geofeedRadiusKm = radiusOf(GEOFEED_BUCKET, choice.radii);
  const [primaryLayer] = layers;
  const sourceRanges = primaryLayer!.v4.values.length + (primaryLayer!.v6?.values.length ?? 0);
  return { compiled, location: { sources, decidedBy, geofeedRadiusKm, sourceRanges } };
}

/** The embedded DB-IP Lite City as the primary location source. */
async function embeddedDbip(timezones: TimezoneIndex | null): Promise<PrimarySource> {
  const files = embeddedFiles();
  const v4 = await mmdbReader(readFileSync(files.cityV4));
  return {
    v4,
    v6: await mmdbReader(readFileSync(files.cityV6)),
    map: dbipMapper(createTimezoneResolver(timezones)),
    info: {
      name: 'DB-IP Lite City',
      version: files.cityVersion,
      builtAt: builtAt(v4),
      licence: DBIP_ATTRIBUTION.licence,
      attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
    },
  };
}

/**
 * Compiles the embedded data into `dir` unless the tables there were made
 * from the same files. `timezones` resolves the DB-IP locations (DB-IP Lite
 * carries no time zone).
 */
export async function compileEmbedded(
  dir: string,
  timezones: TimezoneIndex | null,
  log: Logger,
): Promise<EmbeddedCompileResult> {
  mkdirSync(dir, { recursive: true });
  const files = embeddedFiles();
  const rebuilt: DataSetKind[] = [];
  const geoPath = join(dir, 'geoip.tables');
  const citySources = [sha256File(files.cityV4), sha256File(files.cityV6), ...reconcileInputs()];
  let geoip = isCurrent(geoPath, citySources);
  if (geoip === null) {
    const started = performance.now();
    const primary = await embeddedDbip(timezones);
    const { v4 } = primary;
    const { compiled, location } = await compileLocationTable(primary);
    geoip = {
      ...compiled,
      manifest: manifest('geoip', compiled, {
        location,
        name: `DB-IP Lite City ${files.cityVersion}`,
        source: {
          origin: 'embedded',
          layout: 'dbip-flat',
          version: files.cityVersion,
          builtAt: builtAt(v4),
          files: citySources,
        },
        licence: DBIP_ATTRIBUTION.licence,
        attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
      }),
    };
    // without the install-time time zones the tables are good for this run only:
    // kept, they would pass for current and hide the less exact zones
    if (timezones !== null) saveCompiledSet(geoPath, geoip);
    rebuilt.push('geoip');
    log.info(
      { path: geoPath, ...geoip.manifest.counts, seconds: seconds(started) },
      'GeoIP tables compiled',
    );
  }
  const asnPath = join(dir, 'asn.tables');
  const asnSources = [sha256File(files.asnV4), sha256File(files.asnV6)];
  let asn = isCurrent(asnPath, asnSources);
  if (asn === null) {
    const started = performance.now();
    const parsed = [files.asnV4, files.asnV6].map((f) => parseAsnCsv(readFileSync(f, 'utf8')));
    const rejected = parsed.reduce((n, p) => n + p.rejected, 0);
    if (rejected > 0) log.warn({ rejected }, 'ASN CSV rows rejected');
    const compiled = compileAsnRanges(parsed.flatMap((p) => p.rows));
    asn = {
      ...compiled,
      manifest: manifest('asn', compiled, {
        name: `RouteViews + DB-IP ASN ${files.asnVersion}`,
        source: {
          origin: 'embedded',
          layout: 'asn-csv',
          version: files.asnVersion,
          builtAt: null,
          files: asnSources,
        },
        licence: DBIP_ATTRIBUTION.licence,
        attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
      }),
    };
    saveCompiledSet(asnPath, asn);
    rebuilt.push('asn');
    log.info(
      { path: asnPath, ...asn.manifest.counts, seconds: seconds(started) },
      'ASN tables compiled',
    );
  }
  return { geoip, asn, rebuilt };
}

/** The installation's tables; compiled now (with a warning) when `npm install` did not. */
export async function loadEmbedded(
  log: Logger,
  dir = INSTALLED_TABLES_DIR,
  options: LoadOptions = {},
): Promise<EmbeddedCompileResult> {
  try {
    const geoip = loadCompiledSet(join(dir, 'geoip.tables'), options);
    const asn = loadCompiledSet(join(dir, 'asn.tables'), options);
    // the sources are not hashed here (that is the install step's work): only the kind and compiler
    const current = (set: CompiledSet) => set.manifest.compiler === COMPILER_VERSION;
    if (
      geoip.manifest.kind === 'geoip' &&
      asn.manifest.kind === 'asn' &&
      current(geoip) &&
      current(asn)
    ) {
      return { geoip, asn, rebuilt: [] };
    }
  } catch {
    // missing or from another format: compiled below
  }
  const timezones = installedTimezones(dir);
  log.warn(
    { dir },
    timezones === null
      ? 'no compiled tables for the embedded data: compiling them for this run, with time zones from tz-lookup (run `npm run prepare-data` for exact ones)'
      : 'no compiled tables for the embedded data (run `npm run prepare-data`); compiling them now',
  );
  return compileEmbedded(dir, timezones, log);
}

// ---- the operator's opt-in sources: GeoLite2 City (GEOLITE2_CITY_DB or
// fetched with the MaxMind key), IPinfo Lite (fetched with IPINFO_TOKEN) and
// IP2Location LITE DB11 (fetched with IP2LOCATION_TOKEN) ----

export interface ExtraSource {
  layer: SourceLayer;
  info: LocationSourceInfo;
}

/**
 * An opt-in source's file read and hashed; its source (reader, mapping, time
 * zones: ~2 s for a full GeoLite2 file) built only to compile — a table
 * compiled from it already needs only the hash, and a reload swapping it in
 * (src/life/reloader.ts) runs on the thread that answers requests.
 */
export interface ExtraInput {
  files: SourceFile[];
  source(): Promise<ExtraSource>;
}

async function readInput(path: string, variable: string): Promise<Buffer> {
  try {
    return await readFile(path);
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path}`, { cause });
  }
}

/** `path` hashed (remembered in `memoDir` when given: file-hashes.ts), the variable named on failure. */
async function hashedInput(path: string, variable: string, memoDir?: string): Promise<SourceFile> {
  if (memoDir === undefined) return sourceFile(path, await readInput(path, variable));
  try {
    return await hashedFile(path, memoDir);
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path}`, { cause });
  }
}

export async function geolite2Input(path: string, memoDir?: string): Promise<ExtraInput> {
  const variable = 'GEOLITE2_CITY_DB';
  return {
    files: [await hashedInput(path, variable, memoDir)],
    source: async () => geolite2Source(path, await readInput(path, variable)),
  };
}

/** IPinfo Lite as `update-data` fetched it (DATA_DIR/ipinfo-lite.mmdb). */
export async function ipinfoLiteInput(path: string, memoDir?: string): Promise<ExtraInput> {
  return {
    files: [await hashedInput(path, 'IPINFO_TOKEN', memoDir)],
    source: async () => {
      const data = await readInput(path, 'IPINFO_TOKEN');
      let reader: Reader<object>;
      try {
        reader = await mmdbReader(data);
      } catch (cause) {
        throw new DataError(`IPINFO_TOKEN: cannot open ${path} as an MMDB file`, { cause });
      }
      const info = ipinfoLiteInfo(reader.metadata.databaseType, builtAt(reader));
      return { layer: ipinfoLiteLayer(reader), info };
    },
  };
}

/** The inputs of the opt-in files in use, GeoLite2 first; their hashes remembered in `memoDir`. */
export async function optInInputs(files: OptInFiles, memoDir: string): Promise<ExtraInput[]> {
  return [
    ...(files.geolite2 === null ? [] : [await geolite2Input(files.geolite2, memoDir)]),
    ...(files.ipinfoLite === null ? [] : [await ipinfoLiteInput(files.ipinfoLite, memoDir)]),
    ...(files.db11 === null ? [] : [await db11Input(files.db11, memoDir)]),
  ];
}

/** The kept tables' name prefix: `geoip-geolite2-…` with GeoLite2 alone, as before IPinfo Lite came. */
export function optInTablesPrefix(optIn: OptInFiles): string {
  const prefix = ['geoip', ...(optIn.geolite2 === null ? [] : ['geolite2'])];
  if (optIn.ipinfoLite !== null) prefix.push('ipinfo');
  if (optIn.db11 !== null) prefix.push('db11');
  return prefix.join('-');
}

/** ` + GeoLite2 City + …`: what a table's name adds for the opt-in sources in it. */
export function optInNames(optIn: OptInFiles): string {
  return [
    ...(optIn.geolite2 === null ? [] : [' + GeoLite2 City']),
    ...(optIn.ipinfoLite === null ? [] : [' + IPinfo Lite']),
    ...(optIn.db11 === null ? [] : [' + IP2Location LITE DB11']),
  ].join('');
}

export const hasOptIn = (files: OptInFiles): boolean =>
  files.geolite2 !== null || files.ipinfoLite !== null || files.db11 !== null;

/** IP2Location LITE DB11 as `update-data` fetched it: its IPv4 and IPv6 ZIP. */
export async function db11Input(
  paths: { v4: string; v6: string },
  memoDir?: string,
): Promise<ExtraInput> {
  const files = [
    await hashedInput(paths.v4, 'IP2LOCATION_TOKEN', memoDir),
    await hashedInput(paths.v6, 'IP2LOCATION_TOKEN', memoDir),
  ];
  return { files, source: () => db11Source(paths) };
}

/** The two CSVs read from their ZIPs, line by line, into one uncalibrated city layer. */
async function db11Source(paths: { v4: string; v6: string }): Promise<ExtraSource> {
  const resolve = createTimezoneResolver(installedTimezones());
  const set = new AnswerSet();
  const v4 = new SegmentsBuilder(1);
  const v6 = new SegmentsBuilder(4);
  try {
    const read4 = await readDb11(zipEntryLines(paths.v4, DB11_ENTRIES.v4), 4, v4, set, resolve);
    await readDb11(zipEntryLines(paths.v6, DB11_ENTRIES.v6), 6, v6, set, resolve);
    if (read4.rows === 0) throw new Error(`no row in ${DB11_ENTRIES.v4} (${read4.firstProblem})`);
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new DataError(`IP2Location LITE DB11: ${message}`, { cause });
  }
  const dated = await zipEntryInfo(paths.v4, DB11_ENTRIES.v4);
  return {
    layer: db11Layer(DB11_SOURCE_ID, v4.finish(), v6.finish(), set),
    info: db11Info(dated?.modifiedAt ?? null),
  };
}

export const sourcesOf = (inputs: readonly ExtraInput[]): Promise<ExtraSource[]> =>
  Promise.all(inputs.map((i) => i.source()));

/**
 * The operator's GeoLite2 City file (MaxMind's layout as downloaded with
 * their licence key, or ip-location-db's flat copy) as the second city
 * source; a file that is not a City MMDB is refused, naming the variable.
 */
async function geolite2Source(path: string, data: Buffer): Promise<ExtraSource> {
  const variable = 'GEOLITE2_CITY_DB';
  let reader: Reader<object>;
  try {
    reader = await mmdbReader(data);
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path} as an MMDB file`, { cause });
  }
  const type = requireType(reader, variable, /City/i);
  // ip-location-db names its flat copies "city" or "city ipv4"
  const flat = /^city\b/.test(type);
  const map = (flat ? dbipMapper : maxmindMapper)(createTimezoneResolver(installedTimezones()));
  return {
    // MaxMind's layout states each record's accuracy_radius; the flat copies drop it
    layer: mmdbLayer(
      GEOLITE2_SOURCE_ID,
      'city',
      reader,
      reader,
      map,
      false,
      flat ? null : maxmindStatedRadius,
    ),
    info: {
      id: GEOLITE2_SOURCE_ID,
      kind: 'city',
      name: `GeoLite2 City (${type})`,
      version: builtAt(reader)?.slice(0, 10) ?? null,
      builtAt: builtAt(reader),
      licence: 'GeoLite2 EULA (CC BY-SA 4.0 terms)',
      attribution: {
        text: 'This product includes GeoLite2 data created by MaxMind',
        url: 'https://www.maxmind.com',
      },
    },
  };
}

/** Tables named by the hash of their inputs, kept in `cacheDir` (else the temporary folder). */
export function cachedTables(
  cacheDir: string,
  prefix: string,
  inputs: readonly SourceFile[],
  options: LoadOptions,
  /** the files the name is made from (the others are checked in the manifest): all by default */
  named: readonly SourceFile[] = inputs,
): { name: string; dirs: string[]; cached: CompiledSet | null } {
  let key = named[0]?.sha256 ?? '';
  if (named.length > 1) {
    const hash = createHash('sha256');
    for (const f of named) hash.update(f.sha256);
    key = hash.digest('hex');
  }
  const name = `${prefix}-${key.slice(0, 16)}.tables`;
  const dirs = [cacheDir, join(tmpdir(), 'ipintel-tables')];
  for (const dir of dirs) {
    const cached = isCurrent(join(dir, name), inputs, options);
    if (cached !== null) return { name, dirs, cached };
  }
  return { name, dirs, cached: null };
}

export function keepTables(
  dirs: readonly string[],
  name: string,
  set: CompiledSet,
  log: Logger,
): void {
  for (const dir of dirs) {
    try {
      mkdirSync(dir, { recursive: true });
      saveCompiledSet(join(dir, name), set);
      return;
    } catch (error) {
      log.warn({ err: error, dir }, 'could not keep the compiled tables; trying elsewhere');
    }
  }
}

/**
 * The embedded DB-IP City files as the install step hashed them into the
 * installed tables' manifest (which loadEmbedded trusts without hashing),
 * when their names and sizes still match; else hashed now. Hashing their
 * 134 MB took 0.26 s of the thread that answers, at every reload with GeoLite2.
 */
function embeddedCityFiles(): SourceFile[] {
  const files = embeddedFiles();
  const recorded = readTableManifest<Manifest>(join(INSTALLED_TABLES_DIR, 'geoip.tables'))?.source
    .files;
  return [files.cityV4, files.cityV6].map((path, i) => {
    const known = recorded?.[i];
    const same = known?.name === basename(path) && known.bytes === statSync(path).size;
    return same ? known : sha256File(path);
  });
}

/**
 * The embedded DB-IP Lite City reconciled with the operator's opt-in sources
 * (and the country sources), compiled the first time this set is seen and
 * kept in `cacheDir` under the hash of every input.
 */
export async function loadEmbeddedWithExtras(
  optIn: OptInFiles,
  cacheDir: string,
  log: Logger,
  options: LoadOptions = {},
): Promise<CompiledSet> {
  const files = embeddedFiles();
  const extras = await optInInputs(optIn, cacheDir);
  const inputs = [...embeddedCityFiles(), ...extras.flatMap((e) => e.files), ...reconcileInputs()];
  const prefix = optInTablesPrefix(optIn);
  const { name, dirs, cached } = cachedTables(cacheDir, prefix, inputs, options);
  if (cached !== null) return cached;
  const started = performance.now();
  const primary = await embeddedDbip(installedTimezones());
  const { v4 } = primary;
  const { compiled, location } = await compileLocationTable(primary, await sourcesOf(extras));
  const set: CompiledSet = {
    ...compiled,
    manifest: manifest('geoip', compiled, {
      location,
      name: `DB-IP Lite City ${files.cityVersion}${optInNames(optIn)}`,
      source: {
        origin: 'embedded',
        layout: 'dbip-flat',
        version: files.cityVersion,
        builtAt: builtAt(v4),
        files: inputs,
      },
      licence: DBIP_ATTRIBUTION.licence,
      attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
    }),
  };
  log.info(
    { ...set.manifest.counts, seconds: seconds(started) },
    'GeoIP tables with the opt-in sources compiled',
  );
  keepTables(dirs, name, set, log);
  return set;
}

// ---- an operator's MMDB file, compiled at start and cached by its SHA-256 ----

export interface UserFileOptions extends LoadOptions {
  kind: DataSetKind;
  path: string;
  /** the variable that named it, for messages */
  variable: string;
  /** where compiled tables are kept (DATA_DIR/tables); os.tmpdir() when it cannot be written */
  cacheDir: string;
  /** GEOLITE2_CITY_DB: a second city source the GeoIP file is reconciled with */
  geolite2?: string | null;
  /** IPinfo Lite fetched with IPINFO_TOKEN: an uncalibrated country source it is reconciled with */
  ipinfoLite?: string | null;
  /** IP2Location LITE DB11 fetched with IP2LOCATION_TOKEN: an uncalibrated city source */
  db11?: OptInFiles['db11'];
}

function requireType(reader: Reader<object>, variable: string, accepted: RegExp): string {
  const type = reader.metadata.databaseType;
  if (!accepted.test(type)) {
    throw new DataError(`${variable}: database type "${type}" is not one of ${accepted.source}`);
  }
  return type;
}

export async function loadUserFile(options: UserFileOptions, log: Logger): Promise<CompiledSet> {
  const { kind, path, variable } = options;
  let data: Buffer;
  try {
    data = await readFile(path);
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path}`, { cause });
  }
  const source = sourceFile(path, data);
  const extras =
    kind === 'geoip'
      ? await optInInputs(
          {
            geolite2: options.geolite2 ?? null,
            ipinfoLite: options.ipinfoLite ?? null,
            db11: options.db11 ?? null,
          },
          options.cacheDir,
        )
      : [];
  const extraFiles = extras.flatMap((e) => e.files);
  const inputs = kind === 'geoip' ? [source, ...extraFiles, ...reconcileInputs()] : [source];
  // named by the file's SHA-256 (and the opt-in sources'); the country sources and rule are in the manifest
  const named = [source, ...extraFiles];
  const { name, dirs, cached } = cachedTables(options.cacheDir, kind, inputs, options, named);
  if (cached !== null) return cached;
  const started = performance.now();
  let reader: Reader<object>;
  try {
    reader = await mmdbReader(data);
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path} as an MMDB file`, { cause });
  }
  let compiled: Compiled;
  let layout: string;
  let type: string;
  let location: LocationProvenance | undefined;
  if (kind === 'geoip') {
    type = requireType(reader, variable, /City|Country/i);
    // ip-location-db's DB-IP files call themselves "city"/"country" and use a flat layout
    const flat = /^(city|country)$/.test(type);
    layout = flat ? 'dbip-flat' : 'maxmind-city';
    // a flat DB-IP file has no time zones: the install-time index knows most of its points
    const resolver = createTimezoneResolver(installedTimezones());
    ({ compiled, location } = await compileLocationTable(
      {
        id: OPERATOR_FILE_SOURCE_ID,
        v4: reader,
        v6: reader,
        map: (flat ? dbipMapper : maxmindMapper)(resolver),
        info: {
          name: type,
          version: type,
          builtAt: builtAt(reader),
          licence: 'as supplied by the operator',
          attribution: null,
        },
      },
      await sourcesOf(extras),
    ));
  } else {
    type = requireType(reader, variable, /ASN|ISP/i);
    layout = 'maxmind-asn';
    compiled = compileMmdb(reader, reader, new NetworkSink());
  }
  const set: CompiledSet = {
    ...compiled,
    manifest: manifest(options.kind, compiled, {
      name: type,
      source: {
        origin: 'file',
        layout,
        version: type,
        builtAt: builtAt(reader),
        files: inputs,
      },
      licence: 'as supplied by the operator',
      attribution: null,
      location,
    }),
  };
  log.info({ path, ...set.manifest.counts, seconds: seconds(started) }, `${variable} compiled`);
  keepTables(dirs, name, set, log);
  return set;
}

export function seconds(started: number): number {
  return Math.round((performance.now() - started) / 100) / 10;
}
