// Which intervals of the walk match a filter, answered as GET /ip/:ip and
// /ip/:ip/vpn answer their first address. The lanes a filter needs: the
// bogons and the operator's overrides always; the GeoIP table and the
// geofeeds for a country; the ASN table for an AS, a kind or a provider; the
// feeds for a kind or a provider. Where no override covers an interval (the
// common case) its answer is read from the lanes' values through memos by
// record (a location's country, an AS record's number, a feed set's and AS
// record's verdict); under an override, or where a proxy list went stale,
// the lookups themselves are asked for the interval's first address.
import { Buffer } from 'node:buffer';
import { NONE } from '../../data/range-table.js';
import { cidrRanges, rangeBoundaries } from '../../net/range-boundaries.js';
import { notGlobalRanges } from '../../net/special-purpose.js';
import { isIpv4Mapped, type Ip } from '../../net/ip.js';
import { isBogon } from '../geoip/bogons.js';
import type { GeoIpLookup } from '../geoip/geoip.js';
import { NO_OVERRIDE } from '../overrides/override-index.js';
import { detect, type VpnDetection } from '../vpn/detect.js';
import type { FeedIndex } from '../vpn/index/detection-index.js';
import type { VpnJson } from '../vpn/record-json.js';
import { addressAt, ListLane, sortedV4, TableLaneV4, TableLaneV6, type Lane } from './lanes.js';
import { providerKey, type RangeFilter, type RangeKind } from './range-filter.js';
import type { IntervalTest } from './range-walk.js';

/** What the lists are made from: the lookups the API answers with. */
export interface RangeSources {
  geoip: GeoIpLookup;
  /** the detection answers; null where detection is not loaded (the CLI's country lists) */
  vpn: VpnJson | null;
  /** the detection index the vpn answers read (its snapshot for one list) */
  feeds: (() => FeedIndex) | null;
}

const KIND_BIT: Record<RangeKind, number> = {
  vpn: 1,
  proxy: 2,
  tor: 4,
  relay: 8,
  hosting: 16,
  mobile: 32,
  bogon: 64,
};

/** A detection answer as the filter reads it. */
interface Verdict {
  kinds: number;
  /** providerKey of its provider, '' for none */
  provider: string;
}

function verdictOf(d: VpnDetection, bogon: boolean): Verdict {
  const kinds =
    (d.isVpn ? KIND_BIT.vpn : 0) |
    (d.isProxy ? KIND_BIT.proxy : 0) |
    (d.isTor ? KIND_BIT.tor : 0) |
    (d.isRelay ? KIND_BIT.relay : 0) |
    (d.isHosting ? KIND_BIT.hosting : 0) |
    (d.isMobile ? KIND_BIT.mobile : 0) |
    (bogon ? KIND_BIT.bogon : 0);
  return { kinds, provider: d.provider === null ? '' : providerKey(d.provider) };
}

/** the verdicts by feed set and AS record, kept while the index and the ASN table are these */
let verdictMemo: { feeds: object; asn: object; byPair: Map<number, Verdict> } | null = null;

/** the bogons' boundaries: the special-purpose registry, fixed */
let bogonStarts: { v4: Uint32Array; v6: Uint32Array } | null = null;

function bogonBoundaries(): { v4: Uint32Array; v6: Uint32Array } {
  if (bogonStarts === null) {
    const { v4, v6 } = cidrRanges(notGlobalRanges());
    const b = rangeBoundaries(v4, v6);
    bogonStarts = { v4: sortedV4(b.v4), v6: b.v6 };
  }
  return bogonStarts;
}

/** ::ffff:0:0/96's first address and the one after it, four words each */
const MAPPED = Uint32Array.from([0, 0, 0xffff, 0, 0, 0, 0x10000, 0]);

const isMapped = (ip: Ip): boolean => ip.version === 6 && isIpv4Mapped(ip.groups);

/** One family's lanes and the test of its intervals. */
export interface FamilyPlan {
  lanes: Lane[];
  test: IntervalTest;
}

/** The lanes and the test of `version`'s intervals for a filter over the sources now. */
export function planFamily(s: RangeSources, f: RangeFilter, version: 4 | 6): FamilyPlan {
  const geoip = s.geoip;
  const tables = geoip.tables;
  const overrides = geoip.overrides.current;
  const geofeeds = geoip.geofeeds.current;
  const wantsKinds = f.kinds !== null && [...f.kinds].some((k) => k !== 'bogon');
  const needsDetection = wantsKinds || f.providers !== null;
  const needsNetwork = f.asns !== null || needsDetection;
  if (needsDetection && (s.vpn === null || s.feeds === null)) {
    throw new Error('a kind or provider list needs the detection index');
  }
  const feeds = needsDetection ? s.feeds!() : null;
  const table = (t: typeof tables.geoip.table) =>
    version === 4 ? new TableLaneV4(t) : new TableLaneV6(t);
  const list = (starts: { v4: Uint32Array; v6: Uint32Array }, valueAt: (ip: Ip) => number) =>
    new ListLane(version, version === 4 ? sortedV4(starts.v4) : starts.v6, valueAt);

  const bogons = list(bogonBoundaries(), (ip) => (isBogon(ip) ? 1 : 0));
  const overrideLane =
    overrides.size === 0 ? null : list(overrides.boundaries(), (ip) => overrides.find(ip));
  const place = f.countries === null ? null : table(tables.geoip.table);
  const fed = f.countries === null || geofeeds.size === 0 ? null : table(geofeeds.table);
  const network = needsNetwork ? table(tables.asn.table) : null;
  const feedLane = feeds === null ? null : list(feeds.boundaries(), (ip) => feeds.settledSetOf(ip));
  // ::ffff:0:0/96 is IPv4's: the API answers those addresses as the IPv4 they carry
  const mapped = version === 6 ? new ListLane(6, MAPPED, (ip) => (isMapped(ip) ? 1 : 0)) : null;
  // the first lane is the walk's main one: the one with the most boundaries
  const lanes: Lane[] = [];
  for (const lane of [place, network, feedLane, fed, overrideLane, bogons, mapped]) {
    if (lane !== null) lanes.push(lane);
  }

  // a location's country as a packed code, kept while the GeoIP tables are these
  const codes = place === null ? null : locationCountries(geoip);
  const countries = f.countries;
  /** packed code → wanted */
  const wanted = new Uint8Array(0x10000);
  for (const c of countries ?? []) wanted[packCountry(c)] = 1;
  const fedTest = new Map<number, boolean>();
  const countryIs = (location: number): boolean => {
    let code = codes!.byLocation[location]!;
    if (code === 0) code = codes!.fill(location);
    return wanted[code] === 1;
  };
  const fedCountryIs = (answer: number): boolean => {
    let yes = fedTest.get(answer);
    if (yes === undefined) {
      yes = countries!.has(geofeeds.location(answer).country);
      fedTest.set(answer, yes);
    }
    return yes;
  };
  const asns = f.asns;
  const kindBits = f.kinds === null ? 0 : [...f.kinds].reduce((b, k) => b | KIND_BIT[k], 0);
  const providers = f.providers;

  if (feeds !== null) {
    const asnSet = tables.asn;
    if (verdictMemo === null || verdictMemo.feeds !== feeds || verdictMemo.asn !== asnSet) {
      verdictMemo = { feeds, asn: asnSet, byPair: new Map() };
    }
  }
  const byPair = verdictMemo?.byPair ?? new Map<number, Verdict>();
  /** the address of a position of the walk */
  const here = (at: Uint32Array) => addressAt(version, at[0]!, at[1]!, at[2]!, at[3]!);
  const verdictAt = (set: number, record: number, at: Uint32Array): Verdict => {
    // record < 2^30 (MAX_RECORDS); NONE folds onto 2^30 - 1
    const key = set * 0x40000000 + (record === NONE ? 0x3fffffff : record);
    let v = byPair.get(key);
    if (v === undefined) {
      // what record-json.ts memoises for GET /ip/:ip/vpn: the verdict of the
      // feed set and the AS record (no override here), without a search
      const asn = geoip.networkAt(record);
      v = verdictOf(
        detect(here(at), () => asn, feeds!, feeds!.matchOfSet(set)),
        false,
      );
      byPair.set(key, v);
    }
    return v;
  };
  const BOGON_VERDICT: Verdict = { kinds: KIND_BIT.bogon, provider: '' };

  /** The whole answers of the interval's first address: under an override, a stale list. */
  const slowTest = (ip: Ip): boolean => {
    const g = geoip.lookup(ip);
    if (countries !== null && (g.country === null || !countries.has(g.country))) return false;
    if (asns !== null && (g.asn === null || !asns.has(Number(g.asn.slice(2))))) return false;
    if (f.kinds !== null || providers !== null) {
      const v = needsDetection
        ? verdictOf(s.vpn!.detection(ip), g.bogon)
        : g.bogon
          ? BOGON_VERDICT
          : NO_KINDS;
      if (f.kinds !== null && (v.kinds & kindBits) === 0) return false;
      if (providers !== null && !providers.has(v.provider)) return false;
    }
    return true;
  };

  const test: IntervalTest = (at) => {
    if (mapped !== null && mapped.value === 1) return false;
    if (
      (overrideLane !== null && overrideLane.value !== NO_OVERRIDE) ||
      (feedLane !== null && feedLane.value < 0)
    ) {
      return slowTest(here(at));
    }
    const bogon = bogons.value === 1;
    if (countries !== null) {
      if (bogon) return false;
      const answer = fed === null ? NONE : fed.value;
      if (answer !== NONE) {
        if (!fedCountryIs(answer)) return false;
      } else if (place!.value === NONE || !countryIs(place!.value)) return false;
    }
    if (asns !== null) {
      if (bogon || network!.value === NONE) return false;
      const info = geoip.networkAt(network!.value);
      if (info === null || !asns.has(info.asn)) return false;
    }
    if (f.kinds !== null || providers !== null) {
      const v = bogon
        ? BOGON_VERDICT
        : needsDetection
          ? verdictAt(feedLane!.value, network!.value, at)
          : NO_KINDS;
      if (f.kinds !== null && (v.kinds & kindBits) === 0) return false;
      if (providers !== null && !providers.has(v.provider)) return false;
    }
    return true;
  };
  return { lanes, test };
}

const NO_KINDS: Verdict = { kinds: 0, provider: '' };

/** the code of no country (0: not known yet) */
const NO_COUNTRY = 0xffff;

/** An ISO code's two letters as one 16-bit number. */
function packCountry(code: string): number {
  return (code.charCodeAt(0) << 8) | code.charCodeAt(1);
}

interface LocationCountries {
  /** packed country code per location; 0 until asked, NO_COUNTRY for none */
  byLocation: Uint16Array;
  /** finds, keeps and returns a location's code */
  fill(location: number): number;
}

const COUNTRY_HEAD = Buffer.from('"country":"');
const COUNTRY_NULL = Buffer.from('"country":null');

/**
 * The packed country of a place text written into `bytes` (`end` bytes):
 * its first member is `"country":"XX"` or `"country":null` (record-map.ts
 * writes it first), read from the bytes without a string (195,000 places);
 * any other shape is parsed (`parsed`).
 */
function placeCountry(bytes: Buffer, end: number, parsed: () => string | null): number {
  const at = COUNTRY_HEAD.length;
  if (
    end >= COUNTRY_NULL.length &&
    bytes.compare(COUNTRY_NULL, 0, COUNTRY_NULL.length, 0, COUNTRY_NULL.length) === 0
  ) {
    return NO_COUNTRY;
  }
  if (end > at + 2 && bytes.compare(COUNTRY_HEAD, 0, at, 0, at) === 0 && bytes[at + 2] === 0x22) {
    return (bytes[at]! << 8) | bytes[at + 1]!;
  }
  const country = parsed();
  return country === null || country.length !== 2 ? NO_COUNTRY : packCountry(country);
}

let countriesOf: { set: object; codes: LocationCountries } | null = null;

/**
 * The country of each location of the GeoIP tables (as /ip/:ip answers it
 * where neither a geofeed nor an override places the address), found once
 * per place and kept with the tables: a list walks 8 million ranges.
 */
function locationCountries(geoip: GeoIpLookup): LocationCountries {
  const set = geoip.tables.geoip;
  if (countriesOf?.set === set) return countriesOf.codes;
  const locations = set.locations!;
  const byLocation = new Uint16Array(locations.count);
  const byPlace = new Uint16Array(set.records.count);
  const scratch = Buffer.alloc(set.records.longest);
  const codes: LocationCountries = {
    byLocation,
    fill(location) {
      const p = locations.place(location);
      let code = byPlace[p]!;
      if (code === 0) {
        const end = set.records.write(p, scratch, 0);
        code = placeCountry(scratch, end, () => geoip.placeFields(p).country);
        byPlace[p] = code;
      }
      byLocation[location] = code;
      return code;
    },
  };
  countriesOf = { set, codes };
  return codes;
}
