// The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and
// the RFCs cited per row), in one table for both uses:
//  - GeoIP calls an address a bogon when its range is not globally reachable;
//  - whois answers NOT_FOUND for every range here: no RIR holds any of them,
//    not even the globally reachable ones (AS112, AMT, Teredo, 6to4).
// More specific rows come first: the first match names the purpose.
import { PrefixList } from './cidr-match.js';
import type { Ip } from './ip.js';

export interface SpecialRange {
  range: string;
  purpose: string;
  /** IANA's "Globally Reachable" column */
  global: boolean;
}

const ROWS: readonly SpecialRange[] = [
  { range: '0.0.0.0/8', purpose: '"this network" (RFC 791)', global: false },
  { range: '10.0.0.0/8', purpose: 'private-use (RFC 1918)', global: false },
  {
    range: '100.64.0.0/10',
    purpose: 'shared address space for carrier-grade NAT (RFC 6598)',
    global: false,
  },
  { range: '127.0.0.0/8', purpose: 'loopback (RFC 1122)', global: false },
  { range: '169.254.0.0/16', purpose: 'link-local (RFC 3927)', global: false },
  { range: '172.16.0.0/12', purpose: 'private-use (RFC 1918)', global: false },
  { range: '192.0.0.0/24', purpose: 'IETF protocol assignments (RFC 6890)', global: false },
  { range: '192.0.2.0/24', purpose: 'documentation, TEST-NET-1 (RFC 5737)', global: false },
  { range: '192.31.196.0/24', purpose: 'AS112-v4 (RFC 7535)', global: true },
  { range: '192.52.193.0/24', purpose: 'AMT (RFC 7450)', global: true },
  { range: '192.88.99.0/24', purpose: 'deprecated 6to4 relay anycast (RFC 7526)', global: false },
  { range: '192.168.0.0/16', purpose: 'private-use (RFC 1918)', global: false },
  { range: '192.175.48.0/24', purpose: 'direct delegation AS112 service (RFC 7534)', global: true },
  { range: '198.18.0.0/15', purpose: 'benchmarking (RFC 2544)', global: false },
  { range: '198.51.100.0/24', purpose: 'documentation, TEST-NET-2 (RFC 5737)', global: false },
  { range: '203.0.113.0/24', purpose: 'documentation, TEST-NET-3 (RFC 5737)', global: false },
  { range: '224.0.0.0/4', purpose: 'multicast (RFC 5771)', global: false },
  { range: '255.255.255.255/32', purpose: 'limited broadcast (RFC 919)', global: false },
  { range: '240.0.0.0/4', purpose: 'reserved for future use (RFC 1112)', global: false },
  { range: '::/128', purpose: 'unspecified address (RFC 4291)', global: false },
  { range: '::1/128', purpose: 'loopback (RFC 4291)', global: false },
  // no ::ffff:0:0/96 row: parseIp unwraps IPv4-mapped addresses to the IPv4 they carry
  {
    range: '64:ff9b::/96',
    purpose: 'IPv4/IPv6 translation, NAT64 well-known prefix (RFC 6052)',
    // IANA marks it globally reachable, but an address here only means
    // something through a translator and no GeoIP database places it
    global: false,
  },
  {
    range: '64:ff9b:1::/48',
    purpose: 'local-use IPv4/IPv6 translation (RFC 8215)',
    global: false,
  },
  { range: '100::/64', purpose: 'discard-only (RFC 6666)', global: false },
  { range: '2001:2::/48', purpose: 'benchmarking (RFC 5180)', global: false },
  { range: '2001:10::/28', purpose: 'deprecated ORCHID (RFC 4843)', global: false },
  { range: '2001::/23', purpose: 'IETF protocol assignments (RFC 2928)', global: true },
  { range: '2001:db8::/32', purpose: 'documentation (RFC 3849)', global: false },
  { range: '2002::/16', purpose: '6to4 (RFC 3056)', global: true },
  { range: '3fff::/20', purpose: 'documentation (RFC 9637)', global: false },
  { range: '5f00::/16', purpose: 'segment routing SIDs (RFC 9602)', global: false },
  { range: 'fc00::/7', purpose: 'unique local (RFC 4193)', global: false },
  { range: 'fe80::/10', purpose: 'link-local unicast (RFC 4291)', global: false },
  { range: 'fec0::/10', purpose: 'deprecated site-local (RFC 3879)', global: false },
  { range: 'ff00::/8', purpose: 'multicast (RFC 4291)', global: false },
  // IANA allocates unicast space to the RIRs only from 2000::/3; the rest is reserved
  ...['::/3', '4000::/2', '8000::/1'].map((range) => ({
    range,
    purpose: 'reserved by the IETF, outside global unicast 2000::/3 (RFC 4291)',
    global: false,
  })),
];

const ALL = new PrefixList<SpecialRange>(ROWS.map((row) => [row.range, row] as const));
const NOT_GLOBAL = new PrefixList<SpecialRange>(
  ROWS.filter((row) => !row.global).map((row) => [row.range, row] as const),
);

/** The special-purpose range holding ip, globally reachable or not; null for ordinary space. */
export function specialRangeOf(ip: Ip): SpecialRange | null {
  return ALL.match(ip);
}

/** The ranges whose addresses are bogons (not globally reachable), as CIDR texts. */
export function notGlobalRanges(): string[] {
  return ROWS.filter((row) => !row.global).map((row) => row.range);
}

/** The range that makes ip a bogon (not globally reachable), or null. */
export function bogonRangeOf(ip: Ip): SpecialRange | null {
  return NOT_GLOBAL.match(ip);
}
