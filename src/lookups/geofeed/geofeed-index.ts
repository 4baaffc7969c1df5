// Every loaded geofeed (relay egress lists and networks' own feeds) compiled
// into one RangeTable, the structure the GeoIP data is searched in: sorted
// range starts in typed arrays with a jump table on the first 16 bits, each
// range naming the answer of the most specific geofeed prefix covering it
// (NONE where none does). A lookup is one table search, as for the GeoIP
// set, and allocates nothing; without geofeeds it is one size check.
//
// Most specific wins: prefixes nest or are disjoint, so a sweep in address
// order with a stack of open prefixes gives every elementary range its
// longest covering prefix. The same prefix in two feeds (two copies of one
// publisher's feed, a day apart): the newer publication (publishedAt below),
// then the feed first in id order; twice in one feed: its first row (the
// parser keeps that one).
//
// The clouds' regions (cloud-regions.ts, kind `cloud-region`) are a second
// layer of the same table: an address takes a cloud region's place only
// where no geofeed prefix covers it, whatever the two prefixes' lengths (a
// network's own feed says more than the region its range is announced in).
import { Buffer } from 'node:buffer';
import { NONE, RangeTable } from '../../data/range-table.js';
import { V4Builder, V6Builder } from '../../data/range-table-builder.js';
import { parseCidr } from '../../net/cidr-match.js';
import type { Ip } from '../../net/ip.js';
import { packCanonicalV4 } from '../vpn/index/prefix-events.js';
import type { StoredFeed } from '../vpn/feeds/feed-types.js';
import { placeJson } from '../geoip/record-map.js';
import type { PlaceResolver, ResolvedPlace } from './place-resolve.js';
import type { CloudPlacedFeed } from './cloud-regions.js';

/**
 * What placed an address: a privacy relay's egress list, a network's own
 * geofeed, or a cloud's region (its range file's region, cloud-regions.ts).
 */
export type PlaceSourceKind = 'relay' | 'geofeed' | 'cloud-region';

/** What the index is built from: stored feeds (relays and geofeeds are taken) and placed cloud feeds. */
export type PlacedFeed = StoredFeed | CloudPlacedFeed;

/** What a geofeed says of an address: the feed, and the place its row names, resolved. */
export interface GeofeedLocation extends ResolvedPlace {
  readonly feed: string;
  readonly kind: PlaceSourceKind;
}

/** One answer of the table: a feed's place, with its JSON written once. */
interface Answer {
  /** `"country":…,"city":…,"region":…,"timezone":…` as UTF-8 */
  readonly place: Buffer;
  /** × 10^4, or NO_COORDINATE */
  readonly latitude: number;
  readonly longitude: number;
  readonly source: Source;
  /** the whole location, made when first asked for (an index opened from a file has none) */
  location: GeofeedLocation | null;
}

/** A feed the answers name, with the header its answers carry. */
interface Source {
  readonly feed: string;
  readonly kind: PlaceSourceKind;
  /** `X-Location-Source: geofeed=<id>` (`cloud-region=<id>`), one object per feed */
  readonly headers: Readonly<Record<string, string>>;
}

/** The header naming where a GeoIP answer's location came from (docs/data.md, "Geofeeds"). */
export const LOCATION_SOURCE = 'x-location-source';

/** A loaded geofeed, for GET / (its age) and the readiness report. */
export interface GeofeedInfo {
  readonly feed: string;
  readonly kind: PlaceSourceKind;
  readonly fetchedAt: string;
  readonly publishedAt: string | null;
  readonly prefixes: number;
  /** rows the reader skipped (a bad prefix, a country that is not ISO) */
  readonly skippedRows: number;
}

/** A built index in parts (toParts), for a compiled geofeeds file: typed arrays but `sources`. */
export interface GeofeedParts {
  readonly table: RangeTable;
  /** answer i's place text is placeBytes [placeAt[i], placeAt[i + 1]) */
  readonly placeAt: Uint32Array;
  readonly placeBytes: Uint8Array;
  /** answer i's latitude and longitude (× 10^4, int32) at 2i, 2i + 1 */
  readonly coordinates: Int32Array;
  /** answer i's feed: an index in `sources` */
  readonly sourceOf: Uint32Array;
  /** the feeds the answers name, with their kinds */
  readonly sources: readonly (readonly [string, PlaceSourceKind])[];
  readonly feeds: readonly GeofeedInfo[];
}

interface Entry {
  readonly start: bigint;
  /** inclusive */
  readonly end: bigint;
  readonly length: number;
  readonly answer: number;
}

export class GeofeedIndex {
  /** address → answer index (NONE: no geofeed covers it) */
  readonly table: RangeTable;
  readonly feeds: readonly GeofeedInfo[];
  /** the number of answers: 0 means no geofeed, and lookups stop at that check */
  readonly size: number;
  /** the longest place text in bytes (for the GeoIP answer's buffer) */
  readonly longest: number;
  /** answer i, made when first asked for by `make` in an index opened from a file */
  private readonly answers: (Answer | undefined)[];
  private readonly make: (answer: number) => Answer;

  private constructor(
    table: RangeTable,
    feeds: GeofeedInfo[],
    answers: { all: Answer[] } | { size: number; longest: number; make: (i: number) => Answer },
  ) {
    this.table = table;
    this.feeds = feeds;
    if ('all' in answers) {
      this.answers = answers.all;
      this.size = answers.all.length;
      this.longest = answers.all.reduce((n, a) => Math.max(n, a.place.length), 0);
      this.make = (i) => answers.all[i]!;
    } else {
      this.answers = new Array<Answer | undefined>(answers.size);
      this.size = answers.size;
      this.longest = answers.longest;
      this.make = answers.make;
    }
  }

  static empty(): GeofeedIndex {
    return new GeofeedIndex(
      new RangeTable(new V4Builder().finish(), new V6Builder().finish()),
      [],
      { all: [] },
    );
  }

  private answer(i: number): Answer {
    return (this.answers[i] ??= this.make(i));
  }

  /**
   * Compiles the relay, geofeed and cloud-region feeds among `stored`
   * (others are ignored).
   */
  static build(
    stored: readonly PlacedFeed[],
    resolverFor: (places: readonly (readonly [string, string, string])[]) => PlaceResolver,
  ): GeofeedIndex {
    const feeds = stored
      .filter(
        (s): s is PlacedFeed & { kind: PlaceSourceKind } =>
          (s.kind === 'relay' || s.kind === 'geofeed' || s.kind === 'cloud-region') &&
          s.places !== undefined,
      )
      .sort((a, b) => publishedAt(b) - publishedAt(a) || byId(a, b));
    const places = feeds.flatMap((s) => s.places ?? []);
    const resolver = resolverFor(places);
    // every code is named, but only the networks' rows vote for a code's
    // name: a cloud's row names a region's principal city, which may share
    // its name with a smaller place elsewhere (Querétaro, Chiapas)
    resolver.learnRegions(
      feeds.flatMap((s) =>
        s.kind === 'cloud-region'
          ? (s.places ?? []).map(([country, code]) => [country, code, ''] as const)
          : (s.places ?? []),
      ),
    );
    const answers: Answer[] = [];
    const v4: Entry[] = [];
    const v6: Entry[] = [];
    // the cloud-region layer, answering where no geofeed does
    const cloudV4: Entry[] = [];
    const cloudV6: Entry[] = [];
    for (const s of feeds) {
      const cloud = s.kind === 'cloud-region';
      const [v4Of, v6Of] = cloud ? [cloudV4, cloudV6] : [v4, v6];
      const answerOf = new Map<number, number>();
      const source = sourceFor(s.feed, s.kind);
      s.prefixes.forEach((text, i) => {
        const placeIndex = s.placeOf?.[i] ?? -1;
        const place = s.places?.[placeIndex];
        if (place === undefined) return;
        let answer = answerOf.get(placeIndex);
        if (answer === undefined) {
          answer = answers.length;
          const resolved = resolver.resolve(place[0], place[1], place[2]);
          answers.push(answerFor({ ...resolved, feed: s.feed, kind: s.kind }, source));
          answerOf.set(placeIndex, answer);
        }
        // the canonical IPv4 form the updater stores is read without parsing
        const packed = packCanonicalV4(text);
        if (packed >= 0) {
          v4Of.push(v4Entry(Math.floor(packed / 64), packed % 64, answer));
          return;
        }
        const cidr = parseCidr(text);
        if (cidr === null) return; // an edited file: the prefix is dropped, the rest answers
        if (cidr.version === 4) v4Of.push(v4Entry(cidr.network[0]!, cidr.prefixLength, answer));
        else v6Of.push(v6Entry(cidr.network, cidr.prefixLength, answer));
      });
    }
    const table = new RangeTable(v4Table(v4, cloudV4), v6Table(v6, cloudV6));
    // listed in id order (GET /), whatever order decided the answers
    const info = [...feeds].sort(byId).map((s) => ({
      feed: s.feed,
      kind: s.kind,
      fetchedAt: s.fetchedAt,
      publishedAt: s.publishedAt,
      prefixes: s.prefixes.length,
      skippedRows: s.skippedRows ?? 0,
    }));
    return new GeofeedIndex(table, info, { all: answers });
  }

  /** What a compiled geofeeds file holds (geofeed-holder.ts): the table, the answers, the feeds. */
  toParts(): GeofeedParts {
    const all = Array.from({ length: this.size }, (_, i) => this.answer(i));
    const n = all.length;
    const placeAt = new Uint32Array(n + 1);
    const coordinates = new Int32Array(2 * n);
    const sourceOf = new Uint32Array(n);
    const sources: [string, PlaceSourceKind][] = [];
    const indexOf = new Map<Source, number>();
    all.forEach((a, i) => {
      placeAt[i + 1] = placeAt[i]! + a.place.length;
      coordinates[2 * i] = a.latitude;
      coordinates[2 * i + 1] = a.longitude;
      let source = indexOf.get(a.source);
      if (source === undefined) {
        source = sources.push([a.source.feed, a.source.kind]) - 1;
        indexOf.set(a.source, source);
      }
      sourceOf[i] = source;
    });
    const placeBytes = Buffer.concat(all.map((a) => a.place));
    const { table, feeds } = this;
    return { table, placeAt, placeBytes, coordinates, sourceOf, sources, feeds };
  }

  /**
   * The index toParts described, as it was built: no place is resolved or
   * written again, and an answer is made when first asked for (a start
   * makes none of the ~16,000 of the fixture feeds).
   */
  static fromParts(parts: GeofeedParts): GeofeedIndex {
    const { placeAt, placeBytes, coordinates, sourceOf } = parts;
    const bytes = Buffer.from(placeBytes.buffer, placeBytes.byteOffset, placeBytes.length);
    const sources = parts.sources.map(([feed, kind]) => sourceFor(feed, kind));
    let longest = 0;
    for (let i = 0; i < sourceOf.length; i++) {
      longest = Math.max(longest, placeAt[i + 1]! - placeAt[i]!);
    }
    const make = (i: number): Answer => ({
      place: bytes.subarray(placeAt[i], placeAt[i + 1]),
      latitude: coordinates[2 * i]!,
      longitude: coordinates[2 * i + 1]!,
      source: sources[sourceOf[i]!]!,
      location: null,
    });
    return new GeofeedIndex(parts.table, [...parts.feeds], {
      size: sourceOf.length,
      longest,
      make,
    });
  }

  /** The answer index of the most specific geofeed prefix holding ip, or NONE. */
  find(ip: Ip): number {
    return ip.version === 4 ? this.table.findV4(ip.value) : this.table.findV6(ip.groups);
  }

  /** The place text of an answer find() gave, as UTF-8 bytes. */
  placeBytes(answer: number): Buffer {
    return this.answer(answer).place;
  }

  /** Whether an answer find() gave is a cloud's region (the second layer), not a network's geofeed. */
  isCloudRegion(answer: number): boolean {
    return this.answer(answer).source.kind === 'cloud-region';
  }

  /** The X-Location-Source header of an answer find() gave. */
  headers(answer: number): Readonly<Record<string, string>> {
    return this.answer(answer).source.headers;
  }

  location(answer: number): GeofeedLocation {
    const a = this.answer(answer);
    a.location ??= locationOf(a);
    return a.location;
  }

  /** Where the geofeeds say ip is, or null: the one function every reader asks (API, export). */
  locate(ip: Ip): GeofeedLocation | null {
    if (this.size === 0) return null;
    const answer = this.find(ip);
    return answer === NONE ? null : this.location(answer);
  }
}

const byId = (a: PlacedFeed, b: PlacedFeed): number =>
  a.feed < b.feed ? -1 : a.feed > b.feed ? 1 : 0;

/**
 * When a feed was published, to rank two feeds holding one prefix: the date
 * the publisher writes in the feed (`# lastupdated: …`), else the server's
 * Last-Modified at the fetch, else the fetch itself (the later fetch saw the
 * later state of its URL); ms since the epoch, 0 when none is a date.
 */
export function publishedAt(s: PlacedFeed): number {
  const lastModified = 'lastModified' in s ? s.lastModified : undefined;
  for (const text of [s.publishedAt, lastModified, s.fetchedAt]) {
    const ms = text === null || text === undefined ? NaN : Date.parse(text);
    if (!Number.isNaN(ms)) return ms;
  }
  return 0;
}

function sourceFor(feed: string, kind: PlaceSourceKind): Source {
  const name = kind === 'cloud-region' ? 'cloud-region' : 'geofeed';
  return { feed, kind, headers: { [LOCATION_SOURCE]: `${name}=${feed}` } };
}

function answerFor(location: GeofeedLocation, source: Source): Answer {
  const json = placeJson({
    country: location.country,
    city: location.city,
    region: location.region,
    timezone: location.timezone,
    latitude: null,
    longitude: null,
  });
  const { latitude, longitude } = location;
  return { place: Buffer.from(json, 'utf8'), latitude, longitude, source, location };
}

/** An answer's location read back from its place text (what placeJson wrote). */
function locationOf(a: Answer): GeofeedLocation {
  const place = JSON.parse(`{${a.place.toString('utf8')}}`) as Omit<
    GeofeedLocation,
    'latitude' | 'longitude' | 'feed' | 'kind'
  >;
  const { country, region, city, timezone } = place;
  const { latitude, longitude } = a;
  const { feed, kind } = a.source;
  return { country, region, city, timezone, latitude, longitude, feed, kind };
}

function v4Entry(start: number, length: number, answer: number): Entry {
  const first = BigInt(start);
  return { start: first, end: first + (1n << BigInt(32 - length)) - 1n, length, answer };
}

function v6Entry(groups: readonly number[], length: number, answer: number): Entry {
  let start = 0n;
  for (const group of groups) start = (start << 16n) | BigInt(group);
  return { start, end: start + (1n << BigInt(128 - length)) - 1n, length, answer };
}

/**
 * The elementary ranges in address order, each with the answer of its
 * longest covering prefix (NONE: none), from position 0; `emit` is called
 * with strictly increasing starts.
 */
function sweep(entries: Entry[], max: bigint, emit: (start: bigint, answer: number) => void): void {
  entries.sort((a, b) =>
    a.start !== b.start ? (a.start < b.start ? -1 : 1) : a.length - b.length || a.answer - b.answer,
  );
  let pendingAt = 0n;
  let pending = NONE;
  const set = (at: bigint, answer: number): void => {
    if (at !== pendingAt) {
      emit(pendingAt, pending);
      pendingAt = at;
    }
    pending = answer;
  };
  const open: Entry[] = [];
  const closeUntil = (limit: bigint): void => {
    while (open.length > 0 && open[open.length - 1]!.end < limit) {
      const done = open.pop()!;
      if (done.end === max) continue;
      set(done.end + 1n, open.length > 0 ? open[open.length - 1]!.answer : NONE);
    }
  };
  for (const e of entries) {
    closeUntil(e.start);
    const top = open[open.length - 1];
    // the same prefix again (an older feed, or later in id order): the first stays
    if (top !== undefined && top.start === e.start && top.length === e.length) continue;
    open.push(e);
    set(e.start, e.answer);
  }
  closeUntil(max + 1n);
  emit(pendingAt, pending);
}

/**
 * The sweep of `entries`, and where it answers NONE the sweep of `under`'s
 * (the cloud-region layer): `emit` as sweep's.
 */
function layered(
  entries: Entry[],
  under: Entry[],
  max: bigint,
  emit: (start: bigint, answer: number) => void,
): void {
  if (under.length === 0) {
    sweep(entries, max, emit);
    return;
  }
  const steps = (list: Entry[]): [bigint, number][] => {
    const out: [bigint, number][] = [];
    sweep(list, max, (start, answer) => out.push([start, answer]));
    return out;
  };
  const top = steps(entries);
  const bottom = steps(under);
  // both step lists start at 0: walk their union of starts
  let i = 0;
  let j = 0;
  let last: number | null = null;
  while (i < top.length || j < bottom.length) {
    const topAt = top[i]?.[0] ?? max + 1n;
    const bottomAt = bottom[j]?.[0] ?? max + 1n;
    const at = topAt < bottomAt ? topAt : bottomAt;
    if (topAt === at) i++;
    if (bottomAt === at) j++;
    const upper = top[i - 1]![1];
    const answer = upper !== NONE ? upper : bottom[j - 1]![1];
    if (answer !== last) emit(at, answer);
    last = answer;
  }
}

function v4Table(entries: Entry[], under: Entry[]) {
  const builder = new V4Builder();
  layered(entries, under, 0xffffffffn, (start, answer) => builder.add(Number(start), answer));
  return builder.finish();
}

function v6Table(entries: Entry[], under: Entry[]) {
  const builder = new V6Builder();
  const mask = 0xffffffffn;
  layered(entries, under, (1n << 128n) - 1n, (start, answer) =>
    builder.add(
      Number((start >> 96n) & mask),
      Number((start >> 64n) & mask),
      Number((start >> 32n) & mask),
      Number(start & mask),
      answer,
    ),
  );
  return builder.finish();
}
