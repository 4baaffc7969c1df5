// Opens the GeoIP and ASN data the configuration names, as compiled tables:
// the installation's tables of the embedded DB-IP Lite data, or the
// operator's MaxMind files (GEOIP_DB, ASN_DB) compiled on first sight and
// kept in DATA_DIR/tables under their SHA-256 (src/data/compile-sources.ts).
import { join } from 'node:path';
import type { Logger } from 'pino';
import { DataError, loadEmbedded, loadUserFile } from '../../data/compile-sources.js';
import type { CompiledSet, Manifest } from '../../data/compiled-set.js';
import type { GeoTables } from './geoip.js';

export { DataError };

export interface DataSetInfo {
  name: string;
  kind: 'geoip' | 'asn';
  source: Manifest['source']['origin'];
  layout: string;
  version: string | null;
  builtAt: string | null;
  /** SHA-256 of each source file */
  files: Manifest['source']['files'];
  compiledAt: string;
  licence: string;
  attribution: { text: string; url: string } | null;
  counts: Manifest['counts'];
}

export interface GeoData {
  tables: GeoTables;
  dataSets: DataSetInfo[];
}

export interface GeoDataOptions {
  geoipDb: string | null;
  asnDb: string | null;
  dataDir: string;
}

export function dataSetInfo(set: CompiledSet): DataSetInfo {
  const m = set.manifest;
  return {
    name: m.name,
    kind: m.kind,
    source: m.source.origin,
    layout: m.source.layout,
    version: m.source.version,
    builtAt: m.source.builtAt,
    files: m.source.files,
    compiledAt: m.compiledAt,
    licence: m.licence,
    attribution: m.attribution,
    counts: m.counts,
  };
}

export async function loadGeoData(options: GeoDataOptions, log: Logger): Promise<GeoData> {
  const needsEmbedded = options.geoipDb === null || options.asnDb === null;
  const embedded = needsEmbedded ? await loadEmbedded(log) : null;
  const cacheDir = join(options.dataDir, 'tables');
  const geoip =
    options.geoipDb === null
      ? embedded!.geoip
      : await loadUserFile(
          { kind: 'geoip', path: options.geoipDb, variable: 'GEOIP_DB', cacheDir },
          log,
        );
  const asn =
    options.asnDb === null
      ? embedded!.asn
      : await loadUserFile({ kind: 'asn', path: options.asnDb, variable: 'ASN_DB', cacheDir }, log);
  return { tables: { geoip, asn }, dataSets: [dataSetInfo(geoip), dataSetInfo(asn)] };
}
