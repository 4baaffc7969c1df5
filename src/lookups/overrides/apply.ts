// What an override row does to an answer: the fields it sets replace the
// data's, the ones it leaves empty keep the data's. Pure.
import type { AsnInfo } from '../geoip/record-map.js';
import type { OverrideEntry } from './override-index.js';
import type { OverrideFields } from './rows.js';

/** The GeoIP record's fields an override may set (the GeoIP record of docs/api.md). */
export interface OverridableGeoRecord {
  country: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  /** the data's radius around its point: gone with the point it was measured for */
  accuracyRadiusKm?: number | null;
  timezone: string | null;
  isp: string | null;
  asn: string | null;
  org: string | null;
}

/** The detection record's fields an override may set; `provider` where the record has one. */
export interface OverridableDetection {
  isVpn: boolean;
  isProxy: boolean;
  isHosting: boolean;
  isMobile: boolean;
  confidence: string;
  asn: string | null;
  org: string | null;
  reasons: string[];
}

const GEO_TEXT = ['country', 'region', 'city', 'timezone', 'isp', 'org'] as const;
const FLAGS = ['isVpn', 'isProxy', 'isHosting', 'isMobile'] as const;

const PLACE = ['region', 'city', 'timezone', 'latitude', 'longitude'] as const;

/**
 * Sets the row's fields on a GeoIP record (in place; its key order is kept).
 * The data's values belong together: a row that moves an address to another
 * country drops the data's region, city, time zone and coordinates (those of
 * the old country), and a row naming another AS drops the data's org and isp,
 * unless the row sets them too.
 */
export function overrideGeoRecord<R extends OverridableGeoRecord>(record: R, f: OverrideFields): R {
  if (f.country !== undefined && f.country !== record.country) {
    for (const key of PLACE) record[key] = null;
  }
  if (f.asn !== undefined && `AS${f.asn}` !== record.asn) record.org = record.isp = null;
  for (const key of GEO_TEXT) {
    const value = f[key];
    if (value !== undefined) record[key] = value;
  }
  if (f.latitude !== undefined) record.latitude = f.latitude;
  if (f.longitude !== undefined) record.longitude = f.longitude;
  // an operator's point or another country: nothing measured says how near the data's radius is
  const moved =
    (f.country !== undefined && f.country !== record.country) ||
    f.latitude !== undefined ||
    f.longitude !== undefined;
  if (moved && record.accuracyRadiusKm !== undefined) record.accuracyRadiusKm = null;
  if (f.asn !== undefined) record.asn = `AS${f.asn}`;
  return record;
}

/**
 * The network an override names, over the data's: an AS number from the row
 * or the data (none from either: the data's answer stands, null or not).
 */
export function overrideNetwork(base: AsnInfo | null, f: OverrideFields): AsnInfo | null {
  if (f.asn === undefined && f.org === undefined && f.isp === undefined) return base;
  const asn = f.asn ?? base?.asn;
  if (asn === undefined) return base;
  // the data's names are those of its AS: not of another the row names
  const same = base !== null && base.asn === asn;
  return {
    asn,
    org: f.org ?? (same ? base.org : null),
    isp: f.isp ?? (same ? base.isp : null),
  };
}

/** Whether the row sets anything a detection record shows. */
function touchesDetection(f: OverrideFields): boolean {
  return (
    FLAGS.some((k) => f[k] !== undefined) ||
    f.asn !== undefined ||
    f.org !== undefined ||
    f.provider !== undefined
  );
}

/**
 * Sets the row's flags (the operator's word: confidence high), network and
 * provider on a detection record, and says so in `reasons` (`override:<label>`).
 */
export function overrideDetection<D extends OverridableDetection>(d: D, row: OverrideEntry): D {
  const f = row.fields;
  if (!touchesDetection(f)) return d;
  let flagged = false;
  for (const key of FLAGS) {
    const value = f[key];
    if (value === undefined) continue;
    d[key] = value;
    flagged = true;
  }
  if (flagged) d.confidence = 'high';
  if (f.asn !== undefined && `AS${f.asn}` !== d.asn) {
    d.asn = `AS${f.asn}`;
    d.org = null;
  }
  if (f.org !== undefined) d.org = f.org;
  // the detection record carries `provider` once the feeds name one (issue 23)
  if (f.provider !== undefined && 'provider' in d) {
    (d as { provider: string | null }).provider = f.provider;
  }
  d.reasons.push(`override:${row.label}`);
  return d;
}
