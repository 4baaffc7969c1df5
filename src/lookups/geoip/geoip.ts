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

  /** The record's text between a head (up to the address) and one of two tails. */
  private build(
    ip: Ip,
    head: string,
    publicTail: string,
    bogonTail: string,
  ): { text: string; bytes: number } {
    let place = NO_PLACE;
    let placeBytes = NO_PLACE.length;
    let network = NO_NETWORK;
    let networkBytes = NO_NETWORK.length;
    let tail = bogonTail;
    // the coordinates as JSON.stringify writes them (null, or the rounded number)
    let latitude = 'null';
    let longitude = 'null';
    if (!isBogon(ip)) {
      tail = publicTail;
      const { geoip, asn } = this.tables;
      const memo = this.memoTexts ? this.memo() : null;
      const v4 = ip.version === 4;
      const l = v4 ? geoip.table.findV4(ip.value) : geoip.table.findV6(ip.groups);
      if (l !== NONE) {
        const p = geoip.placeOf![l]!;
        const records = geoip.records;
        place = memo === null ? records.text(p) : (memo.place[p] ??= records.text(p));
        placeBytes = records.end(p) - records.start(p);
        const coordinates = geoip.coordinates!;
        latitude = coordinateText(coordinates[2 * l]!);
        longitude = coordinateText(coordinates[2 * l + 1]!);
      }
      const n = v4 ? asn.table.findV4(ip.value) : asn.table.findV6(ip.groups);
      if (n !== NONE) {
        network = memo === null ? asn.records.text(n) : (memo.network[n] ??= asn.records.text(n));
        networkBytes = asn.records.end(n) - asn.records.start(n);
      }
    }
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
