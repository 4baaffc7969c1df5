// GeoIP and ASN answers from MMDB files, in the two layouts we accept:
// DB-IP Lite as packaged by ip-location-db (flat: country_code, state1, city,
// latitude, longitude; no time zone) and MaxMind's GeoIP2/GeoLite2 layout
// (country.iso_code, city.names.en, subdivisions[0], location.time_zone).
// The reader's decoded objects are shared and cached: never mutate them. The
// mapped location is memoised per decoded object, so the time-zone and
// string clean-up work happens once per distinct record, not per request.
import { LRUCache } from 'lru-cache';
import { Reader } from 'maxmind';
import type { Ip } from '../../net/ip.js';
import type { AsnInfo, AsnSource } from './asn-table.js';
import { MmdbTree, type TreeOptions } from './mmdb-tree.js';
import type { TimezoneResolver } from './timezone.js';

export interface GeoLocation {
  country: string | null;
  city: string | null;
  region: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
}

export interface GeoSource {
  lookup(ip: Ip): GeoLocation | null;
  /** the location with its JSON fragment, for the serialised GeoIP record */
  entry(ip: Ip): GeoEntry | null;
}

/**
 * The decoder's cache, keyed by data-section offset: it keeps decoded records
 * (and so our memo of them) for hot addresses, within a bound.
 */
function decoderCache(max: number): {
  get(key: number): unknown;
  set(key: number, value: unknown): void;
} {
  const lru = new LRUCache<number, NonNullable<unknown>>({ max });
  return {
    get: (key) => lru.get(key),
    set: (key, value) => {
      if (value !== undefined && value !== null) lru.set(key, value);
    },
  };
}

export function openMmdb(buffer: Buffer, cacheEntries = 5_000): Reader<object> {
  return new Reader<object>(buffer, { cache: decoderCache(cacheEntries) });
}

/** Empty strings and DB-IP's "ZZ" (no country) are unknowns, not values. */
function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function country(value: unknown): string | null {
  const code = text(value);
  return code === null || code === 'ZZ' || !/^[A-Z]{2}$/.test(code) ? null : code;
}

/** MMDB stores coordinates as float32 (DB-IP) or double; 4 decimals is ~11 m, all the data holds. */
function coordinate(value: unknown): number | null {
  const n = typeof value === 'string' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? Math.round(n * 1e4) / 1e4 : null;
}

type Mapper = (record: Record<string, unknown>) => GeoLocation;

function withTimezone(
  location: Omit<GeoLocation, 'timezone'>,
  given: string | null,
  resolveTimezone: TimezoneResolver,
): GeoLocation {
  let timezone = given;
  if (timezone === null && location.latitude !== null && location.longitude !== null) {
    timezone = resolveTimezone(location.latitude, location.longitude);
  }
  return { ...location, timezone };
}

export function dbipMapper(resolveTimezone: TimezoneResolver): Mapper {
  return (r) =>
    withTimezone(
      {
        country: country(r['country_code']),
        city: text(r['city']),
        region: text(r['state1']),
        latitude: coordinate(r['latitude']),
        longitude: coordinate(r['longitude']),
      },
      text(r['timezone']),
      resolveTimezone,
    );
}

const english = (value: unknown): string | null =>
  text((value as { names?: { en?: unknown } } | undefined)?.names?.en);

export function maxmindMapper(resolveTimezone: TimezoneResolver): Mapper {
  return (r) => {
    const location = (r['location'] ?? {}) as Record<string, unknown>;
    const subdivisions = r['subdivisions'] as unknown[] | undefined;
    return withTimezone(
      {
        country: country((r['country'] as { iso_code?: unknown } | undefined)?.iso_code),
        city: english(r['city']),
        region: english(subdivisions?.[0]),
        latitude: coordinate(location['latitude']),
        longitude: coordinate(location['longitude']),
      },
      text(location['time_zone']),
      resolveTimezone,
    );
  };
}

/**
 * mmdb-lib's file buffer and record decoding, apart from its tree walk: our
 * walk (mmdb-tree.ts) gives the record's data-section pointer, a key shared by
 * every address of that record. These members are private in the typings but
 * stable in the pinned version; without them (a future version) we fall back
 * to the public get().
 */
interface ReaderInternals {
  db: Buffer;
  ipv4StartNodeNumber: number;
  resolveDataPointer(pointer: number): unknown;
}

function treeOf(
  reader: Reader<object>,
  options: TreeOptions,
): { tree: MmdbTree; internals: ReaderInternals } | null {
  const r = reader as unknown as Partial<ReaderInternals>;
  if (
    !Buffer.isBuffer(r.db) ||
    typeof r.ipv4StartNodeNumber !== 'number' ||
    typeof r.resolveDataPointer !== 'function'
  ) {
    return null;
  }
  const internals = reader as unknown as ReaderInternals;
  const { nodeCount, recordSize } = reader.metadata;
  const tree = new MmdbTree(
    { db: internals.db, nodeCount, recordSize, ipv4Start: internals.ipv4StartNodeNumber },
    options,
  );
  return { tree, internals };
}

/** A mapped location with its JSON, as it appears inside the GeoIP record. */
export interface GeoEntry {
  location: GeoLocation;
  /** `"country":…,"city":…,"region":…,"timezone":…,"latitude":…,"longitude":…` */
  json: string;
}

export function locationJson(l: GeoLocation): string {
  return `"country":${JSON.stringify(l.country)},"city":${JSON.stringify(l.city)},"region":${JSON.stringify(l.region)},"timezone":${JSON.stringify(l.timezone)},"latitude":${l.latitude},"longitude":${l.longitude}`;
}

class FamilyReader {
  private readonly walk: { tree: MmdbTree; internals: ReaderInternals } | null;
  private readonly ipv6: boolean;
  /** mapped entries by data-section pointer: the work is done once per distinct record */
  private readonly entries: LRUCache<number, GeoEntry>;
  private readonly memo = new WeakMap<object, GeoEntry>();

  constructor(
    private readonly reader: Reader<object>,
    private readonly map: Mapper,
    maxEntries: number,
    answersIpv4: boolean,
  ) {
    this.walk = treeOf(reader, { ipv4Table: answersIpv4 });
    this.ipv6 = reader.metadata.ipVersion === 6;
    this.entries = new LRUCache({ max: maxEntries });
  }

  lookup(ip: Ip): GeoEntry | null {
    // an IPv4-only tree knows nothing of IPv6 addresses
    if (ip.version === 6 && !this.ipv6) return null;
    if (this.walk === null) return this.viaGet(ip.text);
    const { tree, internals } = this.walk;
    const pointer = ip.version === 4 ? tree.v4(ip) : tree.v6(ip);
    if (pointer === null) return null;
    let entry = this.entries.get(pointer);
    if (entry === undefined) {
      entry = this.entry(internals.resolveDataPointer(pointer));
      this.entries.set(pointer, entry);
    }
    return entry;
  }

  private viaGet(address: string): GeoEntry | null {
    const record = this.reader.get(address);
    if (record === null) return null;
    let entry = this.memo.get(record);
    if (entry === undefined) {
      entry = this.entry(record);
      this.memo.set(record, entry);
    }
    return entry;
  }

  private entry(record: unknown): GeoEntry {
    const location = this.map((record ?? {}) as Record<string, unknown>);
    return { location, json: locationJson(location) };
  }
}

/** One reader per family (DB-IP ships two files) or one for both (MaxMind). */
export class MmdbGeoSource implements GeoSource {
  private readonly v4: FamilyReader;
  private readonly v6: FamilyReader;

  constructor(v4: Reader<object>, v6: Reader<object> | null, map: Mapper, maxEntries = 50_000) {
    this.v4 = new FamilyReader(v4, map, maxEntries, true);
    this.v6 = v6 === null ? this.v4 : new FamilyReader(v6, map, maxEntries, false);
  }

  entry(ip: Ip): GeoEntry | null {
    return (ip.version === 6 ? this.v6 : this.v4).lookup(ip);
  }

  lookup(ip: Ip): GeoLocation | null {
    return this.entry(ip)?.location ?? null;
  }
}

/** MaxMind GeoLite2/GeoIP2 ASN (or ISP) databases as an AsnSource. */
export class MmdbAsnSource implements AsnSource {
  constructor(private readonly reader: Reader<object>) {}

  lookup(ip: Ip): AsnInfo | null {
    const r = this.reader.get(ip.text) as Record<string, unknown> | null;
    const asn = r?.['autonomous_system_number'];
    if (r === null || typeof asn !== 'number') return null;
    return {
      asn,
      org: text(r['organization']) ?? text(r['autonomous_system_organization']),
      isp: text(r['isp']),
    };
  }
}
