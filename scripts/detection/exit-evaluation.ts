// Scoring the detector on addresses nobody here chose: VPN providers' own
// published exits (../shared/fixtures/vpn-exits, an evaluation set that is
// never loaded as a feed), open proxies of lists loaded and not loaded, and
// negatives (residential addresses, random addresses of the big clouds).
// Pure: scripts/eval-detection.ts reads the files and supplies the detector.
import { parseCidr, type Cidr } from '../../src/net/cidr-match.js';
import { formatIpv4, parseIp, type Ip } from '../../src/net/ip.js';
import type { VpnDetection } from '../../src/lookups/vpn/detect.js';
import { xorshift32 } from '../xorshift.js';
import { providerName } from '../../src/lookups/vpn/providers.js';

export interface ExitScore {
  readonly provider: string;
  readonly addresses: number;
  readonly isVpn: number;
  /** isVpn only through the vpn-range rule (no list or ASN class said VPN) */
  readonly byRange: number;
  /** isVpn, isProxy, isHosting or isTor */
  readonly anyFlag: number;
  /** answers that name a provider, and of those the right one */
  readonly named: number;
  readonly namedRight: number;
}

/** One address per line, `#` comments: the vpn-exits files. */
export function parseAddressLines(text: string): Ip[] {
  const out: Ip[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const ip = parseIp(line);
    if (ip !== null) out.push(ip);
  }
  return out;
}

export function anyFlag(d: VpnDetection): boolean {
  return d.isVpn || d.isProxy || d.isHosting || d.isTor;
}

/** `providerId` is the exits file's stem, a providers.ts id. */
export function scoreExits(
  providerId: string,
  addresses: readonly Ip[],
  detect: (ip: Ip) => VpnDetection,
): ExitScore {
  const want = providerName(providerId);
  let isVpn = 0;
  let byRange = 0;
  let any = 0;
  let named = 0;
  let namedRight = 0;
  for (const ip of addresses) {
    const d = detect(ip);
    if (d.isVpn) isVpn++;
    if (d.isVpn && onlyByRange(d.reasons)) byRange++;
    if (anyFlag(d)) any++;
    if (d.provider !== null) {
      named++;
      if (d.provider === want) namedRight++;
    }
  }
  return {
    provider: want,
    addresses: addresses.length,
    isVpn,
    byRange,
    anyFlag: any,
    named,
    namedRight,
  };
}

/** Whether every piece of VPN evidence is a vpn-range reason. */
function onlyByRange(reasons: readonly string[]): boolean {
  const vpn = reasons.filter((r) => /^(vpn-|asn:\d+ vpn$|org-name:vpn$)/.test(r));
  return vpn.length > 0 && vpn.every((r) => r.startsWith('vpn-range:'));
}

/** Sums of several scores (a group of providers). */
export function totalOf(provider: string, scores: readonly ExitScore[]): ExitScore {
  const sum = (key: 'addresses' | 'isVpn' | 'byRange' | 'anyFlag' | 'named' | 'namedRight') =>
    scores.reduce((n, s) => n + s[key], 0);
  return {
    provider,
    addresses: sum('addresses'),
    isVpn: sum('isVpn'),
    byRange: sum('byRange'),
    anyFlag: sum('anyFlag'),
    named: sum('named'),
    namedRight: sum('namedRight'),
  };
}

/** Proxy hosts of a `host:port` list (clarketm/spys.me lines, monosans txt with a scheme). */
export function proxyHostsOfText(text: string): Ip[] {
  const out: Ip[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^(?:[a-z0-9]+:\/\/)?(?:[^@\s]+@)?(\d{1,3}(?:\.\d{1,3}){3}):\d+/.exec(line.trim());
    const ip = m?.[1] === undefined ? null : parseIp(m[1]);
    if (ip !== null) out.push(ip);
  }
  return out;
}

/**
 * `count` addresses spread over the given IPv4 prefixes, reproducibly (a
 * seeded xorshift): "random cloud addresses" without choosing them by hand.
 */
export function sampleV4(prefixes: readonly string[], count: number, seed = 20261127): Ip[] {
  const v4 = prefixes.map((p) => parseCidr(p)).filter((c): c is Cidr => c?.version === 4);
  const next = xorshift32(seed);
  const out: Ip[] = [];
  for (let i = 0; i < count && v4.length > 0; i++) {
    const cidr = v4[next() % v4.length]!;
    const size = 2 ** (32 - cidr.prefixLength);
    const ip = parseIp(formatIpv4((cidr.network[0]! + (next() % size)) >>> 0));
    if (ip !== null) out.push(ip);
  }
  return out;
}
