// From a decoded MMDB record to the API's GeoIP record (docs/api.md, "Records"), in the layouts we
// accept: DB-IP Lite as packaged by ip-location-db (flat: country_code,
// state1, city, latitude, longitude; no time zone) and MaxMind's
// GeoIP2/GeoLite2 layout (country.iso_code, city.names.en, subdivisions[0],
// location.time_zone); MaxMind ASN/ISP records for the network. The compiler
// runs these once per distinct record; the JSON fragments it stores are
// what locationJson and networkJson write.
import type { TimezoneResolver } from './timezone.js';

export interface GeoLocation {
  country: string | null;
  city: string | null;
  region: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
}

/** Nothing known: the location of a bogon or of an address without a record. */
export const UNKNOWN_LOCATION: Readonly<GeoLocation> = {
  country: null,
  city: null,
  region: null,
  timezone: null,
  latitude: null,
  longitude: null,
};

/** Empty strings and DB-IP's "ZZ" (no country) are unknowns, not values. */
function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function country(value: unknown): string | null {
  const code = text(value);
  return code === null || code === 'ZZ' || !/^[A-Z]{2}$/.test(code) ? null : code;
}

/** MMDB stores coordinates as float32 (DB-IP) or double; 4 decimals is ~11 m, all the data holds. */
function coordinate(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 1e4) / 1e4 : null;
}

export type Mapper = (record: Record<string, unknown>) => GeoLocation;

function withTimezone(
  location: Omit<GeoLocation, 'timezone'>,
  given: string | null,
  resolveTimezone: TimezoneResolver,
): GeoLocation {
  let timezone = given;
  if (timezone === null && location.latitude !== null && location.longitude !== null) {
    timezone = resolveTimezone(location.latitude, location.longitude);
  }
  return { ...location, timezone };
}

export function dbipMapper(resolveTimezone: TimezoneResolver): Mapper {
  return (r) =>
    withTimezone(
      {
        country: country(r['country_code']),
        city: text(r['city']),
        region: text(r['state1']),
        latitude: coordinate(r['latitude']),
        longitude: coordinate(r['longitude']),
      },
      text(r['timezone']),
      resolveTimezone,
    );
}

const english = (value: unknown): string | null =>
  text((value as { names?: { en?: unknown } } | undefined)?.names?.en);

export function maxmindMapper(resolveTimezone: TimezoneResolver): Mapper {
  return (r) => {
    const location = (r['location'] ?? {}) as Record<string, unknown>;
    const subdivisions = r['subdivisions'] as unknown[] | undefined;
    return withTimezone(
      {
        country: country((r['country'] as { iso_code?: unknown } | undefined)?.iso_code),
        city: english(r['city']),
        region: english(subdivisions?.[0]),
        latitude: coordinate(location['latitude']),
        longitude: coordinate(location['longitude']),
      },
      text(location['time_zone']),
      resolveTimezone,
    );
  };
}

/**
 * The radius MaxMind's layout states for a record (`location.accuracy_radius`,
 * km); null where it states none. The reconciliation reads it (docs/data.md).
 */
export function maxmindStatedRadius(r: Record<string, unknown>): number | null {
  const km = (r['location'] as { accuracy_radius?: unknown } | undefined)?.accuracy_radius;
  return typeof km === 'number' && Number.isFinite(km) && km > 0 ? km : null;
}

/** `"country":…,"city":…,"region":…,"timezone":…,"latitude":…,"longitude":…` */
export function locationJson(l: GeoLocation): string {
  return `${placeJson(l)},"latitude":${l.latitude},"longitude":${l.longitude}`;
}

/** `"country":…,"city":…,"region":…,"timezone":…`: the part many locations share */
export function placeJson(l: GeoLocation): string {
  return `"country":${JSON.stringify(l.country)},"city":${JSON.stringify(l.city)},"region":${JSON.stringify(l.region)},"timezone":${JSON.stringify(l.timezone)}`;
}

/** The network part of an answer: who holds the AS. */
export interface AsnInfo {
  asn: number;
  /** the organisation holding the AS (or, from a MaxMind ISP database, the network's organisation) */
  org: string | null;
  /** only known from a MaxMind ISP database; otherwise null and the record reports org */
  isp: string | null;
}

/** A MaxMind GeoLite2/GeoIP2 ASN (or ISP) record; null when it names no AS. */
export function maxmindAsn(r: Record<string, unknown> | null): AsnInfo | null {
  const asn = r?.['autonomous_system_number'];
  if (r === null || typeof asn !== 'number') return null;
  return {
    asn,
    org: text(r['organization']) ?? text(r['autonomous_system_organization']),
    isp: text(r['isp']),
  };
}

/** `"isp":…,"asn":"AS…","org":…` */
export function networkJson(n: AsnInfo): string {
  return `"isp":${JSON.stringify(n.isp ?? n.org)},"asn":"AS${n.asn}","org":${JSON.stringify(n.org)}`;
}
