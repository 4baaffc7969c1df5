// What a reader of the exported files must find for an address, given what
// the API answers for it (GET /ip/:ip and /ip/:ip/vpn): the comparison the
// exactness tests make, in one place.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import type { GeoIpRecord } from '../../src/lookups/geoip/geoip.js';
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import { EXPORT_FILES } from '../../src/kit/export-files.js';

type Json = Record<string, unknown>;

export interface ExportReaders {
  city: Reader<Json>;
  asn: Reader<Json>;
  anonymous: Reader<Json>;
}

export function openExport(dir: string): ExportReaders {
  const open = (name: string) => new Reader<Json>(readFileSync(join(dir, name)));
  return {
    city: open(EXPORT_FILES.city),
    asn: open(EXPORT_FILES.asn),
    anonymous: open(EXPORT_FILES.anonymous),
  };
}

function at(record: unknown, ...path: (string | number)[]): unknown {
  let value = record;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return null;
    value = (value as Record<string | number, unknown>)[key];
  }
  return value ?? null;
}

/** The API's answers as a reader of the three files sees them. */
export function readBack(readers: ExportReaders, address: string) {
  const city = readers.city.get(address);
  const asn = readers.asn.get(address);
  const anon = readers.anonymous.get(address);
  const number = at(asn, 'autonomous_system_number');
  return {
    country: at(city, 'country', 'iso_code'),
    region: at(city, 'subdivisions', 0, 'names', 'en'),
    city: at(city, 'city', 'names', 'en'),
    latitude: at(city, 'location', 'latitude'),
    longitude: at(city, 'location', 'longitude'),
    accuracyRadius: at(city, 'location', 'accuracy_radius'),
    timezone: at(city, 'location', 'time_zone'),
    asn: typeof number === 'number' ? `AS${number}` : null,
    org: at(asn, 'autonomous_system_organization'),
    isVpn: at(anon, 'is_anonymous_vpn') === true,
    isHosting: at(anon, 'is_hosting_provider') === true,
    isTor: at(anon, 'is_tor_exit_node') === true,
    isPublicProxy: at(anon, 'is_public_proxy') === true,
    isMobile: at(anon, 'is_mobile') === true,
    provider: at(anon, 'provider'),
    reasons: (at(anon, 'reasons') as string[] | null) ?? [],
  };
}

/** What readBack must give for the API's two answers. */
export function expected(g: GeoIpRecord, d: VpnDetection) {
  const flagged = d.isVpn || d.isProxy || d.isHosting || d.isMobile || d.isTor;
  const listed = flagged || d.provider !== null;
  return {
    country: g.country,
    region: g.region,
    city: g.city,
    latitude: g.latitude,
    longitude: g.longitude,
    // MaxMind's accuracy_radius: the answer's radius, for an answer with a point
    accuracyRadius: g.latitude === null ? null : g.accuracyRadiusKm,
    timezone: g.timezone,
    asn: g.asn,
    org: g.org,
    isVpn: d.isVpn,
    isHosting: d.isHosting,
    isTor: d.isTor,
    // MaxMind keeps Tor exits apart from public proxies; the API counts a Tor exit as a proxy
    isPublicProxy:
      d.isProxy &&
      (!d.isTor || d.reasons.some((r) => r.startsWith('proxy-list:') || r.startsWith('override:'))),
    isMobile: d.isMobile,
    provider: d.provider,
    reasons: listed ? d.reasons : [],
  };
}

export function assertSame(
  readers: ExportReaders,
  address: string,
  g: GeoIpRecord,
  d: VpnDetection,
  seed: number,
): void {
  assert.deepEqual(
    readBack(readers, address),
    expected(g, d),
    `${address} (TEST_SEED=${seed} replays this run)`,
  );
}
