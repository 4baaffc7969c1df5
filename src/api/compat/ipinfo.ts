// ipinfo.io's answer (what `node-ipinfo` and ipinfo's other clients parse)
// made from the GeoIP record and the detection's flags (docs/api.md, "ipinfo
// format"): `loc` "lat,lon", `org` "AS<n> <name>", the `asn` and `privacy`
// objects; a field ipintel has no datum for is absent, as ipinfo leaves it
// out. A bogon is `{ip, bogon: true}`; a failure is ipinfo's
// `{status, error: {title, message}}`.
import type { ErrorResponse } from '../../kit/errors.js';
import type { GeoIpRecord } from '../../lookups/geoip/geoip.js';
import type { Ip } from '../../net/ip.js';
import { addressOf } from '../params.js';
import { IndexMemo } from '../../data/index-memo.js';
import { NONE } from '../../data/range-table.js';
import { NO_COORDINATE } from '../../lookups/geoip/compiled-set.js';
import { ForeignAnswer, type PrivacyFlags } from './record-parts.js';
import {
  BodyBytes,
  EMPTY,
  fragment,
  VerdictMemo,
  type RecordSlices,
  type Written,
} from './record-slices.js';

export interface IpinfoRecord {
  ip: string;
  bogon?: true;
  city?: string;
  region?: string;
  country?: string;
  loc?: string;
  org?: string;
  timezone?: string;
  asn?: { asn: string; name?: string };
  privacy?: {
    vpn: boolean;
    proxy: boolean;
    tor: boolean;
    relay: boolean;
    hosting: boolean;
    service: string;
  };
}

/** The ipinfo record of an address from its GeoIP record and detection flags. */
export function ipinfoRecord(geo: GeoIpRecord, flags: PrivacyFlags | null): IpinfoRecord {
  if (geo.bogon) return { ip: geo.ip, bogon: true };
  const out: IpinfoRecord = { ip: geo.ip };
  if (geo.city !== null) out.city = geo.city;
  if (geo.region !== null) out.region = geo.region;
  if (geo.country !== null) out.country = geo.country;
  if (geo.latitude !== null && geo.longitude !== null) {
    out.loc = `${geo.latitude.toFixed(4)},${geo.longitude.toFixed(4)}`;
  }
  if (geo.asn !== null) out.org = geo.org === null ? geo.asn : `${geo.asn} ${geo.org}`;
  if (geo.timezone !== null) out.timezone = geo.timezone;
  if (geo.asn !== null)
    out.asn = geo.org === null ? { asn: geo.asn } : { asn: geo.asn, name: geo.org };
  if (flags !== null) out.privacy = privacyOf(flags);
  return out;
}

/** ipinfo's `privacy` object of the detection's flags. */
function privacyOf(flags: PrivacyFlags): NonNullable<IpinfoRecord['privacy']> {
  return {
    vpn: flags.isVpn,
    proxy: flags.isProxy,
    tor: flags.isTor,
    relay: flags.isRelay,
    hosting: flags.isHosting,
    service: flags.provider ?? '',
  };
}

const member = (name: string, value: unknown): string => `"${name}":${JSON.stringify(value)}`;

/**
 * The ipinfo answer of an address as JSON text, JSON.stringify(ipinfoRecord(…))
 * byte for byte: from the record's slices (a place's, an AS's and a
 * verdict's text made once each), or from the whole record where slices do
 * not speak for the address.
 */
export function ipinfoWriter(
  slices: RecordSlices,
  whole: (ip: Ip) => { geo: GeoIpRecord; flags: PrivacyFlags },
): (ip: Ip) => Written {
  const places = new IndexMemo((index) => {
    const p = slices.place(index);
    const head: string[] = [];
    if (p.city !== null) head.push(member('city', p.city));
    if (p.region !== null) head.push(member('region', p.region));
    if (p.country !== null) head.push(member('country', p.country));
    return {
      head: fragment(head.join(',')),
      timezone: p.timezone === null ? EMPTY : fragment(member('timezone', p.timezone)),
    };
  });
  const networks = new IndexMemo((index) => {
    const n = slices.network(index);
    if (n === null) return { org: EMPTY, asn: EMPTY };
    const asn = `AS${n.asn}`;
    return {
      org: fragment(member('org', n.org === null ? asn : `${asn} ${n.org}`)),
      asn: fragment(member('asn', n.org === null ? { asn } : { asn, name: n.org })),
    };
  });
  const verdicts = new VerdictMemo((flags) => fragment(member('privacy', privacyOf(flags))));
  const out = new BodyBytes();
  return (ip) => {
    const s = slices.of(ip, true);
    if (s === null) {
      const { geo, flags } = whole(ip);
      return { body: JSON.stringify(ipinfoRecord(geo, flags)), encoding: 'utf8' };
    }
    const place = s.place === NONE ? null : places.get(slices.placeTables, s.place);
    const network = s.network === NONE ? null : networks.get(slices.networkTables, s.network);
    out.begin().next().ascii('"ip":"').ascii(ip.text).ascii('"');
    if (place !== null) out.member(place.head);
    if (s.latitude !== NO_COORDINATE && s.longitude !== NO_COORDINATE) {
      out.next().ascii('"loc":"').fixed(s.latitude).ascii(',').fixed(s.longitude).ascii('"');
    }
    if (network !== null) out.member(network.org);
    if (place !== null) out.member(place.timezone);
    if (network !== null) out.member(network.asn);
    return out.member(verdicts.get(s.verdict)).close().done();
  };
}

/** ipinfo's error body: `{status, error: {title, message}}`. */
function ipinfoError(status: number, title: string, message: string): string {
  return JSON.stringify({ status, error: { title, message } });
}

const WRONG_IP = { title: 'Wrong ip', message: 'Please provide a valid IP address' };

/** The address of a path segment, or ipinfo's 404 "Wrong ip". */
export function ipinfoAddress(text: string): Ip {
  const ip = addressOf(text);
  if (ip === null) {
    throw new ForeignAnswer('INVALID_IP', {
      status: 404,
      body: ipinfoError(404, WRONG_IP.title, WRONG_IP.message),
    });
  }
  return ip;
}

const TITLES: Partial<Record<ErrorResponse['code'], string>> = {
  UNAUTHORIZED: 'Unknown token',
  RATE_LIMITED: 'Rate limit exceeded',
  BAD_REQUEST: 'Bad request',
  PAYLOAD_TOO_LARGE: 'Too many IPs',
  UNSUPPORTED_MEDIA_TYPE: 'Bad request',
};

/** Any failure on an ipinfo route, in ipinfo's shape (a ForeignAnswer as it is). */
export function ipinfoFailure(
  error: unknown,
  failure: ErrorResponse,
): { status: number; body: string } {
  if (error instanceof ForeignAnswer) return error.answer;
  const title = TITLES[failure.code] ?? 'Error';
  return { status: failure.status, body: ipinfoError(failure.status, title, failure.message) };
}

/**
 * The fields `<ip>/<field>` may ask for (a batch entry, GET /ipinfo/{ip}/{field}):
 * the record's own, and ipinfo's `hostname` and `postal`, which ipintel has no
 * datum for (absent from every record, so answered empty).
 */
export const IPINFO_FIELDS: readonly string[] = [
  'ip',
  'hostname',
  'city',
  'region',
  'country',
  'loc',
  'org',
  'postal',
  'timezone',
  'asn',
  'privacy',
];
const FIELDS = new Set(IPINFO_FIELDS);

const wrongField = (field: string) => ({
  title: 'Wrong field',
  message: `ipintel has no field "${field.slice(0, 32)}"`,
});

/** A field of a record: its value (text or object), '' when the record lacks it. */
function fieldOf(record: IpinfoRecord, field: string): string | object {
  return (record as unknown as Record<string, string | object | undefined>)[field] ?? '';
}

/**
 * The answer to one entry of POST /ipinfo/batch: `<ip>` → the record,
 * `<ip>/<field>` → that field's value (its text, or the object), or an entry
 * ipinfo cannot answer → `{error: {title, message}}` in its place.
 */
export function ipinfoBatchEntry(
  entry: string,
  recordOf: (ip: Ip) => IpinfoRecord,
): IpinfoRecord | string | object {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const field = slash === -1 ? null : entry.slice(slash + 1);
  const ip = addressOf(address);
  if (ip === null) return { error: WRONG_IP };
  const record = recordOf(ip);
  if (field === null || field === 'json') return record;
  if (!FIELDS.has(field)) return { error: wrongField(field) };
  return fieldOf(record, field);
}

/**
 * GET /ipinfo/{ip}/{field} (and /ipinfo/{field} for the caller), as ipinfo
 * answers it: the value as a line of text, an object (`asn`, `privacy`) as
 * its JSON; an empty line for a field the record lacks; an unknown field is
 * ipinfo's 404 "Wrong field".
 */
export function ipinfoFieldText(record: IpinfoRecord, field: string): string {
  if (!FIELDS.has(field)) {
    const { title, message } = wrongField(field);
    throw new ForeignAnswer('NOT_FOUND', { status: 404, body: ipinfoError(404, title, message) });
  }
  const value = fieldOf(record, field);
  return `${typeof value === 'string' ? value : JSON.stringify(value)}\n`;
}
