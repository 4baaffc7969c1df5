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
