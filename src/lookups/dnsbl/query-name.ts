// DNSBL query names (RFC 5782 §2.1): the IPv4 octets in reverse order, then the zone.
import type { Ipv4 } from '../../net/ip.js';

/** 192.0.2.23 + dnsbl.example → 23.2.0.192.dnsbl.example */
export function dnsblQueryName(ip: Ipv4, zone: string): string {
  const v = ip.value;
  return `${v & 255}.${(v >>> 8) & 255}.${(v >>> 16) & 255}.${v >>> 24}.${zone}`;
}
