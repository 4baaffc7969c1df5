// Network blocks as registries write them, parsed and re-formatted in one
// canonical form (never echoed raw: docs/api.md, "Records", Whois): ARIN 2015 zero-padded
// octets (`074.125.000.000`), RIPE 2015 `/32` suffixes, LACNIC uncompressed
// IPv6 and abbreviated CIDR (`200.57.128/19`), RPSL `a - b` ranges.
import { parseCidr } from '../../net/cidr-match.js';
import { formatIpv4, formatIpv6, parseIp, type Ip } from '../../net/ip.js';

export interface AddressRange {
  start: Ip;
  end: Ip;
}

/** An address in any of the spellings above, or null. */
export function parseLooseAddress(raw: string): Ip | null {
  let textValue = raw.trim();
  // RIPE 2015 wrote start/end addresses as host prefixes: "62.239.237.0/32"
  textValue = textValue.replace(/^([\d.]+)\/32$/, '$1').replace(/^([\da-f:.]+)\/128$/i, '$1');
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(textValue)) {
    // zero-padded octets are decimal here (ARIN's own formatting), not octal
    textValue = textValue
      .split('.')
      .map((octet) => String(Number(octet)))
      .join('.');
  }
  return parseIp(textValue);
}

/** "a - b" (RPSL inetnum, ARIN NetRange); both ends of one family, a ≤ b. */
export function parseRangeText(raw: string): AddressRange | null {
  // addresses never contain "-", so it can only be the separator
  const parts = raw.split(/\s*-\s*/);
  if (parts.length !== 2) return null;
  const start = parseLooseAddress(parts[0] ?? '');
  const end = parseLooseAddress(parts[1] ?? '');
  return orderedRange(start, end);
}

export function orderedRange(start: Ip | null, end: Ip | null): AddressRange | null {
  if (start === null || end === null || start.version !== end.version) return null;
  return toBig(start) <= toBig(end) ? { start, end } : null;
}

export interface CidrRange extends AddressRange {
  /** canonical text, host bits cleared: "200.57.128.0/19" */
  cidr: string;
}

/** A CIDR, including LACNIC's abbreviated `200.57.128/19`, as its first and last address. */
export function parseCidrRange(raw: string): CidrRange | null {
  const match = /^([^/\s]+)\/(\d{1,3})$/.exec(raw.trim());
  if (match === null) return null;
  let address = match[1] ?? '';
  if (/^\d{1,3}(\.\d{1,3}){0,2}$/.test(address)) {
    // abbreviated IPv4: pad the missing octets with zeros
    while (address.split('.').length < 4) address += '.0';
  }
  const ip = parseLooseAddress(address);
  if (ip === null) return null;
  const cidr = parseCidr(`${ip.text}/${match[2] ?? ''}`);
  if (cidr === null || cidr.version !== ip.version) return null;
  const bits = cidr.version === 4 ? 32 : 128;
  const network = toBig(ip) & ~((1n << BigInt(bits - cidr.prefixLength)) - 1n);
  const last = network | ((1n << BigInt(bits - cidr.prefixLength)) - 1n);
  const start = fromBig(network, ip.version);
  return { start, end: fromBig(last, ip.version), cidr: `${start.text}/${cidr.prefixLength}` };
}

/** The smallest list of CIDR prefixes covering start..end (at most 2 × bits). */
export function rangeToCidrs(range: AddressRange): string[] {
  const bits = range.start.version === 4 ? 32 : 128;
  const out: string[] = [];
  let current = toBig(range.start);
  const end = toBig(range.end);
  while (current <= end) {
    let size = 0;
    // grow the block while it stays aligned and inside the range
    while (
      size < bits &&
      (current & ((1n << BigInt(size + 1)) - 1n)) === 0n &&
      current + (1n << BigInt(size + 1)) - 1n <= end
    ) {
      size++;
    }
    out.push(`${formatBig(current, range.start.version)}/${bits - size}`);
    current += 1n << BigInt(size);
  }
  return out;
}

export function rangeContains(range: AddressRange, ip: Ip): boolean {
  if (ip.version !== range.start.version) return false;
  const value = toBig(ip);
  return toBig(range.start) <= value && value <= toBig(range.end);
}

function toBig(ip: Ip): bigint {
  if (ip.version === 4) return BigInt(ip.value);
  return ip.groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}

// built directly, not re-parsed: parseIp would turn ::ffff:a.b.c.d into IPv4
function fromBig(value: bigint, version: 4 | 6): Ip {
  if (version === 4) return { version, text: formatIpv4(Number(value)), value: Number(value) };
  const groups = groupsOf(value);
  return { version, text: formatIpv6(groups), groups };
}

function formatBig(value: bigint, version: 4 | 6): string {
  return version === 4 ? formatIpv4(Number(value)) : formatIpv6(groupsOf(value));
}

function groupsOf(value: bigint): number[] {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  return groups;
}
