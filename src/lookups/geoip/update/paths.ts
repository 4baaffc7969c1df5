// Where an update puts its compiled tables: read at every start, so apart
// from the updater (which loads the download, compile and check machinery).
import { join } from 'node:path';
import type { DataSetKind } from '../compiled-set.js';

export function updateTablesPath(dataDir: string, kind: DataSetKind): string {
  return join(dataDir, 'tables', `${kind}.update.tables`);
}

/**
 * GeoLite2 City as `update-data` fetched it with the operator's MaxMind key:
 * the second location source when GEOLITE2_CITY_DB names none.
 */
export function fetchedGeolite2Path(dataDir: string): string {
  return join(dataDir, 'geolite2-city.mmdb');
}

/**
 * A DB-IP update's source file (an unpacked MMDB), kept beside its tables
 * under its SHA-256, so that the location table reconciled with GeoLite2 can
 * be compiled from the newest DB-IP when GeoLite2 changes (update/dbip-sources.ts).
 */
export function keptSourcePath(dataDir: string, sha256: string): string {
  return join(dataDir, 'tables', `geoip.update-source-${sha256.slice(0, 16)}.mmdb`);
}
