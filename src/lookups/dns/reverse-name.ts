// PTR query names for reverse DNS: RFC 1035 §3.5 (in-addr.arpa) and RFC 3596 §2.5 (ip6.arpa).
import type { Ip } from '../../net/ip.js';

/**
 * `8.8.8.8` → `8.8.8.8.in-addr.arpa`; `2001:db8::1` → 32 reversed lower-case
 * nibbles + `.ip6.arpa`. IPv4-mapped IPv6 arrives already unwrapped by
 * parseIp, so it gets the in-addr.arpa name its owner publishes.
 */
export function reverseName(ip: Ip): string {
  if (ip.version === 4) {
    const v = ip.value;
    return `${v & 255}.${(v >>> 8) & 255}.${(v >>> 16) & 255}.${v >>> 24}.in-addr.arpa`;
  }
  const nibbles: string[] = [];
  for (const group of ip.groups) {
    for (let shift = 12; shift >= 0; shift -= 4)
      nibbles.push(((group >>> shift) & 15).toString(16));
  }
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}
