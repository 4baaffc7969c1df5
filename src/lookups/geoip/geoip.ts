// The GeoIP record (docs/api.md, "Records"), answered from the compiled tables: location
// from the GeoIP data set, network from the ASN data set. Every field is
// present; unknown values are null.
//
// Every answer (GET /ip/:ip, POST /batch, `ipintel enrich`) is written as
// bytes by writeJson: the address, the place and network texts serialised at
// compile time and copied from the tables' bytes, and the coordinates
// written digit by digit — no record object, no string in between.
import { Buffer } from 'node:buffer';
import {
  COORDINATE_SCALE,
  INFO_RADIUS_MASK,
  INFO_SOURCES_SHIFT,
  NO_COORDINATE,
  type CompiledSet,
} from './compiled-set.js';
import { IndexMemo } from '../../data/index-memo.js';
import { NONE } from '../../data/range-table.js';
import type { Ip } from '../../net/ip.js';
import { writeAscii } from '../../data/byte-writer.js';
import { isBogon } from './bogons.js';
import { overrideGeoRecord, overrideNetwork } from '../overrides/apply.js';
import { EMPTY_OVERRIDES, NO_OVERRIDE, type OverrideIndex } from '../overrides/override-index.js';
import type { OverrideFields } from '../overrides/rows.js';
import { UNKNOWN_LOCATION, placeJson, type AsnInfo, type GeoLocation } from './record-map.js';
import { GeofeedIndex, LOCATION_SOURCE } from '../geofeed/geofeed-index.js';

/** the override row's fields that place an address */
const PLACE_FIELDS = ['country', 'region', 'city', 'latitude', 'longitude', 'timezone'] as const;
const OVERRIDE_SOURCE = { [LOCATION_SOURCE]: 'override' };
/** no geofeeds: what a lookup without a geofeed holder reads */
const NO_GEOFEEDS = { current: GeofeedIndex.empty() };

export interface GeoIpRecord extends GeoLocation {
  ip: string;
  /**
   * the radius around the point within which the address lies for about two
   * answers in three (docs/data.md); null without a point or a calibrated radius
   */
  accuracyRadiusKm: number | null;
  /** the AS organisation unless an ISP database names the ISP */
  isp: string | null;
  /** `AS<number>` */
  asn: string | null;
  org: string | null;
  /** true for private, loopback, documentation and other special-purpose addresses */
  bogon: boolean;
}

/** The part of a GeoIP answer that every location of one place shares. */
export type PlaceFields = Pick<GeoIpRecord, 'country' | 'city' | 'region' | 'timezone'>;

/** the place fields of an address no location source places */
export const NO_PLACE_FIELDS: Readonly<PlaceFields> = {
  country: null,
  city: null,
  region: null,
  timezone: null,
};

interface FoundRecord {
  bogon: boolean;
  location: number;
  place: number;
  network: number;
}

export interface GeoTables {
  geoip: CompiledSet;
  asn: CompiledSet;
}

const NO_PLACE = placeJson(UNKNOWN_LOCATION);
const NO_NETWORK = '"isp":null,"asn":null,"org":null';
const RADIUS_KEY = ',"accuracyRadiusKm":';
/** the response envelope around the record */
const BODY_HEAD = '{"data":';
const RECORD_HEAD = '{"ip":"';
const RECORD_PUBLIC_TAIL = ',"bogon":false}';
const RECORD_BOGON_TAIL = ',"bogon":true}';

/**
 * A coordinate kept × 10^4, written at `at` as JSON writes the number
 * record-map.ts rounded it to (scaled / 10^4): the shortest decimal of a
 * value with at most four decimals is those decimals without trailing zeros.
 * Digits by integer arithmetic, not String(number). Room: 9 bytes; returns
 * the offset after them.
 */
export function writeCoordinate(out: Buffer, at: number, scaled: number): number {
  if (scaled === NO_COORDINATE) return writeAscii(out, at, 'null');
  const magnitude = scaled < 0 ? -scaled : scaled;
  const whole = Math.floor(magnitude / COORDINATE_SCALE);
  let fraction = magnitude - whole * COORDINATE_SCALE;
  // JSON writes -0 as 0: the sign only when something non-zero follows
  if (scaled < 0 && (whole !== 0 || fraction !== 0)) out[at++] = 0x2d; // -
  if (whole >= 100) out[at++] = 0x30 + Math.floor(whole / 100);
  if (whole >= 10) out[at++] = 0x30 + (Math.floor(whole / 10) % 10);
  out[at++] = 0x30 + (whole % 10);
  if (fraction === 0) return at;
  out[at++] = 0x2e; // .
  for (let unit = 1000; fraction !== 0; unit /= 10) {
    const digit = Math.floor(fraction / unit);
    out[at++] = 0x30 + digit;
    fraction -= digit * unit;
  }
  return at;
}

/** A whole number below 10^7 (a radius in km; 0 is written as null), as JSON writes it. */
export function writeRadius(out: Buffer, at: number, km: number): number {
  if (km === 0) return writeAscii(out, at, 'null');
  let unit = 1;
  while (unit * 10 <= km) unit *= 10;
  for (; unit >= 1; unit /= 10) out[at++] = 0x30 + (Math.floor(km / unit) % 10);
  return at;
}

/** The X-Location-Source header of each source set a reconciled table names, made once per table. */
function sourceHeaders(geoip: CompiledSet): readonly (Readonly<Record<string, string>> | null)[] {
  return (geoip.manifest.location?.decidedBy ?? []).map((text) =>
    text === '' ? null : { [LOCATION_SOURCE]: text },
  );
}

/**
 * Lookups over the tables a holder has now: a reload puts new tables in the
 * holder, and the next lookup answers from them (never a mix within one).
 */
export class GeoIpLookup {
  /** parsed ASN records of `networksOf`, made on first use (bounded by its record count) */
  private networks: (AsnInfo | undefined)[] = [];
  private networksOf: CompiledSet | null = null;

  constructor(
    private readonly holder: { readonly tables: GeoTables },
    /** the operator's overrides (OVERRIDES_FILE), read per lookup: a reload swaps them */
    readonly overrides: { readonly current: OverrideIndex } = { current: EMPTY_OVERRIDES },
    /** the compiled RFC 8805 geofeeds (src/lookups/geofeed/), read per lookup: a reload swaps them */
    readonly geofeeds: { readonly current: GeofeedIndex } = NO_GEOFEEDS,
  ) {}

  get tables(): GeoTables {
    return this.holder.tables;
  }

  /** The ASN record index of an address (NONE for none), for callers that memoise per record. */
  networkIndex(ip: Ip): number {
    if (isBogon(ip)) return NONE;
    const { table } = this.tables.asn;
    return ip.version === 4 ? table.findV4(ip.value) : table.findV6(ip.groups);
  }

  /**
   * The location and ASN record indexes of an address (NONE for none, both
   * for bogons, which `bogon` says): what its record comes from when no
   * override covers it, for callers that memoise per record (the export, the
   * library's record objects), in one search of each table. One object
   * reused: read it before the next lookup.
   */
  recordIndexes(
    ip: Ip,
  ): Readonly<{ location: number; place: number; network: number; bogon: boolean }> {
    return this.locate(ip);
  }

  /**
   * The record indexes of an address the tables alone answer for, or null
   * for a bogon and for an address an override or a geofeed covers (those
   * take the whole record's path, lookup()). Without overrides and geofeeds
   * the two checks are all this costs beyond the table lookup. Read the
   * result before the next call (one object reused).
   */
  tableIndexes(
    ip: Ip,
  ): Readonly<{ location: number; place: number; network: number; bogon: boolean }> | null {
    const found = this.locate(ip);
    if (found.bogon) return null;
    const overrides = this.overrides.current;
    if (overrides.size !== 0 && overrides.find(ip) !== NO_OVERRIDE) return null;
    if (this.fedAnswer(ip, found.place, false) !== NONE) return null;
    return found;
  }

  /**
   * The geofeed table's answer that places `ip` (its tables' place record
   * `place`), or NONE. A network's own geofeed always places it. A cloud's
   * documented region (the second layer) places it only where the tables
   * name another country: that corrects an address filed at the company's
   * seat, and where the tables agree on the country their place is finer
   * than a region's or as fine (the development truth's three cloud
   * addresses: DB-IP's point as near or nearer; docs/data.md).
   */
  fedAnswer(ip: Ip, place: number, bogon: boolean): number {
    const geofeeds = this.geofeeds.current;
    if (geofeeds.size === 0 || bogon) return NONE;
    const fed = geofeeds.find(ip);
    if (fed === NONE || !geofeeds.isCloudRegion(fed)) return fed;
    const country = place === NONE ? null : this.placeCountries.get(this.tables.geoip, place);
    return country !== null && country === geofeeds.location(fed).country ? NONE : fed;
  }

  /** the country of each place record, parsed once */
  private readonly placeCountries = new IndexMemo(
    (index: number): string | null => this.placeFields(index).country,
  );

  /**
   * The place fields of place record `index` (recordIndexes's `place`): what
   * every location of that place answers with besides its coordinates.
   */
  placeFields(index: number): PlaceFields {
    return JSON.parse(`{${this.tables.geoip.records.text(index)}}`) as PlaceFields;
  }

  /**
   * The coordinates of location `index` (recordIndexes's `location`) as the
   * answer's JSON reads: a scaled integer over 10^4 is the double nearest
   * the decimal writeCoordinate writes for it, as JSON.parse of that text is.
   */
  coordinatesAt(index: number): { latitude: number | null; longitude: number | null } {
    const locations = this.tables.geoip.locations!;
    const latitude = locations.latitude(index);
    const longitude = locations.longitude(index);
    return {
      latitude: latitude === NO_COORDINATE ? null : latitude / COORDINATE_SCALE,
      longitude: longitude === NO_COORDINATE ? null : longitude / COORDINATE_SCALE,
    };
  }

  /** The accuracy radius (km) of location `index`, as the answer's accuracyRadiusKm. */
  radiusAt(index: number): number | null {
    const radius = this.tables.geoip.locations!.infoOf(index) & INFO_RADIUS_MASK;
    return radius === 0 ? null : radius;
  }

  /** The AS holding an address (an override's, else the data's for a public one), or null. */
  network(ip: Ip): AsnInfo | null {
    const base = this.networkAt(this.networkIndex(ip));
    const row = this.overrides.current.rowOf(ip);
    return row === null ? base : overrideNetwork(base, row.fields);
  }

  /**
   * The routed IPv4 range of the ASN table holding `value` (one row: a
   * prefix, or neighbouring prefixes of one AS merged), with its AS; in a gap
   * the gap, with `asn: null`. For the vpn-range expansion, built on reload,
   * not per request.
   */
  routedV4(value: number): { start: number; end: number; asn: AsnInfo | null } {
    const row = this.tables.asn.table.rowV4(value);
    return { start: row.start, end: row.end, asn: this.networkAt(row.record) };
  }

  /** Each AS's routed IPv4 addresses in the ASN table (off the request path). */
  routedSizesV4(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [record, size] of this.tables.asn.table.v4SizesByRecord()) {
      const asn = this.networkAt(record)?.asn;
      if (asn !== undefined) out.set(asn, (out.get(asn) ?? 0) + size);
    }
    return out;
  }

  networkAt(index: number): AsnInfo | null {
    if (index === NONE) return null;
    if (this.networksOf !== this.tables.asn) {
      this.networksOf = this.tables.asn;
      this.networks = [];
    }
    let found = this.networks[index];
    if (found === undefined) {
      const r = JSON.parse(`{${this.tables.asn.records.text(index)}}`) as {
        isp: string | null;
        asn: string;
        org: string | null;
      };
      found = { asn: Number(r.asn.slice(2)), org: r.org, isp: r.isp };
      this.networks[index] = found;
    }
    return found;
  }

  /**
   * The whole response body of GET /ip/:ip, `{"data":<record>}`: its UTF-8
   * bytes written from the tables' bytes (never decoded into text), handed
   * out as a latin1 string, one char a byte — the one copy out of the scratch
   * buffer, and the form node:http writes together with the head.
   */
  body(ip: Ip): string {
    const scratch = this.scratch();
    let at = writeAscii(scratch, 0, BODY_HEAD);
    at = this.writeJson(ip, scratch, at);
    scratch[at++] = 0x7d; // }
    return scratch.toString('latin1', 0, at);
  }

  /** The record as JSON text (JSON.stringify(lookup(ip)), byte for byte). */
  json(ip: Ip): string {
    const scratch = this.scratch();
    return scratch.toString('utf8', 0, this.writeJson(ip, scratch, 0));
  }

  /** One buffer with room for any body of the current tables, written by each lookup in turn. */
  private scratch(): Buffer {
    const need = BODY_HEAD.length + this.maxJsonBytes() + 1;
    if (this.scratchBytes.length < need) this.scratchBytes = Buffer.allocUnsafeSlow(need);
    return this.scratchBytes;
  }

  private scratchBytes = Buffer.alloc(0);

  /**
   * Where an address's record comes from, in `this.found` (one object reused:
   * nothing allocated per lookup): its location index, place text index and
   * network record index, NONE where the data has none (and for bogons).
   */
  private locate(ip: Ip): FoundRecord {
    const found = this.found;
    found.location = NONE;
    found.place = NONE;
    found.network = NONE;
    found.bogon = isBogon(ip);
    if (found.bogon) return found;
    const { geoip, asn } = this.tables;
    const v4 = ip.version === 4;
    const l = v4 ? geoip.table.findV4(ip.value) : geoip.table.findV6(ip.groups);
    if (l !== NONE) {
      found.location = l;
      found.place = geoip.locations!.place(l);
    }
    found.network = v4 ? asn.table.findV4(ip.value) : asn.table.findV6(ip.groups);
    return found;
  }

  private readonly found: FoundRecord = {
    bogon: false,
    location: NONE,
    place: NONE,
    network: NONE,
  };

  /**
   * The most bytes writeJson can write for any address in the current tables
   * (the longest place and network texts, the longest address and coordinates).
   */
  maxJsonBytes(): number {
    const { geoip, asn } = this.tables;
    // 39: the longest IPv6 text; 12: room for the longest coordinate ("-180.1234")
    return (
      RECORD_HEAD.length +
      39 +
      2 +
      Math.max(geoip.records.longest, NO_PLACE.length) +
      2 * (',"longitude":'.length + 12) +
      RADIUS_KEY.length +
      7 +
      1 +
      Math.max(asn.records.longest, NO_NETWORK.length) +
      RECORD_BOGON_TAIL.length +
      this.overrides.current.extraBytes +
      this.geofeeds.current.longest
    );
  }

  /**
   * The record's JSON text (the bytes of json(ip)) written into `out` at
   * `at`, which has maxJsonBytes() of room; returns the offset after it. The
   * texts are copied from the tables' bytes, never decoded.
   */
  writeJson(ip: Ip, out: Buffer, at: number): number {
    // without overrides (the common case) this one check is all they cost
    const overrides = this.overrides.current;
    if (overrides.size !== 0) {
      const row = overrides.find(ip);
      if (row !== NO_OVERRIDE) {
        const fields = overrides.rows[row]!.fields;
        const end = this.writeOverridden(ip, fields, out, at);
        if (PLACE_FIELDS.some((key) => fields[key] !== undefined)) {
          this.source = OVERRIDE_SOURCE;
        }
        return end;
      }
    }
    return this.writeData(ip, out, at);
  }

  /**
   * Where the location of the answer just written came from, as its
   * X-Location-Source header: a geofeed (`geofeed=<id>`), the operator's
   * overrides (`override`), or null for the GeoIP data set. Read right after
   * body() or json(), before the next lookup.
   */
  locationSource(): Readonly<Record<string, string>> | null {
    return this.source;
  }

  private source: Readonly<Record<string, string>> | null = null;

  /** An address an override covers: the data's record, parsed, the row's fields set, written. */
  private writeOverridden(ip: Ip, fields: OverrideFields, out: Buffer, at: number): number {
    const need = this.maxJsonBytes();
    if (this.dataScratch.length < need) this.dataScratch = Buffer.allocUnsafeSlow(need);
    const end = this.writeData(ip, this.dataScratch, 0);
    const record = JSON.parse(this.dataScratch.toString('utf8', 0, end)) as GeoIpRecord;
    return at + out.write(JSON.stringify(overrideGeoRecord(record, fields)), at, 'utf8');
  }

  private dataScratch = Buffer.alloc(0);
  /** the X-Location-Source headers of `headersOf`'s source sets */
  private headers: readonly (Readonly<Record<string, string>> | null)[] = [];
  private headersOf: CompiledSet | null = null;

  /** The record the data makes (no override), written as writeJson writes. */
  private writeData(ip: Ip, out: Buffer, at: number): number {
    const { geoip, asn } = this.tables;
    const found = this.locate(ip);
    at = writeAscii(out, at, RECORD_HEAD);
    at = writeAscii(out, at, ip.text);
    out[at++] = 0x22; // "
    out[at++] = 0x2c; // ,
    let latitude = NO_COORDINATE;
    let longitude = NO_COORDINATE;
    let radius = 0;
    // a geofeed covering the address places it (without one, this one check)
    const geofeeds = this.geofeeds.current;
    const fed = this.fedAnswer(ip, found.place, found.bogon);
    this.source = fed === NONE ? null : geofeeds.headers(fed);
    if (fed !== NONE) {
      const place = geofeeds.placeBytes(fed);
      at += place.copy(out, at);
      const location = geofeeds.location(fed);
      latitude = location.latitude;
      longitude = location.longitude;
      if (latitude !== NO_COORDINATE) radius = geoip.manifest.location?.geofeedRadiusKm ?? 0;
    } else if (found.location === NONE) {
      at = writeAscii(out, at, NO_PLACE);
    } else {
      at = geoip.records.write(found.place, out, at);
      latitude = geoip.locations!.latitude(found.location);
      longitude = geoip.locations!.longitude(found.location);
      const info = geoip.locations!.infoOf(found.location);
      radius = info & INFO_RADIUS_MASK;
      if (this.headersOf !== geoip) {
        this.headersOf = geoip;
        this.headers = sourceHeaders(geoip);
      }
      this.source = this.headers[info >>> INFO_SOURCES_SHIFT] ?? null;
    }
    at = writeAscii(out, at, ',"latitude":');
    at = writeCoordinate(out, at, latitude);
    at = writeAscii(out, at, ',"longitude":');
    at = writeCoordinate(out, at, longitude);
    at = writeAscii(out, at, RADIUS_KEY);
    at = writeRadius(out, at, radius);
    out[at++] = 0x2c; // ,
    if (found.network === NONE) at = writeAscii(out, at, NO_NETWORK);
    else at = asn.records.write(found.network, out, at);
    at = writeAscii(out, at, found.bogon ? RECORD_BOGON_TAIL : RECORD_PUBLIC_TAIL);
    return at;
  }

  lookup(ip: Ip): GeoIpRecord {
    return JSON.parse(this.json(ip)) as GeoIpRecord;
  }
}

export function createGeoIpLookup(
  holder: { readonly tables: GeoTables },
  overrides?: { readonly current: OverrideIndex },
  geofeeds?: { readonly current: GeofeedIndex },
): GeoIpLookup {
  return new GeoIpLookup(holder, overrides, geofeeds);
}
