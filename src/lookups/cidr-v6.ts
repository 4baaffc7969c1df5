// CIDR arithmetic for IPv6, wholly pure, on 128-bit BigInts. Its record has
// the fields of the IPv4 one, with honest IPv6 meanings:
//  - no broadcast in IPv6 (RFC 4291 §2: multicast replaces it): `broadcast` is null;
//  - the masks are written in IPv6 notation (RFC 5952 text, e.g. ffff:ffff::);
//  - counts above Number.MAX_SAFE_INTEGER (prefixes shorter than /76) are
//    decimal strings, since a JSON number cannot hold them exactly;
//  - usable hosts leave out the Subnet-Router anycast address (RFC 4291 §2.6.1:
//    the network address, "required" on routers), except on a /127 (RFC 6164:
//    both addresses of a point-to-point link) and a /128 (one host) — what
//    Python's ipaddress.IPv6Network.hosts() also does. So `network` is the
//    first address of the range and `lastHost` always the last.
import { formatIpv6 } from '../net/ip.js';

export interface Cidr6Record {
  network: string;
  broadcast: null;
  subnetMask: string;
  totalHosts: number | string;
  usableHosts: number | string;
  firstHost: string;
  lastHost: string;
  cidr: string;
  prefixLength: number;
  wildcardMask: string;
}

const ALL_ONES = (1n << 128n) - 1n;

function toBigInt(groups: readonly number[]): bigint {
  let value = 0n;
  for (const group of groups) value = (value << 16n) | BigInt(group);
  return value;
}

function toText(value: bigint): string {
  const groups = new Array<number>(8);
  for (let i = 7; i >= 0; i--) {
    groups[i] = Number(value & 0xffffn);
    value >>= 16n;
  }
  return formatIpv6(groups);
}

/** A count as a JSON number when it is exact as one, else as a decimal string. */
function count(value: bigint): number | string {
  return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** The record of `groups/prefix` (prefix 0–128; host bits are cleared). */
export function calculateCidr6(groups: readonly number[], prefix: number): Cidr6Record {
  const hostBits = BigInt(128 - prefix);
  const wildcard = (1n << hostBits) - 1n;
  const mask = ALL_ONES ^ wildcard;
  const network = toBigInt(groups) & mask;
  const last = network | wildcard;
  const total = wildcard + 1n;
  // RFC 4291 §2.6.1 reserves the network address as the Subnet-Router anycast
  // address; RFC 6164 §3 uses both addresses of a /127; a /128 is one host
  const reserved = prefix >= 127 ? 0n : 1n;
  return {
    network: toText(network),
    broadcast: null,
    subnetMask: toText(mask),
    totalHosts: count(total),
    usableHosts: count(total - reserved),
    firstHost: toText(network + reserved),
    lastHost: toText(last),
    cidr: `${toText(network)}/${prefix}`,
    prefixLength: prefix,
    wildcardMask: toText(wildcard),
  };
}
