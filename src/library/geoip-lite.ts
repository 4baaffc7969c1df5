// The answer of geoip-lite's `lookup(ip)`, made from the GeoIP record, so a
// geoip-lite user swaps one import: the same keys in the same order, the
// same empty values, null where geoip-lite answers null. geoip-lite (2.x)
// builds its object one way for IPv4 and another for IPv6 — the IPv6 one
// keeps `range: ''` and puts `eu` and `timezone` last — and so does this.
// What the data has no value for is what geoip-lite writes when its own data
// lacks it: `metro` 0 (no metro code); `area` is the record's accuracy radius
// (km), 0 where it has none.
import type { GeoIpRecord } from '../lookups/geoip/geoip.js';

export interface GeoipLiteAnswer {
  /** IPv4: the first and last address (as unsigned 32-bit numbers) of the range answering the same; IPv6: '' as in geoip-lite */
  range: [number, number] | '';
  /** ISO 3166-1 alpha-2, '' when unknown */
  country: string;
  /** the first-level subdivision ('' when unknown): see docs/library.md */
  region: string;
  /** '1' in a member state of the European Union, else '0' */
  eu: '0' | '1';
  /** IANA time zone, '' when unknown */
  timezone: string;
  city: string;
  /** [latitude, longitude] */
  ll: [number | null, number | null];
  /** always 0: the data has no metro codes */
  metro: number;
  /** the accuracy radius (km) around `ll`, 0 where the record has none (geoip-lite's meaning) */
  area: number;
}

/** The member states of the European Union (ISO 3166-1 alpha-2), since 1 February 2020. */
const EU = new Set([
  'AT', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IE', 'IT',
  'LV', 'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE',
]); // prettier-ignore

/**
 * geoip-lite's answer for a record, or null where geoip-lite answers null:
 * special-purpose addresses and addresses the data places nowhere.
 * `range`: the IPv4 range whose addresses answer this record (null for IPv6).
 * `regionCode`: the subdivision's code for the record's country and region name.
 */
export function geoipLiteAnswer(
  record: GeoIpRecord,
  range: readonly [number, number] | null,
  regionCode: (country: string, region: string) => string,
): GeoipLiteAnswer | null {
  const { country, region, city, timezone, latitude, longitude } = record;
  const area = record.accuracyRadiusKm ?? 0;
  if (record.bogon || (country === null && latitude === null && city === null)) return null;
  const code = country ?? '';
  const regionText = region === null || country === null ? '' : regionCode(country, region);
  const eu = EU.has(code) ? '1' : '0';
  if (range !== null) {
    return {
      range: [range[0], range[1]],
      country: code,
      region: regionText,
      eu,
      timezone: timezone ?? '',
      city: city ?? '',
      ll: [latitude, longitude],
      metro: 0,
      area,
    };
  }
  // geoip-lite's IPv6 object: its keys in the order it sets them
  return {
    range: '',
    country: code,
    region: regionText,
    city: city ?? '',
    ll: [latitude, longitude],
    metro: 0,
    area,
    eu,
    timezone: timezone ?? '',
  };
}
