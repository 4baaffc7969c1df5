// Bogons: addresses in special-purpose ranges that are not globally reachable
// (src/net/special-purpose.ts). No GeoIP database can place them, so a lookup
// answers `bogon: true` with every other field null.
import type { Ip } from '../../net/ip.js';
import { bogonRangeOf } from '../../net/special-purpose.js';

/** Why ip is not a public address, or null when it is one. */
export function specialPurposeRange(ip: Ip): string | null {
  return bogonRangeOf(ip)?.purpose ?? null;
}

export function isBogon(ip: Ip): boolean {
  return bogonRangeOf(ip) !== null;
}
