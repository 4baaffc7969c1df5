// Opens the GeoIP and ASN data named by the configuration: the user's MaxMind
// files (GEOIP_DB, ASN_DB) or the embedded DB-IP Lite data with the derived
// tables that scripts/prepare-data.ts writes to DATA_DIR. A derived table that
// is missing or stale is rebuilt here (ASN, ~1 s) or replaced by a fallback
// (time zones: tz-lookup), never fatal.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Reader } from 'maxmind';
import { parseAsnCsv } from './asn-csv.js';
import { AsnTable, type AsnSource } from './asn-table.js';
import {
  ASN_TABLE_FILE,
  DBIP_ATTRIBUTION,
  TIMEZONE_INDEX_FILE,
  embeddedFiles,
  fileStamp,
} from './embedded-data.js';
import {
  MmdbAsnSource,
  MmdbGeoSource,
  dbipMapper,
  maxmindMapper,
  openMmdb,
  type GeoSource,
} from './mmdb-sources.js';
import { TimezoneIndex, createTimezoneResolver } from './timezone.js';

export class DataError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DataError';
  }
}

export interface DataSetInfo {
  name: string;
  kind: 'geoip' | 'asn';
  source: 'embedded' | 'file';
  path: string;
  databaseType: string;
  builtAt: string | null;
  licence: string;
  attribution: { text: string; url: string } | null;
}

export interface GeoData {
  geo: GeoSource;
  asn: AsnSource;
  dataSets: DataSetInfo[];
  timezoneIndexSize: number;
}

export interface GeoDataOptions {
  geoipDb: string | null;
  asnDb: string | null;
  dataDir: string;
}

async function openFile(path: string, variable: string): Promise<Reader<object>> {
  try {
    return openMmdb(await readFile(path));
  } catch (cause) {
    throw new DataError(`${variable}: cannot open ${path} as an MMDB file`, { cause });
  }
}

function requireType(reader: Reader<object>, variable: string, accepted: RegExp): string {
  const type = reader.metadata.databaseType;
  if (!accepted.test(type)) {
    throw new DataError(`${variable}: database type "${type}" is not one of ${accepted.source}`);
  }
  return type;
}

function builtAt(reader: Reader<object>): string | null {
  const epoch = reader.metadata.buildEpoch;
  return epoch instanceof Date && !Number.isNaN(epoch.getTime()) ? epoch.toISOString() : null;
}

/** The embedded ASN table, from its binary form in DATA_DIR when that is current. */
export async function loadEmbeddedAsnTable(dataDir: string, log: Logger): Promise<AsnTable> {
  const files = embeddedFiles();
  const stamp = fileStamp([files.asnV4, files.asnV6]);
  const cachePath = join(dataDir, ASN_TABLE_FILE);
  try {
    const table = AsnTable.deserialize(readFileSync(cachePath), stamp);
    if (table) return table;
  } catch {
    // missing or unreadable: rebuilt below
  }
  log.info({ cachePath }, 'building the ASN table from the embedded CSV');
  const [v4, v6] = await Promise.all([
    readFile(files.asnV4, 'utf8'),
    readFile(files.asnV6, 'utf8'),
  ]);
  const parsed = [parseAsnCsv(v4), parseAsnCsv(v6)];
  const table = AsnTable.fromRanges(parsed.flatMap((p) => p.rows));
  const rejected = parsed.reduce((n, p) => n + p.rejected, 0);
  if (rejected > 0) log.warn({ rejected }, 'ASN CSV rows rejected');
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(`${cachePath}.tmp`, table.serialize(stamp));
    renameSync(`${cachePath}.tmp`, cachePath);
  } catch (error) {
    log.warn(
      { err: error, cachePath },
      'could not save the ASN table; it will be rebuilt next start',
    );
  }
  return table;
}

export function timezoneIndexStamp(): string {
  const files = embeddedFiles();
  return fileStamp([files.cityV4, files.cityV6]);
}

function loadTimezoneIndex(dataDir: string, log: Logger): TimezoneIndex | null {
  const path = join(dataDir, TIMEZONE_INDEX_FILE);
  try {
    const index = TimezoneIndex.deserialize(readFileSync(path), timezoneIndexStamp());
    if (index) return index;
    log.warn({ path }, 'the time-zone index is stale: run `npm run prepare-data`; using tz-lookup');
  } catch {
    log.warn({ path }, 'no time-zone index: run `npm run prepare-data`; using tz-lookup');
  }
  return null;
}

export async function loadGeoData(options: GeoDataOptions, log: Logger): Promise<GeoData> {
  const dataSets: DataSetInfo[] = [];
  let geo: GeoSource;
  let timezoneIndexSize = 0;
  if (options.geoipDb !== null) {
    const reader = await openFile(options.geoipDb, 'GEOIP_DB');
    const type = requireType(reader, 'GEOIP_DB', /City|Country/i);
    // ip-location-db's DB-IP files call themselves "city"/"country" and use a flat layout
    const flat = /^(city|country)$/.test(type);
    geo = new MmdbGeoSource(
      reader,
      null,
      (flat ? dbipMapper : maxmindMapper)(createTimezoneResolver(null)),
    );
    dataSets.push({
      name: type,
      kind: 'geoip',
      source: 'file',
      path: options.geoipDb,
      databaseType: type,
      builtAt: builtAt(reader),
      licence: 'as supplied by the operator',
      attribution: null,
    });
  } else {
    const files = embeddedFiles();
    const [v4, v6] = await Promise.all([readFile(files.cityV4), readFile(files.cityV6)]);
    const readers = [openMmdb(v4), openMmdb(v6)] as const;
    const index = loadTimezoneIndex(options.dataDir, log);
    timezoneIndexSize = index?.size ?? 0;
    geo = new MmdbGeoSource(readers[0], readers[1], dbipMapper(createTimezoneResolver(index)));
    dataSets.push({
      name: `DB-IP Lite City ${files.cityVersion}`,
      kind: 'geoip',
      source: 'embedded',
      path: files.cityV4,
      databaseType: readers[0].metadata.databaseType,
      builtAt: builtAt(readers[0]),
      licence: DBIP_ATTRIBUTION.licence,
      attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
    });
  }
  let asn: AsnSource;
  if (options.asnDb !== null) {
    const reader = await openFile(options.asnDb, 'ASN_DB');
    const type = requireType(reader, 'ASN_DB', /ASN|ISP/i);
    asn = new MmdbAsnSource(reader);
    dataSets.push({
      name: type,
      kind: 'asn',
      source: 'file',
      path: options.asnDb,
      databaseType: type,
      builtAt: builtAt(reader),
      licence: 'as supplied by the operator',
      attribution: null,
    });
  } else {
    const files = embeddedFiles();
    asn = await loadEmbeddedAsnTable(options.dataDir, log);
    dataSets.push({
      name: `RouteViews + DB-IP ASN ${files.asnVersion}`,
      kind: 'asn',
      source: 'embedded',
      path: files.asnV4,
      databaseType: 'ip-location-db asn CSV',
      builtAt: null,
      licence: DBIP_ATTRIBUTION.licence,
      attribution: { text: DBIP_ATTRIBUTION.text, url: DBIP_ATTRIBUTION.url },
    });
  }
  return { geo, asn, dataSets, timezoneIndexSize };
}
