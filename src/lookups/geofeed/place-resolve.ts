// Where a geofeed's place is, from the location data the service already
// has: the GeoIP set's locations (DB-IP Lite City: city, region name,
// coordinates) and the time zones compiled into them (geo-tz's boundaries,
// tables/timezones.bin). No gazetteer of its own: the same names and points
// the rest of the answers use, and nothing more to ship or keep current.
//
// What a place becomes (docs/data.md, "Geofeeds"):
// - country: the feed's.
// - city: the feed's text as written.
// - region: the subdivision's name as the GeoIP data writes it (below); the
//   feed's ISO 3166-2 code when no name is known for it; null when the feed
//   gives none.
// - latitude/longitude: the GeoIP data's point for that city (its most used
//   point) when the city is found in that country (and in that region, when
//   the region is known); null otherwise — never a point of another place.
//   In a known region, a city the data names with more words after the
//   feed's (`Washington` → `Washington D.C.`, `Frankfurt` → `Frankfurt am
//   Main`) is that city when no name matches whole: its most used point.
// - timezone: the found city's; without a found city, the zone of all but
//   stray places (≥ 99 %) of the region (else of the country), else null.
//
// Region codes → names, in this order (each a name the data uses):
// 1. the code's names in the ISO 3166-2 tables (subdivision-names.ts) that
//    are one of the data's region names of that country, case and accents
//    apart (`US-DC` → `District of Columbia`, `DE-BY` → `Bavaria`);
// 2. learned from the feeds' rows: a row whose city the data knows in
//    exactly one region of its country names its code; a code takes the
//    name most of its rows name.
// A city is looked for in each of a code's names in turn. Built per load,
// off the request path.
import type { CompiledSet } from '../geoip/compiled-set.js';
import { NO_COORDINATE } from '../geoip/compiled-set.js';
import { ALIAS, NONE, SPLIT } from '../../data/range-table.js';
import type { SubdivisionNames } from './subdivision-names.js';

export interface ResolvedPlace {
  readonly country: string;
  readonly region: string | null;
  readonly city: string | null;
  readonly timezone: string | null;
  /** × 10^4, or NO_COORDINATE */
  readonly latitude: number;
  readonly longitude: number;
}

interface Point {
  readonly region: string | null;
  readonly timezone: string | null;
  readonly latitude: number;
  readonly longitude: number;
  weight: number;
}

/** A place of the GeoIP data as its record text says it. */
interface DataPlace {
  country: string | null;
  city: string | null;
  region: string | null;
  timezone: string | null;
}

/** Case, accents and spacing apart, two city names are one (`CHICOPEE`, `Chicopee`). */
export function cityKey(country: string, city: string): string {
  // most names are ASCII: no decomposition for them
  const plain = /^[\x20-\x7e]*$/.test(city) ? city : city.normalize('NFD').replace(/\p{M}/gu, '');
  const folded = plain
    .toLowerCase()
    .replace(/[\s.'’-]+/g, ' ')
    .trim();
  return `${country}|${folded}`;
}

/**
 * The time zone of all but stray places (at most 1 % elsewhere: DB-IP has a
 * few points across a border, e.g. 1 of Japan's 3,642 in Asia/Hong_Kong), or
 * null where a region or country spans several (the US, Nova Scotia with
 * America/Glace_Bay) or none is known.
 */
function commonZone(zones: ReadonlyMap<string | null, number> | undefined): string | null {
  if (zones === undefined) return null;
  let total = 0;
  let top: string | null = null;
  let most = 0;
  for (const [zone, count] of zones) {
    total += count;
    if (count > most) [top, most] = [zone, count];
  }
  return most >= 0.99 * total ? top : null;
}

/** A place text's city as the resolver keeps it: whole, or as a longer name of an asked city. */
interface CityOf {
  readonly place: DataPlace;
  /** its key when asked about (cityKey), else null */
  readonly exact: string | null;
  /** the asked cities whose name it continues (`Washington D.C.` for `Washington`) */
  readonly longer: readonly string[];
}

export class PlaceResolver {
  /** country|city → region name (or '') → its most used point; only the cities the feeds name */
  private readonly cities = new Map<string, Map<string, Point>>();
  /** the same for data cities whose name continues an asked one's, under the asked key */
  private readonly longerCities = new Map<string, Map<string, Point>>();
  /** country|region name → how many of its places each time zone has */
  private readonly regionZones = new Map<string, Map<string | null, number>>();
  private readonly countryZones = new Map<string, Map<string | null, number>>();
  private regionNames = new Map<string, readonly string[]>();

  /**
   * From the GeoIP set's locations, for the places the feeds name (country,
   * region code, city); an ASN-only set or none: nothing is found. One pass
   * over the distinct place texts (~200,000 for DB-IP) and one over the
   * location arrays; points are kept only for the cities asked about.
   */
  constructor(
    geoip: CompiledSet | null,
    asked: Iterable<readonly [string, string, string]>,
    private readonly subdivisions: SubdivisionNames = () => [],
  ) {
    const locations = geoip?.locations ?? null;
    if (geoip === null || locations === null) return;
    const wanted = new Set<string>();
    for (const [country, , city] of asked) if (city !== '') wanted.add(cityKey(country, city));
    // place text → the city it names, when asked about (else null); the
    // texts are read without JSON.parse (200,000 objects of garbage at every
    // load): their members come in a fixed order, values JSON-escaped
    const texts = geoip.records.count;
    const cityOf: (CityOf | null)[] = new Array<CityOf | null>(texts).fill(null);
    for (let t = 0; t < texts; t++) {
      const place = readPlace(geoip.records.text(t));
      if (place === null) continue;
      add(this.countryZones, place.country!, place.timezone);
      if (place.region !== null) {
        add(this.regionZones, `${place.country}|${place.region}`, place.timezone);
      }
      if (place.city === null) continue;
      const key = cityKey(place.country!, place.city);
      const exact = wanted.has(key) ? key : null;
      const longer = askedPrefixes(key, wanted);
      if (exact !== null || longer.length > 0) cityOf[t] = { place, exact, longer };
    }
    const { placeOf, coordinates } = locations;
    geoip.pager.need(placeOf, 0, placeOf.length);
    geoip.pager.need(coordinates, 0, coordinates.length);
    const weight = usage(geoip, locations.count);
    for (let l = 0; l < placeOf.length; l++) {
      const city = cityOf[placeOf[l]!];
      if (city === null || city === undefined) continue;
      const point = {
        region: city.place.region,
        timezone: city.place.timezone,
        latitude: coordinates[2 * l]!,
        longitude: coordinates[2 * l + 1]!,
        weight: weight[l]! + 1,
      };
      if (city.exact !== null) keepHeaviest(this.cities, city.exact, point);
      for (const key of city.longer) keepHeaviest(this.longerCities, key, point);
    }
  }

  /** country|folded region name → the data's spelling (its most used, when two fold alike) */
  private dataRegionNames(): Map<string, string> {
    const best = new Map<string, { name: string; places: number }>();
    for (const [key, zones] of this.regionZones) {
      const bar = key.indexOf('|');
      const [country, name] = [key.slice(0, bar), key.slice(bar + 1)];
      let places = 0;
      for (const count of zones.values()) places += count;
      const folded = cityKey(country, name);
      if ((best.get(folded)?.places ?? 0) < places) best.set(folded, { name, places });
    }
    return new Map([...best].map(([folded, { name }]) => [folded, name]));
  }

  /**
   * The region names of every code the rows name (country, ISO 3166-2 code,
   * city): see the module comment. Call once with every row of the load.
   */
  learnRegions(rows: Iterable<readonly [string, string, string]>): void {
    const votes = new Map<string, Map<string, number>>();
    const codes = new Set<string>();
    for (const [country, code, city] of rows) {
      if (code === '') continue;
      codes.add(code);
      if (city === '') continue;
      const byRegion = this.cities.get(cityKey(country, city));
      if (byRegion === undefined || byRegion.size !== 1) continue;
      const name = byRegion.values().next().value!.region;
      if (name === null) continue;
      let tally = votes.get(code);
      if (tally === undefined) votes.set(code, (tally = new Map<string, number>()));
      tally.set(name, (tally.get(name) ?? 0) + 1);
    }
    const dataRegions = this.dataRegionNames();
    this.regionNames = new Map();
    for (const code of codes) {
      const country = code.slice(0, 2);
      const names: string[] = [];
      for (const name of this.subdivisions(code)) {
        const data = dataRegions.get(cityKey(country, name));
        if (data !== undefined && !names.includes(data)) names.push(data);
      }
      const tally = votes.get(code);
      if (tally !== undefined) {
        const [learned] = [...tally].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!;
        if (!names.includes(learned)) names.push(learned);
      }
      if (names.length > 0) this.regionNames.set(code, names);
    }
  }

  resolve(country: string, code: string, city: string): ResolvedPlace {
    const names = code === '' ? [] : (this.regionNames.get(code) ?? []);
    const found = city === '' ? null : this.cityPoint(country, names, city);
    if (found !== null) {
      const { point, region } = found;
      return {
        country,
        region: region ?? point.region,
        city,
        timezone: point.timezone,
        latitude: point.latitude,
        longitude: point.longitude,
      };
    }
    const regionName = names[0] ?? null;
    const zones =
      regionName === null
        ? this.countryZones.get(country)
        : this.regionZones.get(`${country}|${regionName}`);
    return {
      country,
      region: regionName ?? (code === '' ? null : code),
      city: city === '' ? null : city,
      timezone: commonZone(zones),
      latitude: NO_COORDINATE,
      longitude: NO_COORDINATE,
    };
  }

  /**
   * The city's point: in the first of the code's region names that has it
   * (by its whole name, else by a longer name), or without a region name
   * the only region the city is in.
   */
  private cityPoint(
    country: string,
    names: readonly string[],
    city: string,
  ): { point: Point; region: string | null } | null {
    const key = cityKey(country, city);
    const byRegion = this.cities.get(key);
    if (names.length === 0) {
      if (byRegion?.size !== 1) return null;
      return { point: byRegion.values().next().value!, region: null };
    }
    for (const found of [byRegion, this.longerCities.get(key)]) {
      for (const region of names) {
        const point = found?.get(region);
        if (point !== undefined) return { point, region };
      }
    }
    return null;
  }
}

/** The asked city keys that `key` continues by whole words (`us|washington d c` → `us|washington`). */
function askedPrefixes(key: string, wanted: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (let space = key.indexOf(' '); space > 0; space = key.indexOf(' ', space + 1)) {
    const prefix = key.slice(0, space);
    if (wanted.has(prefix)) out.push(prefix);
  }
  return out;
}

/** Keeps, per region, the most used point of a city. */
function keepHeaviest(map: Map<string, Map<string, Point>>, key: string, point: Point): void {
  let byRegion = map.get(key);
  if (byRegion === undefined) map.set(key, (byRegion = new Map<string, Point>()));
  const region = point.region ?? '';
  const found = byRegion.get(region);
  if (found === undefined || point.weight > found.weight) byRegion.set(region, point);
}

const COUNTRY_AT = '"country":"'.length;

/**
 * A place text (`"country":"US","city":"Chicopee","region":"Massachusetts",
 * "timezone":"America/New_York"`, record-map.ts placeJson) read: null
 * without a country.
 */
function readPlace(text: string): DataPlace | null {
  if (!text.startsWith('"country":"')) return null;
  const country = text.slice(COUNTRY_AT, COUNTRY_AT + 2);
  const cityAt = text.indexOf(',"city":');
  const regionAt = text.indexOf(',"region":', cityAt);
  const zoneAt = text.indexOf(',"timezone":', regionAt);
  if (cityAt < 0 || regionAt < 0 || zoneAt < 0) return null;
  const value = (from: number, to: number): string | null =>
    text.startsWith('null', from) ? null : (JSON.parse(text.slice(from, to)) as string);
  return {
    country,
    city: value(cityAt + 8, regionAt),
    region: value(regionAt + 10, zoneAt),
    timezone: value(zoneAt + 12, text.length),
  };
}

function add(map: Map<string, Map<string | null, number>>, key: string, zone: string | null): void {
  let tally = map.get(key);
  if (tally === undefined) map.set(key, (tally = new Map<string | null, number>()));
  tally.set(zone, (tally.get(zone) ?? 0) + 1);
}

/** How many ranges of the table answer each location (its "most used point" weight). */
function usage(geoip: CompiledSet, count: number): Uint32Array {
  const weight = new Uint32Array(count);
  const { v4, v6 } = geoip.table;
  for (const values of [v4.values, v6.values, v6.subValues]) {
    geoip.table.need(values, 0, values.length);
    for (const value of values) {
      if (value !== NONE && (value & (SPLIT | ALIAS)) === 0 && value < count) {
        weight[value] = weight[value]! + 1;
      }
    }
  }
  return weight;
}
