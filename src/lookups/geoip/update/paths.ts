// Where an update puts its compiled tables: read at every start, so apart
// from the updater (which loads the download, compile and check machinery).
import { statSync } from 'node:fs';
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

/** IPinfo Lite as `update-data` fetched it with the operator's IPINFO_TOKEN. */
export function fetchedIpinfoLitePath(dataDir: string): string {
  return join(dataDir, 'ipinfo-lite.mmdb');
}

/** IP2Location LITE DB11 as `update-data` fetched it: the IPv4 and the IPv6 ZIP. */
export function fetchedDb11Paths(dataDir: string): { v4: string; v6: string } {
  return {
    v4: join(dataDir, 'ip2location-db11.zip'),
    v6: join(dataDir, 'ip2location-db11-ipv6.zip'),
  };
}

/** The opt-in source files in use (null: that source is not). */
export interface OptInFiles {
  geolite2: string | null;
  ipinfoLite: string | null;
  db11: { v4: string; v6: string } | null;
}

/** `path` when a file is there (an update fetched it), else null. */
function fetchedFile(path: string): string | null {
  try {
    return statSync(path).isFile() ? path : null;
  } catch {
    return null;
  }
}

/** Both DB11 files when both are there. */
function fetchedDb11(dataDir: string): OptInFiles['db11'] {
  const { v4, v6 } = fetchedDb11Paths(dataDir);
  return fetchedFile(v4) !== null && fetchedFile(v6) !== null ? { v4, v6 } : null;
}

/**
 * The operator's opt-in sources in use: GEOLITE2_CITY_DB (named on purpose,
 * it wins over the fetched copy) or the GeoLite2 City fetched with the
 * MaxMind key, the IPinfo Lite fetched with IPINFO_TOKEN and the
 * IP2Location LITE DB11 fetched with IP2LOCATION_TOKEN.
 */
export function optInFiles(dataDir: string, geolite2CityDb: string | null): OptInFiles {
  return {
    geolite2: geolite2CityDb ?? fetchedFile(fetchedGeolite2Path(dataDir)),
    ipinfoLite: fetchedFile(fetchedIpinfoLitePath(dataDir)),
    db11: fetchedDb11(dataDir),
  };
}
