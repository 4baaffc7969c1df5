// What an AS is (GET /asn/:asn): its names in the ASN data, the prefixes the
// data routes through it (the ASN table's rows of its records, joined and
// cut into the fewest CIDRs), how many addresses they hold, where most of
// its IPv4 addresses are by GeoIP, what detection says of the AS as a whole
// (its curated class, an organisation-name rule, the ASN lists and learned
// VPN networks) and which feeds list addresses of its prefixes.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { AppError } from '../../kit/errors.js';
import { formatIpv4 } from '../../net/ip.js';
import { v4Blocks, v6Blocks, wordsText, type Words } from '../../net/cidr-cover.js';
import type { GeoIpLookup } from '../geoip/geoip.js';
import { detect } from '../vpn/detect.js';
import type { FeedIndex } from '../vpn/index/detection-index.js';
import { ListLane, sortedV4, TableLaneV4, TableLaneV6, type Lane } from './lanes.js';
import { FamilyWalk } from './range-walk.js';
import { NONE } from '../../data/range-table.js';

export interface AsnProfile {
  asn: string;
  /** the organisation the ASN data names (DB-IP's, or the operator's ASN_DB) */
  name: string | null;
  isp: string | null;
  /** where most of its IPv4 addresses are by location (GeoIP: each prefix's first address) */
  country: string | null;
  /** what detection says of any address of the AS that no list names */
  classes: string[];
  isVpn: boolean;
  isHosting: boolean;
  isMobile: boolean;
  provider: string | null;
  reasons: string[];
  prefixes: { v4: string[]; v6: string[] };
  /** addresses routed through it: IPv6's as a decimal text (it passes 2^53) */
  addresses: { v4: number; v6: string };
  /** feeds listing addresses inside its prefixes, and lists naming the AS */
  feeds: string[];
}

/**
 * A public address to ask detection about the AS as a whole: detection is
 * given no feed hits and this AS, so only a bogon check reads the address.
 */
const PROBE = { version: 4 as const, value: 0x08080808, text: '8.8.8.8' };

/**
 * How far the walk goes between two turns of the event loop: a large AS's
 * walk (AS7922's, ~0.3 s) would otherwise hold every other request that long.
 */
const STEP = 10_000;

/** The profile of AS `asn`; NOT_FOUND when neither the ASN data nor detection knows it. */
export async function asnProfile(
  geoip: GeoIpLookup,
  feeds: FeedIndex | null,
  asn: number,
): Promise<AsnProfile> {
  const set = geoip.tables.asn;
  const records = new Set<number>();
  let name: string | null = null;
  let isp: string | null = null;
  for (let r = 0; r < set.records.count; r++) {
    const info = geoip.networkAt(r);
    if (info?.asn !== asn) continue;
    records.add(r);
    name ??= info.org;
    isp ??= info.isp;
  }
  const classEntry = feeds?.asnClasses.get(asn);
  const evidence = feeds?.asnEvidence.get(asn);
  if (records.size === 0 && classEntry === undefined && evidence === undefined) {
    throw new AppError(
      'NOT_FOUND',
      `AS${asn} is unknown here: the ASN data routes no prefix through it and no list names it.`,
    );
  }
  const prefixes = { v4: [] as string[], v6: [] as string[] };
  let v4Count = 0;
  let v6Count = 0n;
  const byCountry = new Map<string, number>();
  const listed = new Set<string>();
  /** a VPN-dense block of this AS (vpn-dense.ts) */
  let dense = false;
  for (const version of [4, 6] as const) {
    const table = version === 4 ? new TableLaneV4(set.table) : new TableLaneV6(set.table);
    const lanes: Lane[] = [table];
    const feedLane =
      feeds === null
        ? null
        : new ListLane(
            version,
            version === 4 ? sortedV4(feeds.boundaries().v4) : feeds.boundaries().v6,
            (ip) => feeds.settledSetOf(ip),
          );
    if (feedLane !== null) lanes.push(feedLane);
    const walk = new FamilyWalk(
      version,
      lanes,
      () => {
        if (table.value === NONE || !records.has(table.value)) return false;
        if (feeds !== null && feedLane !== null && feedLane.value > 0) {
          for (const hit of feeds.matchOfSet(feedLane.value).hits) {
            if (hit.source === 'dense') dense ||= hit.asn === asn;
            else listed.add(hit.feed);
          }
        }
        return true;
      },
      {
        v4: (start, end) => {
          v4Count += end - start + 1;
          const country = geoip.lookup({
            version: 4,
            value: start,
            text: formatIpv4(start),
          }).country;
          if (country !== null)
            byCountry.set(country, (byCountry.get(country) ?? 0) + end - start + 1);
          v4Blocks(start, end, (at, length) => prefixes.v4.push(`${formatIpv4(at)}/${length}`));
        },
        v6: (start: Words, end: Words) => {
          v6Blocks(start, end, (at, length) => {
            v6Count += 1n << BigInt(128 - length);
            prefixes.v6.push(`${wordsText(at)}/${length}`);
          });
        },
      },
    );
    while (!walk.step(STEP)) await nextTurn();
  }
  for (const text of evidence?.reasons ?? []) {
    if (text.startsWith('asn-list:')) listed.add(text.slice('asn-list:'.length));
  }
  const d =
    feeds === null
      ? null
      : detect(PROBE, () => ({ asn, org: name }), feeds, { hits: [], provider: null });
  const classes: string[] = [];
  if (d?.isVpn) classes.push('vpn');
  if (d?.isHosting) classes.push('hosting');
  if (d?.isMobile) classes.push('mobile');
  if (classEntry?.class === 'isp') classes.push('isp');
  if (dense) classes.push('vpn-dense');
  let country: string | null = null;
  let most = 0;
  for (const [code, count] of byCountry) {
    if (count > most) [country, most] = [code, count];
  }
  return {
    asn: `AS${asn}`,
    name,
    isp,
    country,
    classes,
    isVpn: d?.isVpn ?? false,
    isHosting: d?.isHosting ?? false,
    isMobile: d?.isMobile ?? false,
    provider: d?.provider ?? null,
    reasons: d?.reasons ?? [],
    prefixes,
    addresses: { v4: v4Count, v6: v6Count.toString() },
    feeds: [...listed].sort(),
  };
}
