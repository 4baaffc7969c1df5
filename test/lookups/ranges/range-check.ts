// What the range tests share: a list read back into sorted ranges, and
// whether an address's own answers (GET /ip/:ip's and /ip/:ip/vpn's records,
// computed in process) match a filter, by the filter's definition in
// docs/api.md written here again, not by src/lookups/ranges/'s code.
import assert from 'node:assert/strict';
import { parseCidr } from '../../../src/net/cidr-match.js';
import { formatIpv4, formatIpv6, parseIp, type Ip } from '../../../src/net/ip.js';
import type { GeoIpRecord } from '../../../src/lookups/geoip/geoip.js';
import type { VpnDetection } from '../../../src/lookups/vpn/detect.js';

export interface Query {
  country?: string;
  asn?: string;
  kind?: string;
  provider?: string;
  family?: string;
}

/** A family's listed blocks as sorted, non-overlapping [start, end] ranges (BigInt). */
export interface Listed {
  starts: bigint[];
  ends: bigint[];
}

export function bigOf(ip: Ip): bigint {
  return ip.version === 4
    ? BigInt(ip.value)
    : ip.groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

export function ipOf(version: 4 | 6, n: bigint): Ip {
  if (version === 4) return parseIp(formatIpv4(Number(n)))!;
  const groups: number[] = [];
  for (let s = 112n; s >= 0n; s -= 16n) groups.push(Number((n >> s) & 0xffffn));
  return parseIp(formatIpv6(groups))!;
}

/** One CIDR a line, by family: checked ascending and disjoint, neighbours kept apart. */
export function readList(text: string): Record<4 | 6, Listed> {
  const out: Record<4 | 6, Listed> = { 4: { starts: [], ends: [] }, 6: { starts: [], ends: [] } };
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const cidr = parseCidr(line);
    assert.ok(cidr !== null, `a CIDR: ${line}`);
    const bits = cidr.version === 4 ? 32 : 128;
    const start =
      cidr.version === 4
        ? BigInt(cidr.network[0]!)
        : cidr.network.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
    assert.equal(`${line.split('/')[0]}`, line.split('/')[0], line);
    const end = start + (1n << BigInt(bits - cidr.prefixLength)) - 1n;
    const list = out[cidr.version];
    const last = list.ends[list.ends.length - 1];
    assert.ok(last === undefined || start > last, `ascending and disjoint at ${line}`);
    list.starts.push(start);
    list.ends.push(end);
  }
  return out;
}

export function listed(list: Listed, n: bigint): boolean {
  let lo = 0;
  let hi = list.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list.starts[mid]! > n) hi = mid - 1;
    else if (list.ends[mid]! < n) lo = mid + 1;
    else return true;
  }
  return false;
}

const fold = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const items = (text: string | undefined) => text?.split(',').map((t) => t.trim());

/** Whether the answers of one address match the query (every filter given; any of its values). */
export function answersMatch(
  q: Query,
  g: GeoIpRecord,
  d: VpnDetection | null,
  providerIds: Readonly<Record<string, string>>,
): boolean {
  const countries = items(q.country)?.map((c) => c.toUpperCase());
  if (countries && (g.country === null || !countries.includes(g.country))) return false;
  const asns = items(q.asn)?.map((a) => `AS${a.replace(/^AS/i, '')}`);
  if (asns && (g.asn === null || !asns.includes(g.asn))) return false;
  const kinds = items(q.kind);
  if (kinds) {
    const has: Record<string, boolean> = {
      vpn: d?.isVpn ?? false,
      proxy: d?.isProxy ?? false,
      tor: d?.isTor ?? false,
      relay: d?.isRelay ?? false,
      hosting: d?.isHosting ?? false,
      mobile: d?.isMobile ?? false,
      bogon: g.bogon,
    };
    if (!kinds.some((k) => has[k])) return false;
  }
  const providers = items(q.provider)?.map((p) => fold(providerIds[p.toLowerCase()] ?? p));
  if (providers && (d?.provider == null || !providers.includes(fold(d.provider)))) return false;
  return true;
}
