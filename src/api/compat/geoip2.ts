// MaxMind's GeoIP2 web service answers (`/geoip/v2.1/{country,city,insights}/{ip}`)
// made from the GeoIP record and, for Insights, the detection's flags, in the
// record layout MaxMind's clients parse (docs/api.md, "MaxMind GeoIP2 web
// service format"). What ipintel has no datum for (geoname ids, postal codes,
// the registered country, the network's prefix) is absent, as MaxMind leaves
// out what it does not know; a detection flag is present only when true, as
// MaxMind sends it. Failures are MaxMind's `{code, error}`.
import type { ErrorResponse } from '../../kit/errors.js';
import type { GeoIpRecord, PlaceFields } from '../../lookups/geoip/geoip.js';
import type { Ip } from '../../net/ip.js';
import { addressOf } from '../params.js';
import { IndexMemo } from '../../data/index-memo.js';
import { NONE } from '../../data/range-table.js';
import { countryName } from '../../lookups/geoip/continents.js';
import { NO_COORDINATE } from '../../lookups/geoip/compiled-set.js';
import {
  BodyBytes,
  EMPTY,
  fragment,
  VerdictMemo,
  type RecordSlices,
  type Written,
} from './record-slices.js';
import { continentOfCountry, ForeignAnswer, type PrivacyFlags } from './record-parts.js';

export type GeoIp2Service = 'country' | 'city' | 'insights';

type Names = { names: { en: string } };
const named = (name: string): Names => ({ names: { en: name } });

function maxmindError(code: string, message: string): string {
  return JSON.stringify({ code, error: message });
}

function refusal(status: number, code: string, message: string): ForeignAnswer {
  return new ForeignAnswer(status === 404 ? 'NOT_FOUND' : 'INVALID_IP', {
    status,
    body: maxmindError(code, message),
  });
}

/** The address of the path (`me`: the caller's), or MaxMind's IP_ADDRESS_INVALID. */
export function geoip2Address(text: string, caller: Ip): Ip {
  if (text === 'me') return caller;
  const ip = addressOf(text);
  if (ip === null) {
    throw refusal(
      400,
      'IP_ADDRESS_INVALID',
      `The value "${text.slice(0, 64)}" is not a valid IP address.`,
    );
  }
  return ip;
}

/**
 * The answer of one service for an address: a bogon is IP_ADDRESS_RESERVED,
 * an address the data knows nothing of (no country, network or coordinates)
 * IP_ADDRESS_NOT_FOUND.
 */
export function geoip2Record(
  service: GeoIp2Service,
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
): Record<string, unknown> {
  if (geo.bogon) throw reserved(geo.ip);
  if (geo.country === null && geo.asn === null && geo.latitude === null) throw notFound(geo.ip);
  const place = placeParts(service, geo);
  const out: Record<string, unknown> = { ...place.head };
  if (service !== 'country') {
    const location = locationOf(geo);
    if (location !== null) out['location'] = location;
  }
  Object.assign(out, place.tail);
  const asn = geo.asn === null ? null : Number(geo.asn.slice(2));
  out['traits'] = {
    ip_address: geo.ip,
    ...networkTraits(service, asn, geo.org, geo.isp),
    ...flagTraits(service, flags),
  };
  return out;
}

function reserved(ip: string): ForeignAnswer {
  return refusal(
    400,
    'IP_ADDRESS_RESERVED',
    `The IP address '${ip}' is a reserved IP address (private, multicast, etc.).`,
  );
}

function notFound(ip: string): ForeignAnswer {
  return refusal(404, 'IP_ADDRESS_NOT_FOUND', `The address ${ip} is not in our database.`);
}

/** A place's members before `location` (city, continent, country) and after it (subdivisions). */
function placeParts(
  service: GeoIp2Service,
  p: PlaceFields,
): { head: Record<string, unknown>; tail: Record<string, unknown> } {
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  const detailed = service !== 'country';
  if (detailed && p.city !== null) head['city'] = named(p.city);
  if (p.country !== null) {
    const continent = continentOfCountry(p.country);
    if (continent !== null) head['continent'] = { code: continent.code, ...named(continent.name) };
    const name = countryName(p.country);
    head['country'] =
      name === null ? { iso_code: p.country } : { iso_code: p.country, ...named(name) };
  }
  if (detailed && p.region !== null) tail['subdivisions'] = [named(p.region)];
  return { head, tail };
}

/** MaxMind's radius: whole kilometres, at least 1. */
const maxmindRadius = (km: number): number => Math.max(1, Math.round(km));

function locationOf(geo: GeoIpRecord): Record<string, unknown> | null {
  const location: Record<string, unknown> = {};
  const radius = geo.accuracyRadiusKm;
  if (typeof radius === 'number' && Number.isFinite(radius)) {
    location['accuracy_radius'] = maxmindRadius(radius);
  }
  if (geo.latitude !== null && geo.longitude !== null) {
    location['latitude'] = geo.latitude;
    location['longitude'] = geo.longitude;
  }
  if (geo.timezone !== null) location['time_zone'] = geo.timezone;
  return Object.keys(location).length === 0 ? null : location;
}

function networkTraits(
  service: GeoIp2Service,
  asn: number | null,
  org: string | null,
  isp: string | null,
): Record<string, unknown> {
  const traits: Record<string, unknown> = {};
  if (service === 'country') return traits;
  if (asn !== null) {
    traits['autonomous_system_number'] = asn;
    if (org !== null) traits['autonomous_system_organization'] = org;
  }
  if (isp !== null) traits['isp'] = isp;
  if (org !== null) traits['organization'] = org;
  return traits;
}

/** Insights' detection traits: a flag only when true, as MaxMind sends them. */
function flagTraits(service: GeoIp2Service, flags: PrivacyFlags | null): Record<string, unknown> {
  const traits: Record<string, unknown> = {};
  if (service !== 'insights' || flags === null) return traits;
  if (flags.isVpn || flags.isProxy || flags.isTor || flags.isHosting || flags.isRelay) {
    traits['is_anonymous'] = true;
  }
  if (flags.isVpn) traits['is_anonymous_vpn'] = true;
  if (flags.isHosting) traits['is_hosting_provider'] = true;
  if (flags.isProxy) traits['is_public_proxy'] = true;
  if (flags.isTor) traits['is_tor_exit_node'] = true;
  if (flags.isMobile) {
    traits['connection_type'] = 'Cellular';
    traits['user_type'] = 'cellular';
  } else if (flags.isHosting) traits['user_type'] = 'hosting';
  return traits;
}

/** An object's members as JSON text, each with its leading comma (nothing for none), as bytes. */
const commaRun = (value: Record<string, unknown>): string => {
  const text = JSON.stringify(value).slice(1, -1);
  return text.length === 0 ? EMPTY : fragment(`,${text}`);
};

const LOCATION = ',"location":';
const RADIUS = ',"accuracy_radius":';
const LATITUDE = ',"latitude":';
const LONGITUDE = ',"longitude":';
const TRAITS = ',"traits":{"ip_address":"';

/**
 * The members of a place and of an AS record as one service writes them,
 * made once per record: City and Insights write the same, and share them
 * (the memory a memo holds is bounded by the data's records, per memo).
 */
export interface GeoIp2Memos {
  places: IndexMemo<{ known: boolean; head: string; zone: string; tail: string }>;
  networks: IndexMemo<string>;
}

export function geoip2Memos(service: GeoIp2Service, slices: RecordSlices): GeoIp2Memos {
  return {
    places: new IndexMemo((index) => {
      const p = slices.place(index);
      const { head, tail } = placeParts(service, p);
      return {
        known: p.country !== null,
        head: commaRun(head),
        zone: p.timezone === null ? EMPTY : fragment(`,"time_zone":${JSON.stringify(p.timezone)}`),
        tail: commaRun(tail),
      };
    }),
    networks: new IndexMemo((index) => {
      const n = slices.network(index);
      return commaRun(networkTraits(service, n?.asn ?? null, n?.org ?? null, n?.isp ?? null));
    }),
  };
}

/**
 * The answer of one service, JSON.stringify(geoip2Record(…)) byte for byte:
 * from the record's slices (a place's, an AS's and a verdict's members made
 * once; the radius read per location), or from the whole record where slices
 * do not speak for the address. Every member is written with its leading
 * comma and the first comma of each object made its brace: the members
 * present vary per address, and this way no member asks whether one came
 * before it.
 */
export function geoip2Writer(
  service: GeoIp2Service,
  slices: RecordSlices,
  whole: (ip: Ip) => { geo: GeoIpRecord; flags: PrivacyFlags | null },
  { places, networks }: GeoIp2Memos = geoip2Memos(service, slices),
): (ip: Ip) => Written {
  const verdicts = new VerdictMemo((flags) => commaRun(flagTraits(service, flags)));
  const none = { known: false, head: EMPTY, zone: EMPTY, tail: EMPTY };
  const detailed = service !== 'country';
  const out = new BodyBytes();
  return (ip) => {
    const s = slices.of(ip, service === 'insights');
    if (s === null) {
      const { geo, flags } = whole(ip);
      return { body: JSON.stringify(geoip2Record(service, geo, flags)), encoding: 'utf8' };
    }
    const place = s.place === NONE ? none : places.get(slices.placeTables, s.place);
    const located = s.latitude !== NO_COORDINATE && s.longitude !== NO_COORDINATE;
    if (!place.known && s.network === NONE && s.latitude === NO_COORDINATE) throw notFound(ip.text);
    out.startRuns().ascii(place.head);
    if (detailed && (s.radiusKm !== null || located || place.zone.length !== 0)) {
      out.ascii(LOCATION);
      const location = out.offset;
      if (s.radiusKm !== null) out.ascii(RADIUS).wholeKm(maxmindRadius(s.radiusKm));
      if (located) {
        out.ascii(LATITUDE).coordinate(s.latitude);
        out.ascii(LONGITUDE).coordinate(s.longitude);
      }
      out.ascii(place.zone).brace(location).ascii('}');
    }
    out.ascii(place.tail).ascii(TRAITS).ascii(ip.text).ascii('"');
    if (s.network !== NONE) out.ascii(networks.get(slices.networkTables, s.network));
    if (service === 'insights') out.ascii(verdicts.get(s.verdict));
    // the body's first member (traits at least) began with a comma
    return out.ascii('}}').brace(0).done();
  };
}

/** The codes MaxMind's clients know for the pipeline's refusals. */
export function geoip2Failure(
  error: unknown,
  failure: ErrorResponse,
  missingKeyMessage: string,
): { status: number; body: string } {
  if (error instanceof ForeignAnswer) return error.answer;
  let code: string = failure.code;
  if (failure.code === 'UNAUTHORIZED') {
    code = failure.message === missingKeyMessage ? 'LICENSE_KEY_REQUIRED' : 'AUTHORIZATION_INVALID';
  } else if (failure.code === 'RATE_LIMITED') {
    // the clients' "out of queries" (geoip2.errors.OutOfQueriesError), at HTTP's own 429
    code = 'OUT_OF_QUERIES';
  }
  return { status: failure.status, body: maxmindError(code, failure.message) };
}
