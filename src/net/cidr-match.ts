// Prefix membership for both families: used for bogon ranges and trusted
// proxy lists, where a few dozen prefixes are checked with integer masks.
import { formatIpv4, formatIpv6, parseIp, type Ip } from './ip.js';

export interface Cidr {
  readonly version: 4 | 6;
  readonly prefixLength: number;
  /** IPv4: the network as one 32-bit number; IPv6: eight 16-bit groups */
  readonly network: readonly number[];
  readonly text: string;
}

export function ipv4Mask(prefixLength: number): number {
  return prefixLength === 0 ? 0 : (0xffffffff << (32 - prefixLength)) >>> 0;
}

/** "10.0.0.0/8", "fc00::/7" or a bare address (a /32 or /128). Host bits are cleared. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.indexOf('/');
  const address = slash === -1 ? text : text.slice(0, slash);
  const ip = parseIp(address);
  if (ip === null) return null;
  const max = ip.version === 4 ? 32 : 128;
  let prefixLength = max;
  if (slash !== -1) {
    const lengthText = text.slice(slash + 1);
    if (!/^(0|[1-9]\d{0,2})$/.test(lengthText)) return null;
    prefixLength = Number(lengthText);
    // an IPv4-mapped IPv6 prefix such as ::ffff:10.0.0.0/104 is the IPv4 prefix it wraps
    if (ip.version === 4 && address.includes(':')) prefixLength -= 96;
    if (prefixLength < 0 || prefixLength > max) return null;
  }
  if (ip.version === 4) {
    const network = (ip.value & ipv4Mask(prefixLength)) >>> 0;
    return {
      version: 4,
      prefixLength,
      network: [network],
      text: `${formatIpv4(network)}/${prefixLength}`,
    };
  }
  const network = ip.groups.map((group, i) => group & groupMask(prefixLength, i));
  return { version: 6, prefixLength, network, text: `${formatIpv6(network)}/${prefixLength}` };
}

function groupMask(prefixLength: number, index: number): number {
  const bits = Math.min(16, Math.max(0, prefixLength - index * 16));
  return bits === 0 ? 0 : (0xffff << (16 - bits)) & 0xffff;
}

export function cidrContains(cidr: Cidr, ip: Ip): boolean {
  if (cidr.version !== ip.version) return false;
  if (ip.version === 4) {
    return (ip.value & ipv4Mask(cidr.prefixLength)) >>> 0 === cidr.network[0];
  }
  for (let i = 0; i < 8 && i * 16 < cidr.prefixLength; i++) {
    if (((ip.groups[i] ?? 0) & groupMask(cidr.prefixLength, i)) !== cidr.network[i]) return false;
  }
  return true;
}

/**
 * A fixed set of prefixes, each with a label (e.g. the RFC that reserves it).
 * IPv4 entries are kept as parallel integer arrays: the bogon check runs on
 * every GeoIP request.
 */
export class PrefixList<Label> {
  private readonly v4Networks: number[] = [];
  private readonly v4Masks: number[] = [];
  private readonly v4Labels: Label[] = [];
  private readonly v6: { cidr: Cidr; label: Label }[] = [];
  /**
   * The IPv6 entries that can hold an address, by its first group (in list
   * order): an address is checked against the few prefixes of its own /16
   * rather than all of them. Groups share candidate lists (128 KB of ids).
   */
  private readonly v6ListOf = new Uint16Array(0x10000);
  private readonly v6Lists: { cidr: Cidr; label: Label }[][] = [[]];

  constructor(entries: readonly (readonly [string, Label])[]) {
    for (const [text, label] of entries) {
      const cidr = parseCidr(text);
      if (cidr === null) throw new Error(`bad prefix in list: ${text}`);
      if (cidr.version === 4) {
        this.v4Networks.push(cidr.network[0] ?? 0);
        this.v4Masks.push(ipv4Mask(cidr.prefixLength));
        this.v4Labels.push(label);
      } else {
        this.v6.push({ cidr, label });
      }
    }
    // the candidates change only where some prefix's span of first groups starts or ends
    const spans = this.v6.map((entry) => {
      const first = entry.cidr.network[0] ?? 0;
      return [
        first,
        first + (entry.cidr.prefixLength >= 16 ? 1 : 2 ** (16 - entry.cidr.prefixLength)),
      ];
    });
    const cuts = [...new Set([0, 0x10000, ...spans.flat()])].sort((a, b) => a - b);
    for (let c = 0; c + 1 < cuts.length; c++) {
      const from = cuts[c]!;
      const list = this.v6.filter((_, i) => spans[i]![0]! <= from && from < spans[i]![1]!);
      if (list.length === 0) continue;
      if (this.v6Lists.length > 0xffff) throw new Error('too many IPv6 prefix sets');
      this.v6ListOf.fill(this.v6Lists.length, from, cuts[c + 1]);
      this.v6Lists.push(list);
    }
  }

  /** The label of the first (list order) prefix containing ip, or null. */
  match(ip: Ip): Label | null {
    if (ip.version === 4) {
      const value = ip.value;
      for (let i = 0; i < this.v4Networks.length; i++) {
        if ((value & (this.v4Masks[i] ?? 0)) >>> 0 === this.v4Networks[i]) {
          return this.v4Labels[i] ?? null;
        }
      }
      return null;
    }
    for (const entry of this.v6Lists[this.v6ListOf[ip.groups[0] ?? 0] ?? 0] ?? []) {
      if (cidrContains(entry.cidr, ip)) return entry.label;
    }
    return null;
  }
}
