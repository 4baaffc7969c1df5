// ip-api.com's JSON answer (`/json/{ip}?fields=…`, `POST /batch`) made from
// the GeoIP record and, when `mobile`, `proxy` or `hosting` is asked for,
// the detection's flags (docs/api.md, "ip-api format"). The members come in
// ip-api's own order whatever order `fields` names them in; `query` comes
// last, or first when `fields` is the numeric mask, as ip-api.com answers.
// A string ipintel has no datum for is "" (as ip-api answers an unknown),
// a number null. Failures are `{status: "fail", message, query}`.
import type { ErrorResponse } from '../../kit/errors.js';
import type { GeoIpRecord } from '../../lookups/geoip/geoip.js';
import { parseIp, type Ip } from '../../net/ip.js';
import {
  continentOfCountry,
  countryName,
  ForeignAnswer,
  isPrivateRange,
  type PrivacyFlags,
} from './record-parts.js';

/** ip-api's fields in the order its answers hold them, with their bit in the numeric mask. */
export const IP_API_FIELDS = [
  ['status', 16384],
  ['message', 32768],
  ['continent', 1048576],
  ['continentCode', 2097152],
  ['country', 1],
  ['countryCode', 2],
  ['region', 4],
  ['regionName', 8],
  ['city', 16],
  ['district', 524288],
  ['zip', 32],
  ['lat', 64],
  ['lon', 128],
  ['timezone', 256],
  ['offset', 33554432],
  ['currency', 8388608],
  ['isp', 512],
  ['org', 1024],
  ['as', 2048],
  ['asname', 4194304],
  ['reverse', 4096],
  ['mobile', 65536],
  ['proxy', 131072],
  ['hosting', 16777216],
  ['query', 8192],
] as const;

export type IpApiField = (typeof IP_API_FIELDS)[number][0];

const BIT = new Map<string, number>(IP_API_FIELDS);
const STATUS = 16384;
const MESSAGE = 32768;
const QUERY = 8192;
/** what ip-api answers without `fields`: status … as, query */
export const DEFAULT_MASK = 61439;
/** the fields that need the detection's flags */
const FLAG_BITS = 65536 | 131072 | 16777216;

/** Which fields an answer holds, and whether `query` leads (a numeric mask). */
export interface FieldSelection {
  mask: number;
  queryFirst: boolean;
}

export const DEFAULT_SELECTION: FieldSelection = { mask: DEFAULT_MASK, queryFirst: false };

/** `fields` as ip-api reads it: absent → the default; digits → the mask; else names (unknown ones ignored). */
export function fieldSelection(fields: string | undefined): FieldSelection {
  if (fields === undefined || fields === '') return DEFAULT_SELECTION;
  if (/^\d+$/.test(fields)) return { mask: Number(fields) % 2 ** 26, queryFirst: true };
  let mask = 0;
  for (const name of fields.split(',')) mask |= BIT.get(name.trim()) ?? 0;
  return { mask, queryFirst: false };
}

/** Whether an answer with these fields reads the detection's flags. */
export function needsFlags(selection: FieldSelection): boolean {
  return (selection.mask & FLAG_BITS) !== 0;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat | null>();

/** The zone's offset from UTC now, in seconds, DST included (ip-api's `offset`), or null. */
export function utcOffsetSeconds(timezone: string, now: Date = new Date()): number | null {
  let format = offsetFormats.get(timezone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
    } catch {
      format = null;
    }
    offsetFormats.set(timezone, format);
  }
  if (format === null) return null;
  const name = format.formatToParts(now).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (match === null) return null;
  if (match[1] === undefined) return 0;
  const seconds = Number(match[2]) * 3600 + Number(match[3]) * 60;
  return match[1] === '-' ? -seconds : seconds;
}

type Value = string | number | boolean | null;

function values(
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
  mask: number,
): Record<IpApiField, Value> {
  const country = geo.country;
  const continent = country === null ? null : continentOfCountry(country);
  return {
    status: 'success',
    message: null,
    continent: continent?.name ?? '',
    continentCode: continent?.code ?? '',
    country: country === null ? '' : (countryName(country) ?? ''),
    countryCode: country ?? '',
    region: '',
    regionName: geo.region ?? '',
    city: geo.city ?? '',
    district: '',
    zip: '',
    lat: geo.latitude,
    lon: geo.longitude,
    timezone: geo.timezone ?? '',
    offset:
      (mask & 33554432) === 0 || geo.timezone === null ? null : utcOffsetSeconds(geo.timezone),
    currency: '',
    isp: geo.isp ?? '',
    org: geo.org ?? '',
    as: geo.asn === null ? '' : geo.org === null ? geo.asn : `${geo.asn} ${geo.org}`,
    asname: '',
    reverse: '',
    mobile: flags?.isMobile ?? false,
    proxy: flags === null ? false : flags.isProxy || flags.isVpn || flags.isTor || flags.isRelay,
    hosting: flags?.isHosting ?? false,
    query: geo.ip,
  };
}

/** The members of `v` the selection holds, in ip-api's order, as JSON text. */
function written(v: Partial<Record<IpApiField, Value>>, selection: FieldSelection): string {
  const { mask, queryFirst } = selection;
  let out = '';
  if (queryFirst && (mask & QUERY) !== 0 && v.query !== undefined) {
    out = `"query":${JSON.stringify(v.query)}`;
  }
  for (const [name, bit] of IP_API_FIELDS) {
    if ((mask & bit) === 0 || (queryFirst && bit === QUERY)) continue;
    const value = v[name];
    if (value === undefined || (bit === MESSAGE && value === null)) continue;
    if (out !== '') out += ',';
    out += `"${name}":${JSON.stringify(value)}`;
  }
  return `{${out}}`;
}

/** The success answer of a public address. */
export function ipApiJson(
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
  selection: FieldSelection,
): string {
  return written(values(geo, flags, selection.mask), selection);
}

/** ip-api's failure of one query: `{status: "fail", message, query}` (as the mask allows). */
export function ipApiFail(message: string, query: string, selection: FieldSelection): string {
  // status and message are always there on a failure; query as the mask says
  return written(
    { status: 'fail', message, query },
    { ...selection, mask: selection.mask | STATUS | MESSAGE },
  );
}

/**
 * The address of a query, or ip-api's failure for it: "invalid query" for
 * text that is no address, "private range" / "reserved range" for a bogon
 * (`bogon` tells, from the GeoIP record).
 */
export function ipApiAddress(text: string): Ip | null {
  return text.includes('%') ? null : parseIp(text);
}

export function bogonMessage(ip: Ip): string {
  return isPrivateRange(ip) ? 'private range' : 'reserved range';
}

/** Any other failure on an ip-api route: ip-api's `{status: "fail", message}`, at its HTTP status. */
export function ipApiFailure(
  error: unknown,
  failure: ErrorResponse,
): { status: number; body: string } {
  if (error instanceof ForeignAnswer) return error.answer;
  return {
    status: failure.status,
    body: JSON.stringify({ status: 'fail', message: failure.message }),
  };
}

/** One element of ip-api's batch body: an address, or `{query, fields?, lang?}`. */
export interface IpApiBatchItem {
  query: string;
  fields?: string;
}

/** The batch body: a JSON array of strings or `{query, fields, lang}` objects (null: not that). */
export function parseIpApiBatch(text: string): IpApiBatchItem[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const items: IpApiBatchItem[] = [];
  for (const element of parsed) {
    if (typeof element === 'string') items.push({ query: element });
    else if (
      typeof element === 'object' &&
      element !== null &&
      typeof (element as { query?: unknown }).query === 'string'
    ) {
      const { query, fields } = element as { query: string; fields?: unknown };
      items.push(typeof fields === 'string' ? { query, fields } : { query });
    } else return null;
  }
  return items;
}
