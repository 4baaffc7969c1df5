// IANA special-purpose address registries (RFC 6890 and the RFCs cited per
// row): no RIR holds these, so /whois answers 404 before any network call
// (CONTRACT.md: "the message naming the special-purpose range").
import { AppError } from '../../errors.js';
import { PrefixList } from '../../net/cidr-match.js';
import type { Ip } from '../../net/ip.js';

interface SpecialRange {
  range: string;
  purpose: string;
}

const ROWS: readonly (readonly [string, string])[] = [
  ['0.0.0.0/8', '"this network" (RFC 791)'],
  ['10.0.0.0/8', 'private-use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space for carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local (RFC 3927)'],
  ['172.16.0.0/12', 'private-use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1 (RFC 5737)'],
  ['192.31.196.0/24', 'AS112-v4 (RFC 7535)'],
  ['192.52.193.0/24', 'AMT (RFC 7450)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private-use (RFC 1918)'],
  ['192.175.48.0/24', 'direct delegation AS112 service (RFC 7534)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  // listed before 240.0.0.0/4 so the more specific purpose is named
  ['255.255.255.255/32', 'limited broadcast (RFC 919)'],
  ['240.0.0.0/4', 'reserved for future use (RFC 1112)'],
  ['::/128', 'unspecified address (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  // no ::ffff:0:0/96 row: parseIp already unwraps IPv4-mapped addresses, and
  // parseCidr reads that prefix as the IPv4 /0 it wraps
  ['64:ff9b::/96', 'IPv4/IPv6 translation (RFC 6052)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001::/23', 'IETF protocol assignments (RFC 2928)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['2002::/16', '6to4 (RFC 3056)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['5f00::/16', 'SRv6 SIDs (RFC 9602)'],
  ['fc00::/7', 'unique local (RFC 4193)'],
  ['fe80::/10', 'link-local unicast (RFC 4291)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
  // IANA allocates unicast space to the RIRs only from 2000::/3; the rest is reserved
  ['::/3', 'reserved by the IETF outside global unicast 2000::/3 (RFC 4291)'],
  ['4000::/2', 'reserved by the IETF outside global unicast 2000::/3 (RFC 4291)'],
  ['8000::/1', 'reserved by the IETF outside global unicast 2000::/3 (RFC 4291)'],
];

const SPECIAL = new PrefixList<SpecialRange>(
  ROWS.map(([range, purpose]) => [range, { range, purpose }] as const),
);

export function specialRangeOf(ip: Ip): SpecialRange | null {
  return SPECIAL.match(ip);
}

/** Throws NOT_FOUND naming the range when no registry can hold the address. */
export function assertRegistrable(ip: Ip): void {
  const special = specialRangeOf(ip);
  if (special !== null) {
    throw new AppError(
      'NOT_FOUND',
      `${ip.text} is in ${special.range}, ${special.purpose}: no registry holds it.`,
    );
  }
}
