// MaxMind's GeoIP2 web service answers (`/geoip/v2.1/{country,city,insights}/{ip}`)
// made from the GeoIP record and, for Insights, the detection's flags, in the
// record layout MaxMind's clients parse (docs/api.md, "MaxMind GeoIP2 web
// service format"). What ipintel has no datum for (geoname ids, postal codes,
// the registered country, the network's prefix) is absent, as MaxMind leaves
// out what it does not know; a detection flag is present only when true, as
// MaxMind sends it. Failures are MaxMind's `{code, error}`.
import type { ErrorResponse } from '../../kit/errors.js';
import type { GeoIpRecord } from '../../lookups/geoip/geoip.js';
import { parseIp, type Ip } from '../../net/ip.js';
import {
  continentOfCountry,
  countryName,
  ForeignAnswer,
  type PrivacyFlags,
} from './record-parts.js';

export type GeoIp2Service = 'country' | 'city' | 'insights';

type Names = { names: { en: string } };
const named = (name: string): Names => ({ names: { en: name } });

/** The GeoIP record with the radius another part of ipintel may carry (km), when it does. */
type WithRadius = GeoIpRecord & { accuracyRadiusKm?: number | null };

export function maxmindError(code: string, message: string): string {
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
  const ip = text.includes('%') ? null : parseIp(text);
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
 * an address the data knows nothing of (no country, no network) IP_ADDRESS_NOT_FOUND.
 */
export function geoip2Record(
  service: GeoIp2Service,
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
): Record<string, unknown> {
  if (geo.bogon) {
    throw refusal(
      400,
      'IP_ADDRESS_RESERVED',
      `The IP address '${geo.ip}' is a reserved IP address (private, multicast, etc.).`,
    );
  }
  if (geo.country === null && geo.asn === null && geo.latitude === null) {
    throw refusal(404, 'IP_ADDRESS_NOT_FOUND', `The address ${geo.ip} is not in our database.`);
  }
  const out: Record<string, unknown> = {};
  const detailed = service !== 'country';
  if (detailed && geo.city !== null) out['city'] = named(geo.city);
  if (geo.country !== null) {
    const continent = continentOfCountry(geo.country);
    if (continent !== null) out['continent'] = { code: continent.code, ...named(continent.name) };
    const name = countryName(geo.country);
    out['country'] =
      name === null ? { iso_code: geo.country } : { iso_code: geo.country, ...named(name) };
  }
  if (detailed) {
    const location = locationOf(geo);
    if (location !== null) out['location'] = location;
    if (geo.region !== null) out['subdivisions'] = [named(geo.region)];
  }
  out['traits'] = traitsOf(service, geo, flags);
  return out;
}

function locationOf(geo: WithRadius): Record<string, unknown> | null {
  const location: Record<string, unknown> = {};
  // MaxMind's radius is whole kilometres
  const radius = geo.accuracyRadiusKm;
  if (typeof radius === 'number' && Number.isFinite(radius)) {
    location['accuracy_radius'] = Math.max(1, Math.round(radius));
  }
  if (geo.latitude !== null && geo.longitude !== null) {
    location['latitude'] = geo.latitude;
    location['longitude'] = geo.longitude;
  }
  if (geo.timezone !== null) location['time_zone'] = geo.timezone;
  return Object.keys(location).length === 0 ? null : location;
}

function traitsOf(
  service: GeoIp2Service,
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
): Record<string, unknown> {
  const traits: Record<string, unknown> = {};
  if (service !== 'country' && geo.asn !== null) {
    traits['autonomous_system_number'] = Number(geo.asn.slice(2));
    if (geo.org !== null) traits['autonomous_system_organization'] = geo.org;
  }
  if (service === 'insights' && flags !== null) {
    const anonymous =
      flags.isVpn || flags.isProxy || flags.isTor || flags.isHosting || flags.isRelay;
    if (anonymous) traits['is_anonymous'] = true;
    if (flags.isVpn) traits['is_anonymous_vpn'] = true;
    if (flags.isHosting) traits['is_hosting_provider'] = true;
    if (flags.isProxy) traits['is_public_proxy'] = true;
    if (flags.isTor) traits['is_tor_exit_node'] = true;
  }
  traits['ip_address'] = geo.ip;
  if (service !== 'country') {
    if (geo.isp !== null) traits['isp'] = geo.isp;
    if (geo.org !== null) traits['organization'] = geo.org;
  }
  if (service === 'insights' && flags !== null) {
    if (flags.isMobile) {
      traits['connection_type'] = 'Cellular';
      traits['user_type'] = 'cellular';
    } else if (flags.isHosting) traits['user_type'] = 'hosting';
  }
  return traits;
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
