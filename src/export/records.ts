// The API's records in the layouts the readers of MaxMind's files expect:
// GeoIP2/GeoLite2-City, GeoLite2-ASN and GeoIP2-Anonymous-IP (the field names
// of MaxMind's documentation), plus the CSV columns. Pure: a record in, the
// file's record out (null: the address has no record in that file).
import type { GeoIpRecord, PlaceFields } from '../lookups/geoip/geoip.js';
import type { VpnDetection } from '../lookups/vpn/detect.js';
import { CONTINENT_NAMES, continentOf, countryName } from '../lookups/geoip/continents.js';
import { MmdbDouble, MmdbUint, type MmdbValue } from './mmdb-data.js';

type MmdbMap = { [key: string]: MmdbValue };

/**
 * A nested value made once per distinct input and frozen: records share the
 * very object, and the data writer keeps the key of a frozen value rather
 * than make it again for each of 600,000 places (mmdb-data.ts).
 */
function memoised<V extends MmdbValue>(memo: Map<string, V>, key: string, make: () => V): V {
  let value = memo.get(key);
  if (value === undefined) {
    value = deepFreeze(make());
    memo.set(key, value);
  }
  return value;
}

function deepFreeze<V extends MmdbValue>(value: V): V {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner as MmdbValue);
    Object.freeze(value);
  }
  return value;
}

const cityValues = new Map<string, MmdbMap>();
const countryValues = new Map<string, MmdbMap>();
const continentValues = new Map<string, MmdbMap>();
const subdivisionValues = new Map<string, readonly MmdbValue[]>();

/**
 * The City record's members that every location of a place shares: all but
 * `location` (the export writes them once per place and points at them from
 * each location's record: mmdb-data.ts's MapTemplate).
 */
export function cityPlaceMembers(p: PlaceFields): MmdbMap {
  const out: MmdbMap = {};
  const city = p.city;
  if (city !== null) out['city'] = memoised(cityValues, city, () => ({ names: { en: city } }));
  const country = p.country;
  if (country !== null) {
    const continent = continentOf(country);
    if (continent !== null) {
      out['continent'] = memoised(continentValues, continent, () => ({
        code: continent,
        names: { en: CONTINENT_NAMES[continent]! },
      }));
    }
    out['country'] = memoised(countryValues, country, () => {
      const name = countryName(country);
      return { iso_code: country, ...(name === null ? {} : { names: { en: name } }) };
    });
  }
  const region = p.region;
  if (region !== null) {
    out['subdivisions'] = memoised(subdivisionValues, region, () => [{ names: { en: region } }]);
  }
  return out;
}

/** The member of a City record a location adds to its place's. */
export const CITY_LOCATION = 'location';

/** MaxMind's `accuracy_radius` is a uint16 */
const MAX_ACCURACY_RADIUS = 0xffff;

/**
 * A City record's `location`: the coordinates, their accuracy radius (km,
 * MaxMind's meaning: the answer's accuracyRadiusKm) and the place's time
 * zone; null when it has none.
 */
export function cityLocation(
  timezone: string | null,
  latitude: number | null,
  longitude: number | null,
  accuracyRadiusKm: number | null = null,
): MmdbMap | null {
  if (latitude === null && longitude === null && timezone === null) return null;
  const location: MmdbMap = {};
  if (accuracyRadiusKm !== null && latitude !== null) {
    location['accuracy_radius'] = new MmdbUint(16, Math.min(accuracyRadiusKm, MAX_ACCURACY_RADIUS));
  }
  if (latitude !== null) location['latitude'] = new MmdbDouble(latitude);
  if (longitude !== null) location['longitude'] = new MmdbDouble(longitude);
  if (timezone !== null) location['time_zone'] = timezone;
  return location;
}

/**
 * The City record of a GeoIP answer: its place and coordinates; null when it
 * has none (a bogon has none, unless an override gives its range a place).
 */
export function cityRecord(r: GeoIpRecord): MmdbMap | null {
  const out = cityPlaceMembers(r);
  const location = cityLocation(r.timezone, r.latitude, r.longitude, r.accuracyRadiusKm);
  if (location !== null) out[CITY_LOCATION] = location;
  return Object.keys(out).length === 0 ? null : out;
}

/** The ASN record of a GeoIP answer (GeoLite2-ASN's two fields), or null. */
export function asnRecord(r: GeoIpRecord): MmdbMap | null {
  if (r.asn === null && r.org === null) return null;
  const out: MmdbMap = {};
  if (r.asn !== null) out['autonomous_system_number'] = new MmdbUint(32, Number(r.asn.slice(2)));
  if (r.org !== null) out['autonomous_system_organization'] = r.org;
  return out;
}

/**
 * Whether a proxy flag is an open proxy's rather than only the Tor exit's
 * (the API counts a Tor exit as a proxy; MaxMind's layout keeps them apart).
 */
export function isPublicProxy(d: VpnDetection): boolean {
  return (
    d.isProxy &&
    (!d.isTor || d.reasons.some((r) => r.startsWith('proxy-list:') || r.startsWith('override:')))
  );
}

/**
 * The Anonymous IP record of a detection answer: MaxMind's flags, then the
 * service's own (`is_mobile`, `provider`, `confidence`, `reasons`); null when
 * no flag is set and no provider named (as MaxMind's file, which holds only
 * flagged networks).
 */
export function anonymousRecord(d: VpnDetection): MmdbMap | null {
  if (!d.isVpn && !d.isProxy && !d.isHosting && !d.isMobile && !d.isTor && d.provider === null) {
    return null;
  }
  return {
    is_anonymous: d.isVpn || d.isProxy || d.isTor,
    is_anonymous_vpn: d.isVpn,
    is_hosting_provider: d.isHosting,
    is_public_proxy: isPublicProxy(d),
    is_residential_proxy: false,
    is_tor_exit_node: d.isTor,
    is_mobile: d.isMobile,
    ...(d.provider === null ? {} : { provider: d.provider }),
    confidence: d.confidence,
    reasons: [...d.reasons],
  };
}

export const CSV_HEADER =
  'start,end,cidr,country,region,city,latitude,longitude,timezone,asn,org,isp,' +
  'is_vpn,is_proxy,is_hosting,is_mobile,is_tor,provider,confidence,reasons';

const NEEDS_QUOTES = /[",\r\n]/;

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvLine(values: readonly (string | number | boolean | null)[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) line += ',';
    const value = values[i]!;
    if (value === null) continue;
    const text = typeof value === 'string' ? value : String(value);
    line += NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }
  return line;
}

/** The CSV's place columns of a GeoIP answer. */
export function placeCsv(g: GeoIpRecord): string {
  return placeCsvOf(g)(g.latitude, g.longitude);
}

/**
 * The CSV's place columns of each location of one place: the place's columns
 * quoted once, the coordinates (numbers: never quoted) put between them.
 */
export function placeCsvOf(
  p: PlaceFields,
): (latitude: number | null, longitude: number | null) => string {
  const head = csvLine([p.country, p.region, p.city]);
  const timezone = csvLine([p.timezone]);
  return (latitude, longitude) =>
    `${head},${latitude === null ? '' : String(latitude)},${longitude === null ? '' : String(longitude)},${timezone}`;
}

/** The CSV's network columns of a GeoIP answer. */
export function networkCsv(g: GeoIpRecord): string {
  return csvLine([g.asn, g.org, g.isp]);
}

/** The CSV's detection columns (reasons separated by spaces). */
export function detectionCsv(d: VpnDetection): string {
  return csvLine([
    d.isVpn,
    d.isProxy,
    d.isHosting,
    d.isMobile,
    d.isTor,
    d.provider,
    d.confidence,
    d.reasons.join(' '),
  ]);
}
