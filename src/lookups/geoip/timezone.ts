// Time zones for coordinates. DB-IP Lite carries none, so we derive them.
// Accuracy comes from geo-tz (timezone-boundary-builder polygons), but geo-tz
// costs ~190 MB and milliseconds per cold region at run time. DB-IP records
// repeat a few hundred thousand distinct coordinates, so scripts/prepare-data.ts
// resolves each distinct location once with geo-tz at install time and stores
// the answers in a sorted table: run-time lookups are a bisection over a
// Float64Array, exact where geo-tz is. Coordinates outside the table (a newer
// data drop, a user's MMDB) fall back to @photostructure/tz-lookup: small and
// fast, and right ~94 % of the time.
import { Buffer } from 'node:buffer';
import { requiredLater } from '../../later/required-later.js';

/** required at its first use: the service compiles nothing at start (74 KB less to load) */
const tzLookup = requiredLater<typeof import('@photostructure/tz-lookup')>(
  '@photostructure/tz-lookup',
);

const MAGIC = 'IPINTEL-TZ-1\n';

/** Coordinates to 1e-4 degree (~11 m), packed into one exactly representable number. */
export function locationKey(latitude: number, longitude: number): number {
  const lat = Math.round(latitude * 1e4) + 900_000;
  const lon = Math.round(longitude * 1e4) + 1_800_000;
  return lat * 3_600_001 + lon;
}

export class TimezoneIndex {
  constructor(
    private readonly keys: Float64Array,
    private readonly zoneIds: Uint16Array,
    private readonly zones: readonly string[],
  ) {}

  get size(): number {
    return this.keys.length;
  }

  find(latitude: number, longitude: number): string | null {
    const key = locationKey(latitude, longitude);
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid] ?? 0;
      if (k === key) return this.zones[this.zoneIds[mid] ?? 0] ?? null;
      if (k < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  static fromEntries(entries: Iterable<[key: number, zone: string]>): TimezoneIndex {
    const sorted = [...entries].sort((a, b) => a[0] - b[0]);
    const zones: string[] = [];
    const zoneIndex = new Map<string, number>();
    const keys = new Float64Array(sorted.length);
    const ids = new Uint16Array(sorted.length);
    sorted.forEach(([key, zone], i) => {
      let id = zoneIndex.get(zone);
      if (id === undefined) {
        id = zones.length;
        zones.push(zone);
        zoneIndex.set(zone, id);
      }
      keys[i] = key;
      ids[i] = id;
    });
    return new TimezoneIndex(keys, ids, zones);
  }

  serialize(stamp: string): Buffer {
    const header = Buffer.from(
      JSON.stringify({ stamp, count: this.keys.length, zones: this.zones }),
    );
    const head = Buffer.alloc(MAGIC.length + 4);
    head.write(MAGIC, 'latin1');
    head.writeUInt32LE(header.length, MAGIC.length);
    const used = head.length + header.length;
    const padding = Buffer.alloc((8 - (used % 8)) % 8);
    return Buffer.concat([
      head,
      header,
      padding,
      Buffer.from(this.keys.buffer, this.keys.byteOffset, this.keys.byteLength),
      Buffer.from(this.zoneIds.buffer, this.zoneIds.byteOffset, this.zoneIds.byteLength),
    ]);
  }

  /** null when the buffer is not an index or, given `expectedStamp`, was made from other data */
  static deserialize(buffer: Buffer, expectedStamp: string | null): TimezoneIndex | null {
    if (buffer.toString('latin1', 0, MAGIC.length) !== MAGIC) return null;
    const length = buffer.readUInt32LE(MAGIC.length);
    const start = MAGIC.length + 4;
    const header = JSON.parse(buffer.toString('utf8', start, start + length)) as {
      stamp: string;
      count: number;
      zones: string[];
    };
    if (expectedStamp !== null && header.stamp !== expectedStamp) return null;
    let offset = start + length;
    offset += (8 - (offset % 8)) % 8;
    if (buffer.length - offset !== header.count * 10) return null;
    const copy = new Uint8Array(buffer.length - offset);
    copy.set(buffer.subarray(offset));
    const keys = new Float64Array(copy.buffer, 0, header.count);
    const ids = new Uint16Array(copy.buffer, header.count * 8, header.count);
    return new TimezoneIndex(keys, ids, header.zones);
  }
}

export type TimezoneResolver = (latitude: number, longitude: number) => string | null;

/** The precomputed index when it knows the point, tz-lookup otherwise. */
export function createTimezoneResolver(index: TimezoneIndex | null): TimezoneResolver {
  return (latitude, longitude) => {
    if (!Number.isFinite(latitude) || !Number.isFinite(longitude)) return null;
    if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) return null;
    const exact = index?.find(latitude, longitude);
    if (exact) return exact;
    try {
      return tzLookup()(latitude, longitude);
    } catch {
      return null;
    }
  };
}
