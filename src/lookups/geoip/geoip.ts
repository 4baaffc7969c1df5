// The GeoIP record of SPEC.md, answered from the compiled tables: location
// from the GeoIP data set, network from the ASN data set. Every field is
// present; unknown values are null.
//
// The hot path (GET /ip/:ip) never builds the record: the response body is
// one string assembled from the address, the place and network texts
// serialised at compile time, and the coordinates.
import { NO_COORDINATE, type CompiledSet } from '../../data/compiled-set.js';
import { NONE } from '../../data/range-table.js';
import type { Ip } from '../../net/ip.js';
import { copyBytes, writeAscii } from '../../data/byte-writer.js';
import { isBogon } from './bogons.js';
import { UNKNOWN_LOCATION, placeJson, type AsnInfo, type GeoLocation } from './record-map.js';

export interface GeoIpRecord extends GeoLocation {
  ip: string;
  /** the AS organisation unless an ISP database names the ISP */
  isp: string | null;
  /** `AS<number>` */
  asn: string | null;
  org: string | null;
  /** true for private, loopback, documentation and other special-purpose addresses */
  bogon: boolean;
}

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
const HEAD = '{"data":{"ip":"';
const PUBLIC_TAIL = ',"bogon":false}}';
const BOGON_TAIL = ',"bogon":true}}';
/** the bytes of the body's fixed parts: HEAD, `",`, the coordinate keys and the comma */
const FIXED_BYTES = HEAD.length + 2 + ',"latitude":'.length + ',"longitude":'.length + 1;
/** the same record without the envelope */
const RECORD_HEAD = '{"ip":"';
const RECORD_PUBLIC_TAIL = ',"bogon":false}';
const RECORD_BOGON_TAIL = ',"bogon":true}';

/**
 * A coordinate kept × 10^4, written as JSON writes the number record-map.ts
 * rounded it to (scaled / 10^4): the shortest decimal of a value with at most
 * four decimals is those decimals without trailing zeros. Integer arithmetic
 * instead of String(number), which was a tenth of the hot path's own time.
 */
export function coordinateText(scaled: number): string {
  if (scaled === NO_COORDINATE) return 'null';
  const sign = scaled < 0 ? '-' : '';
  const magnitude = scaled < 0 ? -scaled : scaled;
  const whole = Math.floor(magnitude / 10_000);
  let fraction = magnitude - whole * 10_000;
  if (fraction === 0) return `${whole === 0 ? '' : sign}${whole}`;
  let digits = 4;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits--;
  }
  return `${sign}${whole}.${String(fraction).padStart(digits, '0')}`;
}

/** coordinateText's bytes written at `at` (room: 9 bytes); returns the offset after them. */
export function writeCoordinate(out: Buffer, at: number, scaled: number): number {
  if (scaled === NO_COORDINATE) return writeAscii(out, at, 'null');
  const magnitude = scaled < 0 ? -scaled : scaled;
  const whole = Math.floor(magnitude / 10_000);
  let fraction = magnitude - whole * 10_000;
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

/**
 * Lookups over the tables a holder has now: a reload puts new tables in the
 * holder, and the next lookup answers from them (never a mix within one).
 */
export class GeoIpLookup {
  /** parsed ASN records of `networksOf`, made on first use (bounded by its record count) */
  private networks: (AsnInfo | undefined)[] = [];
  private networksOf: CompiledSet | null = null;

  /** decoded place and network texts by record index, when `memoTexts` (see createGeoIpLookup) */
  private texts: {
    of: GeoTables;
    place: (string | undefined)[];
    network: (string | undefined)[];
  } | null = null;

  constructor(
    private readonly holder: { readonly tables: GeoTables },
    private readonly memoTexts = false,
  ) {}

  /** The decoded texts of the current tables (a reload starts afresh). */
  private memo(): { place: (string | undefined)[]; network: (string | undefined)[] } {
    const tables = this.tables;
    if (this.texts?.of !== tables) this.texts = { of: tables, place: [], network: [] };
    return this.texts;
  }

  get tables(): GeoTables {
    return this.holder.tables;
  }

  /** The ASN record index of an address (NONE for none), for callers that memoise per record. */
  networkIndex(ip: Ip): number {
    if (isBogon(ip)) return NONE;
    const { table } = this.tables.asn;
    return ip.version === 4 ? table.findV4(ip.value) : table.findV6(ip.groups);
  }

  /** The AS holding a public address, or null. */
  network(ip: Ip): AsnInfo | null {
    return this.networkAt(this.networkIndex(ip));
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
   * The whole response body of GET /ip/:ip, `{"data":<record>}`, with its
   * UTF-8 length: a string, so that node:http writes head and body in one
   * write; the record texts are decoded from the tables' bytes each time
   * (cheaper than keeping ~300,000 strings alive on the heap).
   */
  body(ip: Ip): { text: string; bytes: number } {
    return this.build(ip, HEAD, PUBLIC_TAIL, BOGON_TAIL);
  }

  /**
   * The record as JSON text (JSON.stringify(lookup(ip)), byte for byte), built
   * as such rather than cut out of the body (a slice of a concatenation makes
   * V8 flatten it: a third of the cost).
   */
  json(ip: Ip): string {
    return this.build(ip, RECORD_HEAD, RECORD_PUBLIC_TAIL, RECORD_BOGON_TAIL).text;
  }

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
      found.place = geoip.placeOf![l]!;
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

  /** The record's text between a head (up to the address) and one of two tails. */
  private build(
    ip: Ip,
    head: string,
    publicTail: string,
    bogonTail: string,
  ): { text: string; bytes: number } {
    const { geoip, asn } = this.tables;
    const found = this.locate(ip);
    const memo = this.memoTexts ? this.memo() : null;
    let place = NO_PLACE;
    let placeBytes = NO_PLACE.length;
    let network = NO_NETWORK;
    let networkBytes = NO_NETWORK.length;
    // the coordinates as JSON.stringify writes them (null, or the rounded number)
    let latitude = 'null';
    let longitude = 'null';
    if (found.location !== NONE) {
      const p = found.place;
      const records = geoip.records;
      place = memo === null ? records.text(p) : (memo.place[p] ??= records.text(p));
      placeBytes = records.end(p) - records.start(p);
      const coordinates = geoip.coordinates!;
      latitude = coordinateText(coordinates[2 * found.location]!);
      longitude = coordinateText(coordinates[2 * found.location + 1]!);
    }
    const n = found.network;
    if (n !== NONE) {
      network = memo === null ? asn.records.text(n) : (memo.network[n] ??= asn.records.text(n));
      networkBytes = asn.records.end(n) - asn.records.start(n);
    }
    const tail = found.bogon ? bogonTail : publicTail;
    // ip.text is canonical (digits, hex, dots, colons): nothing to escape, one byte a character
    const text = `${head}${ip.text}",${place},"latitude":${latitude},"longitude":${longitude},${network}${tail}`;
    const bytes =
      FIXED_BYTES -
      HEAD.length +
      head.length +
      ip.text.length +
      placeBytes +
      latitude.length +
      longitude.length +
      networkBytes +
      tail.length;
    return { text, bytes };
  }

  /**
   * The most bytes writeJson can write for any address in the current tables
   * (the longest place and network texts, the longest address and coordinates).
   */
  maxJsonBytes(): number {
    const tables = this.tables;
    if (this.maxBytes?.of !== tables) {
      const longest = (records: CompiledSet['records']): number => {
        let max = 0;
        for (let i = 0; i < records.count; i++)
          max = Math.max(max, records.end(i) - records.start(i));
        return max;
      };
      const place = Math.max(longest(tables.geoip.records), NO_PLACE.length);
      const network = Math.max(longest(tables.asn.records), NO_NETWORK.length);
      // 39: the longest IPv6 text; 12: the longest coordinate ("-180.1234" and room)
      const bytes =
        RECORD_HEAD.length +
        39 +
        2 +
        place +
        2 * (',"latitude":'.length + 12) +
        1 +
        network +
        RECORD_BOGON_TAIL.length;
      this.maxBytes = { of: tables, bytes };
    }
    return this.maxBytes.bytes;
  }

  private maxBytes: { of: GeoTables; bytes: number } | null = null;

  /**
   * The record's JSON text (the bytes of json(ip)) written into `out` at
   * `at`, which has maxJsonBytes() of room; returns the offset after it. The
   * texts are copied from the tables' bytes, never decoded: the bulk path of
   * `ipintel enrich`.
   */
  writeJson(ip: Ip, out: Buffer, at: number): number {
    const { geoip, asn } = this.tables;
    const found = this.locate(ip);
    at = writeAscii(out, at, RECORD_HEAD);
    at = writeAscii(out, at, ip.text);
    out[at++] = 0x22; // "
    out[at++] = 0x2c; // ,
    let latitude = NO_COORDINATE;
    let longitude = NO_COORDINATE;
    if (found.location === NONE) {
      at = writeAscii(out, at, NO_PLACE);
    } else {
      const records = geoip.records;
      at = copyBytes(records.bytes, records.start(found.place), records.end(found.place), out, at);
      latitude = geoip.coordinates![2 * found.location]!;
      longitude = geoip.coordinates![2 * found.location + 1]!;
    }
    at = writeAscii(out, at, ',"latitude":');
    at = writeCoordinate(out, at, latitude);
    at = writeAscii(out, at, ',"longitude":');
    at = writeCoordinate(out, at, longitude);
    out[at++] = 0x2c; // ,
    if (found.network === NONE) at = writeAscii(out, at, NO_NETWORK);
    else {
      const records = asn.records;
      at = copyBytes(
        records.bytes,
        records.start(found.network),
        records.end(found.network),
        out,
        at,
      );
    }
    at = writeAscii(out, at, found.bogon ? RECORD_BOGON_TAIL : RECORD_PUBLIC_TAIL);
    return at;
  }

  lookup(ip: Ip): GeoIpRecord {
    return JSON.parse(this.json(ip)) as GeoIpRecord;
  }
}

/**
 * `memoTexts`: keep each place and network text once decoded (bounded by the
 * record counts, ~30 MB at most for the embedded data): worth it for a bulk
 * pass over millions of addresses (`ipintel enrich`), not for the service,
 * whose heap stays small without them.
 */
export function createGeoIpLookup(
  holder: { readonly tables: GeoTables },
  memoTexts = false,
): GeoIpLookup {
  return new GeoIpLookup(holder, memoTexts);
}
