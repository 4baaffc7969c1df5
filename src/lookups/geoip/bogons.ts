// Special-purpose address ranges (IANA IPv4/IPv6 Special-Purpose Address
// Registries, RFC 6890 and successors) that no registry allocates and no
// GeoIP database can place. A GeoIP lookup of one answers `bogon: true`; a
// whois lookup answers NOT_FOUND naming the range. Globally reachable special
// ranges (AS112, AMT, Teredo) are deliberately absent: they are real networks.
import { PrefixList } from '../../net/cidr-match.js';
import type { Ip } from '../../net/ip.js';

const SPECIAL_RANGES = new PrefixList<string>([
  ['0.0.0.0/8', '"this network" (RFC 791)'],
  ['10.0.0.0/8', 'private-use (RFC 1918)'],
  ['100.64.0.0/10', 'shared address space for carrier-grade NAT (RFC 6598)'],
  ['127.0.0.0/8', 'loopback (RFC 1122)'],
  ['169.254.0.0/16', 'link-local (RFC 3927)'],
  ['172.16.0.0/12', 'private-use (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments (RFC 6890)'],
  ['192.0.2.0/24', 'documentation, TEST-NET-1 (RFC 5737)'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast (RFC 7526)'],
  ['192.168.0.0/16', 'private-use (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking (RFC 2544)'],
  ['198.51.100.0/24', 'documentation, TEST-NET-2 (RFC 5737)'],
  ['203.0.113.0/24', 'documentation, TEST-NET-3 (RFC 5737)'],
  ['224.0.0.0/4', 'multicast (RFC 5771)'],
  ['255.255.255.255/32', 'limited broadcast (RFC 919)'],
  ['240.0.0.0/4', 'reserved for future use (RFC 1112)'],
  ['::/128', 'unspecified address (RFC 4291)'],
  ['::1/128', 'loopback (RFC 4291)'],
  ['64:ff9b::/96', 'IPv4/IPv6 translation, NAT64 well-known prefix (RFC 6052)'],
  ['64:ff9b:1::/48', 'local-use IPv4/IPv6 translation (RFC 8215)'],
  ['100::/64', 'discard-only (RFC 6666)'],
  ['2001:2::/48', 'benchmarking (RFC 5180)'],
  ['2001:10::/28', 'deprecated ORCHID (RFC 4843)'],
  ['2001:db8::/32', 'documentation (RFC 3849)'],
  ['3fff::/20', 'documentation (RFC 9637)'],
  ['5f00::/16', 'segment routing SIDs (RFC 9602)'],
  ['fc00::/7', 'unique-local (RFC 4193)'],
  ['fe80::/10', 'link-local (RFC 4291)'],
  ['fec0::/10', 'deprecated site-local (RFC 3879)'],
  ['ff00::/8', 'multicast (RFC 4291)'],
]);

/** The one range an IPv6 address must be in to be globally routable (RFC 4291 §2.4). */
const GLOBAL_UNICAST_V6 = new PrefixList<true>([['2000::/3', true]]);

/** Why ip is not a public address, or null when it is one. */
export function specialPurposeRange(ip: Ip): string | null {
  const label = SPECIAL_RANGES.match(ip);
  if (label !== null) return label;
  if (ip.version === 6 && GLOBAL_UNICAST_V6.match(ip) === null) {
    return 'outside the IPv6 global unicast space 2000::/3 (RFC 4291)';
  }
  return null;
}

export function isBogon(ip: Ip): boolean {
  return specialPurposeRange(ip) !== null;
}
