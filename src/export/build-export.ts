// The export's core: the address space cut where any source of an answer
// changes (boundaries.ts), each elementary interval answered by the very
// lookups GET /ip/:ip and /ip/:ip/vpn use (for its first address), the
// answers turned into the three files' records (each distinct one written
// once) and into CSV rows; neighbouring intervals with the same record are
// one interval of that file.
import { formatIpv4, formatIpv6, type Ip } from '../net/ip.js';
import type { GeoIpLookup, GeoIpRecord } from '../lookups/geoip/geoip.js';
import type { VpnJson } from '../lookups/vpn/record-json.js';
import type { VpnDetection } from '../lookups/vpn/detect.js';
import type { OverrideIndex } from '../lookups/overrides/override-index.js';
import { GrowableU32 } from '../data/range-table-builder.js';
import { groupsOfWords } from '../net/cidr-cover.js';
import {
  bogonBoundaries,
  layoutBoundaries,
  mergeV4,
  mergeV6,
  rangeTableBoundaries,
  type BoundarySource,
} from './boundaries.js';
import { MmdbDataWriter, type MapTemplate } from './mmdb-data.js';
import { ALIAS_TO_IPV4, NO_DATA, type MmdbIntervals } from './mmdb-tree.js';
import {
  anonymousRecord,
  asnRecord,
  CITY_LOCATION,
  cityLocation,
  cityPlaceMembers,
  cityRecord,
  networkCsv,
  placeCsv,
  placeCsvOf,
  detectionCsv,
} from './records.js';
import type { CsvInWorker, FedPart } from './csv-in-worker.js';
import { isBogon } from '../lookups/geoip/bogons.js';
import { NO_OVERRIDE } from '../lookups/overrides/override-index.js';
import type { GeofeedIndex } from '../lookups/geofeed/geofeed-index.js';
import { NONE } from '../data/range-table.js';

/** the network key of a bogon (its record's tail differs from an unrouted address's) */
const BOGON_KEY = -2;

/** What the export reads: the lookups the API answers with, and the data under them. */
export interface ExportSources {
  geoip: GeoIpLookup;
  vpn: VpnJson;
  /** the detection index the vpn lookup answers from */
  feeds: { boundaries(): { v4: Uint32Array; v6: Uint32Array } };
  overrides: OverrideIndex;
  /** the RFC 8805 geofeeds that place addresses (the lookup above reads the same index) */
  geofeeds: GeofeedIndex;
}

/**
 * Every source whose ranges can change an answer, one line each: a new
 * source of answers (a feed kind, a file of corrections) adds its line here,
 * and the export cuts the address space at its ranges too.
 */
export function boundarySources(s: ExportSources): BoundarySource[] {
  return [
    rangeTableBoundaries('geoip', s.geoip.tables.geoip.table),
    rangeTableBoundaries('asn', s.geoip.tables.asn.table),
    { name: 'feeds', boundaries: () => s.feeds.boundaries() },
    { name: 'overrides', boundaries: () => s.overrides.boundaries() },
    rangeTableBoundaries('geofeeds', s.geofeeds.table),
    bogonBoundaries(),
    layoutBoundaries(),
  ];
}

/** One file's intervals while they are found: a new one only where the value changes. */
class IntervalList {
  private readonly starts: GrowableU32;
  private readonly values: GrowableU32;
  private last = -1;

  /** `most`: the elementary intervals walked (a file has at most as many) */
  constructor(most: number) {
    this.starts = new GrowableU32(4 * most);
    this.values = new GrowableU32(most);
  }

  push(w0: number, w1: number, w2: number, w3: number, value: number): void {
    if (value === this.last) return;
    this.last = value;
    this.starts.push(w0);
    this.starts.push(w1);
    this.starts.push(w2);
    this.starts.push(w3);
    this.values.push(value);
  }

  finish(): MmdbIntervals {
    return { starts: this.starts.view(), values: this.values.view() };
  }
}

export interface ExportFile {
  data: MmdbDataWriter;
  intervals: MmdbIntervals;
}

export interface CollectedExport {
  city: ExportFile;
  asn: ExportFile;
  anonymous: ExportFile;
  /** elementary intervals looked up */
  intervals: number;
}

/** One part of answers (a place, a network, a detection): its file offset and CSV columns. */
type Part = FedPart;

/** `csvColumns` empty when no CSV is made */
function part(offset: number, csvColumns: string): Part {
  return { offset, csv: `,${csvColumns}`, id: -1 };
}

/** A JSON record's members after its `"ip":"…",`: the part of an answer the address does not change. */
function afterAddress(json: string): string {
  return json.slice(json.indexOf('",') + 2);
}

/**
 * The place and network parts of a GeoIP answer's JSON: they split where
 * `"isp"` begins (a quote inside a text is escaped, so the key cannot be
 * part of one).
 */
function splitGeo(json: string): [string, string] {
  const at = json.lastIndexOf(',"isp":');
  return [afterAddress(json.slice(0, at)), json.slice(at + 1)];
}

/** Parts met before, each made once: the keys are the answers' own JSON texts. */
class Parts {
  private readonly byKey = new Map<string, Part>();

  constructor(readonly make: (key: string) => Part) {}

  of(key: string): Part {
    let found = this.byKey.get(key);
    if (found === undefined) {
      found = this.make(key);
      this.byKey.set(key, found);
    }
    return found;
  }
}

/** Parts by a memoised text that stands for their JSON text. */
class PartsBy<K> {
  private readonly byKey = new Map<K, Part>();

  get(key: K): Part | undefined {
    return this.byKey.get(key);
  }

  set(key: K, part: Part): Part {
    this.byKey.set(key, part);
    return part;
  }
}

/** Parts by a table index (dense: an array; NONE and other marks below 0 in a map). */
class PartsByIndex {
  private readonly byIndex: (Part | undefined)[] = [];
  private readonly others = new PartsBy<number>();

  get(index: number): Part | undefined {
    return index >= 0 && index < 0x7fffffff ? this.byIndex[index] : this.others.get(index);
  }

  set(index: number, part: Part): Part {
    if (index >= 0 && index < 0x7fffffff) {
      // grown without holes: a sparse array would fall back to a dictionary
      while (this.byIndex.length <= index) this.byIndex.push(undefined);
      this.byIndex[index] = part;
    } else this.others.set(index, part);
    return part;
  }
}

/**
 * An interval's first address as the lookups take it: one object per family,
 * rewritten for each interval (the lookups read an address and keep nothing
 * of it; a new object and groups array for each of 8 million intervals was
 * much of the export's garbage). Its text is made only when a JSON text is
 * asked for (withText: most intervals are answered from their table indexes).
 */
class WalkAddress {
  private readonly v4 = { version: 4 as const, text: '', value: 0 };
  private readonly groups = [0, 0, 0, 0, 0, 0, 0, 0];
  private readonly v6 = { version: 6 as const, text: '', groups: this.groups };

  at(version: 4 | 6, w0: number, w1: number, w2: number, w3: number): Ip {
    if (version === 4) {
      this.v4.value = w3;
      return this.v4;
    }
    groupsOfWords(this.groups, w0, w1, w2, w3);
    return this.v6;
  }
}

/** An address of its own, with its text (a copy: the walk's object is rewritten). */
function withText(ip: Ip): Ip {
  return ip.version === 4
    ? { version: 4, value: ip.value, text: formatIpv4(ip.value) }
    : { version: 6, groups: [...ip.groups], text: formatIpv6(ip.groups) };
}

/** What the locations of one place of the data set share (collectExport's locationPart). */
interface PlaceTemplate {
  timezone: string | null;
  city: MapTemplate;
  /** its CSV columns for a location's coordinates (null: no CSV is made) */
  csv: ((latitude: number | null, longitude: number | null) => string) | null;
}

/** `csv` null: no CSV rows are made (an export of the MMDB files only). */
export function collectExport(s: ExportSources, csv: CsvInWorker | null): CollectedExport {
  // the boundaries first: the files' interval lists are made once, at their size
  const sources = boundarySources(s).map((source) => source.boundaries());
  const v4 = mergeV4(sources.map((b) => b.v4));
  const v6 = mergeV6(sources.map((b) => b.v6));
  const most = v4.length + v6.length / 4;
  const files = {
    city: { data: new MmdbDataWriter(), list: new IntervalList(most) },
    asn: { data: new MmdbDataWriter(), list: new IntervalList(most) },
    anonymous: { data: new MmdbDataWriter(), list: new IntervalList(most) },
  };
  const offset = (data: MmdbDataWriter, value: ReturnType<typeof cityRecord>) =>
    value === null ? NO_DATA : data.write(value);
  const places = new Parts((key) => {
    const r = JSON.parse(`{${key}}`) as GeoIpRecord;
    return part(offset(files.city.data, cityRecord(r)), csv === null ? '' : placeCsv(r));
  });
  const networks = new Parts((key) => {
    const r = JSON.parse(`{${key}`) as GeoIpRecord;
    return part(offset(files.asn.data, asnRecord(r)), csv === null ? '' : networkCsv(r));
  });
  const detections = new Parts((key) => {
    const d = JSON.parse(`{"ip":"",${key}`) as VpnDetection;
    return part(
      offset(files.anonymous.data, anonymousRecord(d)),
      csv === null ? '' : detectionCsv(d),
    );
  });
  const rows = csv;
  const overrides = s.geoip.overrides.current;
  /** the parts of an address no override covers, by its table indexes: nothing parsed */
  const placeByLocation = new PartsByIndex();
  const placeByGeofeed = new PartsByIndex();
  const networkByRecord = new PartsByIndex();
  const detectionByMembers = new PartsBy<string>();
  const geoParts = (ip: Ip): [Part, Part] => {
    const [placeKey, networkKey] = splitGeo(s.geoip.json(withText(ip)));
    return [places.of(placeKey), networks.of(networkKey)];
  };
  /** per place record of the data set: its City members (written once), time zone and CSV columns */
  const placeTemplates = new Map<number, PlaceTemplate>();
  /**
   * A location of the data set's: its place's part made once, then per
   * location only the coordinates (600,000 locations share 195,000 places:
   * a whole answer made, parsed and written for each was a quarter of the export).
   */
  const locationPart = (place: number, location: number): Part => {
    let template = placeTemplates.get(place);
    if (template === undefined) {
      const fields = s.geoip.placeFields(place);
      template = {
        timezone: fields.timezone,
        city: files.city.data.template(cityPlaceMembers(fields), CITY_LOCATION),
        csv: csv === null ? null : placeCsvOf(fields),
      };
      placeTemplates.set(place, template);
    }
    const { latitude, longitude } = s.geoip.coordinatesAt(location);
    const value = cityLocation(template.timezone, latitude, longitude, s.geoip.radiusAt(location));
    const offset =
      template.city.count === 0 && value === null
        ? NO_DATA
        : files.city.data.writeWith(template.city, value);
    return part(offset, template.csv === null ? '' : template.csv(latitude, longitude));
  };
  const detectionPart = (ip: Ip): Part => detections.of(afterAddress(s.vpn.record(withText(ip))));
  /** Looks the address up as the API does, and adds the interval it starts. */
  const answer = (ip: Ip, w0: number, w1: number, w2: number, w3: number): void => {
    let place: Part;
    let network: Part;
    let detection: Part;
    if (overrides.size !== 0 && overrides.find(ip) !== NO_OVERRIDE) {
      [place, network] = geoParts(ip);
      detection = detectionPart(ip);
    } else {
      // the place part is its geofeed answer's or its location's, the network
      // part its AS record's and bogon flag's
      const bogon = isBogon(ip);
      // read out at once: recordIndexes's object is the next lookup's too
      const {
        location: dataLocation,
        place: dataPlace,
        network: asnIndex,
      } = s.geoip.recordIndexes(ip);
      // the geofeed answer the API takes (a cloud region only where the tables name another country)
      const fed = s.geoip.fedAnswer(ip, dataPlace, bogon);
      const placeBy = fed === NONE ? placeByLocation : placeByGeofeed;
      const location = fed === NONE ? dataLocation : fed;
      const record = bogon ? BOGON_KEY : asnIndex;
      let knownPlace = placeBy.get(location);
      if (knownPlace === undefined && fed === NONE && location !== NONE) {
        knownPlace = placeBy.set(location, locationPart(dataPlace, location));
      }
      let knownNetwork = networkByRecord.get(record);
      if (knownPlace === undefined || knownNetwork === undefined) {
        // made from the texts but not kept by them: millions of place texts cost a gigabyte
        const [placeKey, networkKey] = splitGeo(s.geoip.json(withText(ip)));
        knownPlace ??= placeBy.set(location, places.make(placeKey));
        knownNetwork ??= networkByRecord.set(record, networks.make(networkKey));
      }
      place = knownPlace;
      network = knownNetwork;
      const members = s.vpn.members(ip, asnIndex);
      if (members === null) {
        detection = detectionPart(ip);
      } else {
        detection =
          detectionByMembers.get(members) ??
          detectionByMembers.set(members, detections.make(`${members}}`));
      }
    }
    files.city.list.push(w0, w1, w2, w3, place.offset);
    files.asn.list.push(w0, w1, w2, w3, network.offset);
    files.anonymous.list.push(w0, w1, w2, w3, detection.offset);
    rows?.add(ip.version, w0, w1, w2, w3, place, network, detection);
  };
  const walk = new WalkAddress();
  for (let i = 0; i < v4.length; i++) {
    const start = v4[i]!;
    answer(walk.at(4, 0, 0, 0, start), 0, 0, 0, start);
  }
  rows?.end(4);
  const count6 = v6.length / 4;
  for (let i = 0; i < count6; i++) {
    const w0 = v6[4 * i]!;
    const w1 = v6[4 * i + 1]!;
    const w2 = v6[4 * i + 2]!;
    const w3 = v6[4 * i + 3]!;
    if (w0 === 0 && w1 === 0 && w2 === 0) continue; // ::/96: the IPv4 subtree, written above
    if (w0 === 0 && w1 === 0 && w2 === 0xffff) {
      // ::ffff:0:0/96 (layoutBoundaries): the alias of the IPv4 subtree; its CSV rows are IPv4's
      for (const f of Object.values(files)) f.list.push(w0, w1, w2, w3, ALIAS_TO_IPV4);
      rows?.gap(w0, w1, w2, w3);
      continue;
    }
    answer(walk.at(6, w0, w1, w2, w3), w0, w1, w2, w3);
  }
  rows?.end(6);
  const done = (f: (typeof files)['city']): ExportFile => ({
    data: f.data,
    intervals: f.list.finish(),
  });
  return {
    city: done(files.city),
    asn: done(files.asn),
    anonymous: done(files.anonymous),
    intervals: v4.length + count6,
  };
}
