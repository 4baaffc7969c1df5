// ip-api.com's JSON answer (`/json/{ip}?fields=…`, `POST /batch`) made from
// the GeoIP record and, when `mobile`, `proxy` or `hosting` is asked for,
// the detection's flags (docs/api.md, "ip-api format"). The members come in
// ip-api's own order whatever order `fields` names them in; `query` comes
// last, or first when `fields` is the numeric mask, as ip-api.com answers.
// A string ipintel has no datum for is "" (as ip-api answers an unknown),
// a number null. Failures are `{status: "fail", message, query}`.
import { AppError, type ErrorResponse } from '../../kit/errors.js';
import { NO_PLACE_FIELDS, type GeoIpRecord, type PlaceFields } from '../../lookups/geoip/geoip.js';
import type { Ip } from '../../net/ip.js';
import { addressOf } from '../params.js';
import { IndexMemo } from '../../data/index-memo.js';
import { NONE } from '../../data/range-table.js';
import { countryName } from '../../lookups/geoip/continents.js';
import {
  BodyBytes,
  fragment,
  VerdictMemo,
  type RecordSlices,
  type Written,
} from './record-slices.js';
import {
  continentOfCountry,
  ForeignAnswer,
  isPrivateRange,
  type PrivacyFlags,
} from './record-parts.js';

/** ip-api's fields in the order its answers hold them, with their bit in the numeric mask. */
const IP_API_FIELDS = [
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

type IpApiField = (typeof IP_API_FIELDS)[number][0];

const BIT = new Map<string, number>(IP_API_FIELDS);
const STATUS = 16384;
const MESSAGE = 32768;
const QUERY = 8192;
/** what ip-api answers without `fields`: status … as, query */
const DEFAULT_MASK = 61439;
/** the fields that need the detection's flags */
const FLAG_BITS = 65536 | 131072 | 16777216;

/** Which fields an answer holds, and whether `query` leads (a numeric mask). */
export interface FieldSelection {
  mask: number;
  queryFirst: boolean;
}

const DEFAULT_SELECTION: FieldSelection = { mask: DEFAULT_MASK, queryFirst: false };

/** `fields` as ip-api reads it: absent → the default; digits → the mask; else names (unknown ones ignored). */
export function fieldSelection(fields: string | undefined): FieldSelection {
  if (fields === undefined || fields === '') return DEFAULT_SELECTION;
  if (/^\d+$/.test(fields)) return { mask: Number(fields) % 2 ** 26, queryFirst: true };
  let mask = 0;
  for (const name of fields.split(',')) mask |= BIT.get(name.trim()) ?? 0;
  return { mask, queryFirst: false };
}

/** Whether an answer with these fields reads the detection's flags. */
function needsFlags(selection: FieldSelection): boolean {
  return (selection.mask & FLAG_BITS) !== 0;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat | null>();

/** The zone's offset from UTC now, in seconds, DST included (ip-api's `offset`), or null. */
function utcOffsetSeconds(timezone: string, now: Date = new Date()): number | null {
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
type Values = Partial<Record<IpApiField, Value>>;

/** The members of a place (continent … zip, then the time zone apart: it comes after lat, lon). */
function placeValues(p: PlaceFields): Values {
  const continent = p.country === null ? null : continentOfCountry(p.country);
  return {
    continent: continent?.name ?? '',
    continentCode: continent?.code ?? '',
    country: p.country === null ? '' : (countryName(p.country) ?? ''),
    countryCode: p.country ?? '',
    region: '',
    regionName: p.region ?? '',
    city: p.city ?? '',
    district: '',
    zip: '',
  };
}

/** The time zone and, when asked for, its offset now (never kept: DST moves it). */
function zoneValues(timezone: string | null, mask: number): Values {
  return {
    timezone: timezone ?? '',
    offset: (mask & OFFSET) === 0 || timezone === null ? null : utcOffsetSeconds(timezone),
  };
}

/** The members of an AS record. */
function networkValues(n: { asn: string | null; org: string | null; isp: string | null }): Values {
  return {
    currency: '',
    isp: n.isp ?? '',
    org: n.org ?? '',
    as: n.asn === null ? '' : n.org === null ? n.asn : `${n.asn} ${n.org}`,
    asname: '',
    reverse: '',
  };
}

function flagValues(flags: PrivacyFlags | null): Values {
  return {
    mobile: flags?.isMobile ?? false,
    proxy: flags === null ? false : flags.isProxy || flags.isVpn || flags.isTor || flags.isRelay,
    hosting: flags?.isHosting ?? false,
  };
}

const OFFSET = 33554432;

/** The members of `v` the mask holds, in ip-api's order, as JSON text (no braces; `query` apart). */
function membersText(v: Values, mask: number): string {
  let out = '';
  for (const [name, bit] of IP_API_FIELDS) {
    if ((mask & bit) === 0 || bit === QUERY) continue;
    const value = v[name];
    if (value === undefined || (bit === MESSAGE && value === null)) continue;
    if (out !== '') out += ',';
    out += `"${name}":${JSON.stringify(value)}`;
  }
  return out;
}

/** The whole answer from its parts' texts: `query` first or last as the selection says. */
function assemble(parts: string, query: string | null, selection: FieldSelection): string {
  const { mask, queryFirst } = selection;
  if ((mask & QUERY) === 0 || query === null) return `{${parts}}`;
  const member = `"query":${JSON.stringify(query)}`;
  if (parts === '') return `{${member}}`;
  return queryFirst ? `{${member},${parts}}` : `{${parts},${member}}`;
}

function written(v: Values, selection: FieldSelection): string {
  return assemble(
    membersText(v, selection.mask),
    (v.query as string | undefined) ?? null,
    selection,
  );
}

/** The success answer of a public address, from its whole record. */
export function ipApiJson(
  geo: GeoIpRecord,
  flags: PrivacyFlags | null,
  selection: FieldSelection,
): string {
  return written(
    {
      status: 'success',
      ...placeValues(geo),
      lat: geo.latitude,
      lon: geo.longitude,
      ...zoneValues(geo.timezone, selection.mask),
      ...networkValues(geo),
      ...flagValues(flags),
      query: geo.ip,
    },
    selection,
  );
}

/** The texts of one selection's parts, made once per place, AS record and verdict. */
interface SelectionMemo {
  places: IndexMemo<string>;
  zones: IndexMemo<string>;
  networks: IndexMemo<string>;
  verdicts: VerdictMemo<string>;
  /** the parts of an address without a place, without an AS record */
  noPlace: string;
  noZone: string;
  noNetwork: string;
}

/**
 * At most this many selections keep memos: a client asks with one or a few,
 * and each selection's memos grow with the places and AS records asked for
 * (~10 MB over 50,000 places), so a client cycling through selections would
 * multiply that. Past these, a selection is written from the whole record
 * (the same answer, slower; nothing kept).
 */
const MAX_SELECTIONS = 4;

function selectionMemo(slices: RecordSlices, mask: number): SelectionMemo {
  const text = (values: Values) => fragment(membersText(values, mask));
  const noNetwork = { asn: null, org: null, isp: null };
  return {
    places: new IndexMemo((i) => text(placeValues(slices.place(i)))),
    zones: new IndexMemo((i) => text(zoneValues(slices.place(i).timezone, 0))),
    networks: new IndexMemo((i) => {
      const n = slices.network(i);
      return text(networkValues(n === null ? noNetwork : { ...n, asn: `AS${n.asn}` }));
    }),
    verdicts: new VerdictMemo((flags) => text(flagValues(flags))),
    noPlace: text(placeValues(NO_PLACE_FIELDS)),
    noZone: text(zoneValues(null, 0)),
    noNetwork: text(networkValues(noNetwork)),
  };
}

/**
 * The success answer of a public address as ipApiJson writes it: from the
 * record's slices (a place's, an AS's and a verdict's members made once per
 * selection), or from the whole record where slices do not speak for it.
 */
export function ipApiWriter(
  slices: RecordSlices,
  whole: (ip: Ip, flags: boolean) => { geo: GeoIpRecord; flags: PrivacyFlags | null },
): (ip: Ip, selection: FieldSelection) => Written {
  const memos = new Map<string, SelectionMemo>();
  const out = new BodyBytes();
  return (ip, selection) => {
    const { mask, queryFirst } = selection;
    const flagged = needsFlags(selection);
    const key = queryFirst ? `${mask}q` : String(mask);
    let memo = memos.get(key);
    if (memo === undefined && memos.size < MAX_SELECTIONS) {
      memo = selectionMemo(slices, mask);
      memos.set(key, memo);
    }
    const s = memo === undefined ? null : slices.of(ip, flagged);
    if (memo === undefined || s === null) {
      const { geo, flags } = whole(ip, flagged);
      return { body: ipApiJson(geo, flags, selection), encoding: 'utf8' };
    }
    const query = (mask & QUERY) !== 0;
    out.begin();
    if (query && queryFirst) out.next().ascii('"query":"').ascii(ip.text).ascii('"');
    if ((mask & STATUS) !== 0) out.next().ascii('"status":"success"');
    out.member(s.place === NONE ? memo.noPlace : memo.places.get(slices.placeTables, s.place));
    if ((mask & LAT) !== 0) out.next().ascii('"lat":').coordinate(s.latitude);
    if ((mask & LON) !== 0) out.next().ascii('"lon":').coordinate(s.longitude);
    if ((mask & OFFSET) !== 0) {
      // the offset changes with DST: written now, never kept
      out.member(fragment(membersText(zoneValues(slices.place(s.place).timezone, mask), mask)));
    } else {
      out.member(s.place === NONE ? memo.noZone : memo.zones.get(slices.placeTables, s.place));
    }
    out.member(
      s.network === NONE ? memo.noNetwork : memo.networks.get(slices.networkTables, s.network),
    );
    if (flagged) out.member(memo.verdicts.get(s.verdict));
    if (query && !queryFirst) out.next().ascii('"query":"').ascii(ip.text).ascii('"');
    return out.close().done();
  };
}

const LAT = 64;
const LON = 128;

/** ip-api's failure of one query: `{status: "fail", message, query}` (as the mask allows). */
export function ipApiFail(message: string, query: string, selection: FieldSelection): string {
  // status and message are always there on a failure; query as the mask says
  return written(
    { status: 'fail', message, query },
    { ...selection, mask: selection.mask | STATUS | MESSAGE },
  );
}

/** The address of a query, or null for text that is none (ip-api's "invalid query"). */
export function ipApiAddress(text: string): Ip | null {
  return addressOf(text);
}

/** ip-api's failure message for a bogon: "private range" or "reserved range". */
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
interface IpApiBatchItem {
  query: string;
  fields?: string;
}

/**
 * The batch body: a JSON array of strings or `{query, fields, lang}` objects
 * (null: not that), or PAYLOAD_TOO_LARGE for more than `maxItems` of them,
 * told before any is read.
 */
export function parseIpApiBatch(text: string, maxItems: number): IpApiBatchItem[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  if (parsed.length > maxItems) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The batch holds ${parsed.length} queries; the limit is ${maxItems} per request (BATCH_MAX_ITEMS).`,
    );
  }
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
