// The GeoIP record in slices, for the compatible formats' hot path: an
// address's answer is made of its place (country, region, city, time zone),
// its coordinates, its AS record and the detection's verdict, so each format
// writes the text of a place, of an AS and of a verdict once (memos indexed
// by the tables' own record numbers, bounded by the data, as the /ip answer's
// fragments are) and only the address and coordinates per request. An
// address an override or a geofeed covers, or a bogon, has no slices: the
// formats build it from the whole record instead (the same answer, slower).
import { Buffer } from 'node:buffer';
import { writeAscii } from '../../data/byte-writer.js';
import { NONE } from '../../data/range-table.js';
import { COORDINATE_SCALE, NO_COORDINATE } from '../../lookups/geoip/compiled-set.js';
import {
  writeCoordinate,
  writeRadius,
  NO_PLACE_FIELDS,
  type GeoIpLookup,
  type PlaceFields,
} from '../../lookups/geoip/geoip.js';
import type { AsnInfo } from '../../lookups/geoip/record-map.js';
import type { VpnJson } from '../../lookups/vpn/record-json.js';
import type { Ip } from '../../net/ip.js';
import type { PrivacyFlags } from './record-parts.js';

/** An address's slices: read them before the next call (one object reused). */
interface Slices {
  /** the place record (NONE: no location) */
  place: number;
  /** × COORDINATE_SCALE, NO_COORDINATE when unknown */
  latitude: number;
  longitude: number;
  /** the accuracy radius (km) of the location, null without one (GeoIpLookup.radiusAt) */
  radiusKm: number | null;
  /** the AS record (NONE: none) */
  network: number;
  /** the verdict's text (VpnJson.members), when asked for */
  verdict: string;
}

/** Per verdict text, a value made once (the texts are few: one per feed set and AS record). */
export class VerdictMemo<T> {
  private readonly values = new Map<string, T>();
  constructor(private readonly make: (flags: PrivacyFlags) => T) {}

  get(verdict: string): T {
    let value = this.values.get(verdict);
    if (value === undefined) {
      // the texts are few; a bound all the same, whatever the feeds hold
      if (this.values.size >= 50_000) this.values.clear();
      value = this.make(JSON.parse(`{${verdict}}`) as PrivacyFlags);
      this.values.set(verdict, value);
    }
    return value;
  }
}

/**
 * The flags of GET /ip/:ip/vpn for an address: the verdict text VpnJson
 * memoises per feed set and AS record, parsed once per distinct text; an
 * address it builds whole (a bogon, an override) is detected as the route does.
 */
export function privacyFlags(vpnJson: VpnJson): (ip: Ip) => PrivacyFlags {
  const parsed = new VerdictMemo((flags) => flags);
  return (ip) => {
    const members = vpnJson.members(ip);
    return members === null ? vpnJson.detection(ip) : parsed.get(members);
  };
}

export class RecordSlices {
  private readonly slices: Slices = {
    place: NONE,
    latitude: NO_COORDINATE,
    longitude: NO_COORDINATE,
    radiusKm: null,
    network: NONE,
    verdict: '',
  };

  constructor(
    readonly geoip: GeoIpLookup,
    private readonly vpnJson: VpnJson,
  ) {}

  /**
   * The slices of an address (with the verdict when `verdict`), or null when
   * they do not speak for it: a bogon, an address an override or geofeed
   * covers, or one whose verdict VpnJson builds whole.
   */
  of(ip: Ip, verdict: boolean): Slices | null {
    const { geoip } = this;
    const found = geoip.tableIndexes(ip);
    if (found === null) return null;
    const s = this.slices;
    s.place = found.place;
    s.network = found.network;
    if (found.location === NONE) {
      s.latitude = NO_COORDINATE;
      s.longitude = NO_COORDINATE;
      s.radiusKm = null;
    } else {
      const locations = geoip.tables.geoip.locations!;
      s.latitude = locations.latitude(found.location);
      s.longitude = locations.longitude(found.location);
      s.radiusKm = geoip.radiusAt(found.location);
    }
    if (verdict) {
      const members = this.vpnJson.members(ip, found.network);
      if (members === null) return null;
      s.verdict = members;
    }
    return s;
  }

  /**
   * The place fields of a place record (NONE: none known), parsed from the
   * table's text at each call: the formats ask once per place to make their
   * own texts, which they keep; keeping the objects too would hold a second
   * copy of every place asked for.
   */
  place(index: number): PlaceFields {
    return index === NONE ? NO_PLACE_FIELDS : this.geoip.placeFields(index);
  }

  network(index: number): AsnInfo | null {
    return this.geoip.networkAt(index);
  }

  /** the tables the place and AS memos of the formats are keyed on */
  get placeTables(): object {
    return this.geoip.tables.geoip;
  }

  get networkTables(): object {
    return this.geoip.tables.asn;
  }
}

/** An answer's body: UTF-8 bytes as a latin1 string (one char a byte) and their count, or a string. */
export interface Written {
  body: string;
  bytes?: number;
  encoding: 'utf8' | 'latin1';
}

/** The answer's text, whichever form it was written in. */
export function writtenText(written: Written): string {
  return written.encoding === 'latin1'
    ? Buffer.from(written.body, 'latin1').toString('utf8')
    : written.body;
}

/**
 * A fragment of JSON text as the memos keep it: its UTF-8 bytes as a latin1
 * string (one char a byte), which V8 stores in a byte a char — a fraction of
 * what a Buffer per fragment costs, for tens of thousands of places.
 */
export const fragment = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

export const EMPTY = '';

/**
 * A body written as bytes into one scratch buffer, as the GET /ip answer is
 * (src/lookups/geoip/geoip.ts): memoised fragments (members without their
 * comma) copied, the address and coordinates written in place, the commas
 * between members put where they belong; handed out as one latin1 string.
 */
export class BodyBytes {
  private out = Buffer.allocUnsafeSlow(4096);
  private at = 0;
  /** per open object: whether it has no member yet */
  private readonly empty: boolean[] = [];

  /** Starts a body (an object). */
  begin(): this {
    this.at = 0;
    this.empty.length = 0;
    this.empty.push(true);
    return this.ascii('{');
  }

  /**
   * Starts a body written as runs of members each with its leading comma
   * (`,"a":1,"b":2`, with ascii()): no comma bookkeeping per member; the
   * first member's comma becomes the opening brace (`brace`).
   */
  startRuns(): this {
    this.at = 0;
    this.empty.length = 0;
    return this;
  }

  /** where the next byte goes */
  get offset(): number {
    return this.at;
  }

  /** Makes the comma at `at` (the first of a run of members) an object's opening brace. */
  brace(at: number): this {
    this.out[at] = 0x7b; // {
    return this;
  }

  /** A member whose value is an object, from its head (`"name":{`); closed by close(). */
  open(head: string): this {
    this.next().ascii(head);
    this.empty.push(true);
    return this;
  }

  close(): this {
    this.empty.pop();
    return this.ascii('}');
  }

  /** A memoised member (or several, comma-separated: a fragment); nothing for an empty one. */
  member(text: string): this {
    if (text.length === 0) return this;
    return this.next().ascii(text);
  }

  /** Starts a member written in pieces: its comma when it is not the object's first. */
  next(): this {
    const last = this.empty.length - 1;
    if (this.empty[last] === true) this.empty[last] = false;
    else this.ascii(',');
    return this;
  }

  /** ASCII text, or a fragment's bytes (one char a byte) */
  ascii(text: string): this {
    this.room(text.length);
    this.at = writeAscii(this.out, this.at, text);
    return this;
  }

  /** a scaled coordinate as JSON writes the record's number */
  coordinate(scaled: number): this {
    this.room(12);
    this.at = writeCoordinate(this.out, this.at, scaled);
    return this;
  }

  /** a whole number of kilometres (a radius, ≥ 1) */
  wholeKm(km: number): this {
    this.room(8);
    this.at = writeRadius(this.out, this.at, km);
    return this;
  }

  /** a scaled coordinate with four decimals ("37.4220"), as toFixed(4) writes the number */
  fixed(scaled: number): this {
    this.room(10);
    const out = this.out;
    let at = this.at;
    const magnitude = scaled < 0 ? -scaled : scaled;
    const whole = Math.floor(magnitude / COORDINATE_SCALE);
    let fraction = magnitude - whole * COORDINATE_SCALE;
    if (scaled < 0) out[at++] = 0x2d; // -
    if (whole >= 100) out[at++] = 0x30 + Math.floor(whole / 100);
    if (whole >= 10) out[at++] = 0x30 + (Math.floor(whole / 10) % 10);
    out[at++] = 0x30 + (whole % 10);
    out[at++] = 0x2e; // .
    for (let unit = 1000; unit >= 1; unit /= 10) {
      const digit = Math.floor(fraction / unit);
      out[at++] = 0x30 + digit;
      fraction -= digit * unit;
    }
    this.at = at;
    return this;
  }

  done(): Written {
    return { body: this.out.toString('latin1', 0, this.at), bytes: this.at, encoding: 'latin1' };
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.out.length * 2, this.at + bytes));
    this.out.copy(bigger, 0, 0, this.at);
    this.out = bigger;
  }
}
