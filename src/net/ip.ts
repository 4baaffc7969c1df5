// Strict IP address parsing and canonical formatting, shared by every route.
// IPv4 is dotted-quad without leading zeros (docs/api.md, Errors: `010.1.1.1` is
// ambiguous, octal or decimal, so it is refused). IPv6 follows RFC 4291 §2.2
// and is printed in RFC 5952 form; zone ids (`%eth0`) are refused because an
// interface name means nothing to this service. An IPv4-mapped IPv6 address
// (`::ffff:1.2.3.4`, RFC 4291 §2.5.5.2) is the IPv4 host it wraps.

export interface Ipv4 {
  readonly version: 4;
  readonly text: string;
  /** the address as an unsigned 32-bit integer */
  readonly value: number;
}

export interface Ipv6 {
  readonly version: 6;
  readonly text: string;
  /** eight 16-bit groups, most significant first */
  readonly groups: readonly number[];
}

export type Ip = Ipv4 | Ipv6;

export function parseIpv4(text: string): Ipv4 | null {
  const value = ipv4Value(text);
  return value === null ? null : { version: 4, text, value };
}

/**
 * Hand-rolled rather than split + regex: this runs on every request, and a
 * character loop is several times cheaper. Exactly four decimal octets,
 * 0–255, no leading zeros, nothing else.
 */
function ipv4Value(text: string): number | null {
  const length = text.length;
  if (length < 7 || length > 15) return null;
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || dots === 3) return null;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return null; // leading zero
      octet = octet * 10 + (c - 48);
      if (++digits > 3 || octet > 255) return null;
    } else {
      return null;
    }
  }
  if (dots !== 3 || digits === 0) return null;
  return value * 256 + octet;
}

export function formatIpv4(value: number): string {
  return `${value >>> 24}.${(value >>> 16) & 255}.${(value >>> 8) & 255}.${value & 255}`;
}

/** The value of a hex digit's character code, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const lower = c | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

/**
 * RFC 4291 §2.2 text forms, by hand (one pass, no split or regex: this runs
 * on every IPv6 request): 1–4 hex digits per group, at most one "::" standing
 * for at least one zero group, and an IPv4 dotted quad only as the very last
 * piece (form 3).
 */
export function parseIpv6Groups(text: string): number[] | null {
  const length = text.length;
  if (length < 2 || length > 45) return null;
  const groups: number[] = [];
  /** where "::" stands in `groups`, or -1 */
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 58 /* : */) {
    if (text.charCodeAt(1) !== 58) return null;
    gap = 0;
    i = 2;
  }
  while (i < length) {
    const start = i;
    let value = 0;
    let digits = 0;
    for (; i < length; i++) {
      const h = hexDigit(text.charCodeAt(i));
      if (h === -1) break;
      value = value * 16 + h;
      digits++;
    }
    if (i < length && text.charCodeAt(i) === 46 /* . */) {
      // an embedded IPv4 ends the address
      const v4 = ipv4Value(text.slice(start));
      if (v4 === null || groups.length > 6) return null;
      groups.push(v4 >>> 16, v4 & 0xffff);
      break;
    }
    if (digits === 0 || digits > 4 || groups.length === 8) return null;
    groups.push(value);
    if (i === length) break;
    if (text.charCodeAt(i) !== 58) return null;
    i++;
    if (i === length) return null; // a single trailing ":"
    if (text.charCodeAt(i) === 58) {
      if (gap !== -1) return null;
      gap = groups.length;
      i++;
    }
  }
  if (gap === -1) return groups.length === 8 ? groups : null;
  const missing = 8 - groups.length;
  // "::" stands for at least one group of zeros
  if (missing < 1) return null;
  const out = new Array<number>(8);
  for (let g = 0; g < gap; g++) out[g] = groups[g]!;
  for (let g = 0; g < missing; g++) out[gap + g] = 0;
  for (let g = gap; g < groups.length; g++) out[g + missing] = groups[g]!;
  return out;
}

/** "00".."ff" by byte value, and the same without a leading zero ("0".."ff") */
const HEX_PADDED = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const HEX_BARE = Array.from({ length: 256 }, (_, b) => b.toString(16));

/**
 * A 16-bit group in lower-case hex without leading zeros: Number's
 * toString(16) is a call into the runtime, seen on every IPv6 answer.
 */
function hexGroup(group: number): string {
  const high = group >>> 8;
  return high === 0 ? HEX_BARE[group]! : HEX_BARE[high]! + HEX_PADDED[group & 255]!;
}

/** RFC 5952 §4: lower case, no leading zeros, the longest run (≥2) of zero groups as "::". */
export function formatIpv6(groups: readonly number[]): string {
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  let out = '';
  // whether the text so far ends with a separator ("" or "::")
  let separated = true;
  for (let i = 0; i < 8; i++) {
    if (i === bestStart) {
      out += '::';
      separated = true;
      i += bestLength - 1;
      continue;
    }
    if (!separated) out += ':';
    out += hexGroup(groups[i]!);
    separated = false;
  }
  return out;
}

/** Whether IPv6 groups are an IPv4-mapped address (::ffff:a.b.c.d). */
export function isIpv4Mapped(groups: readonly number[]): boolean {
  return (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  );
}

/** Parses an address from a path or query; returns null for anything that is not one. */
export function parseIp(text: string): Ip | null {
  if (text.includes(':')) {
    const groups = parseIpv6Groups(text);
    if (groups === null) return null;
    if (isIpv4Mapped(groups)) {
      const value = (((groups[6] ?? 0) << 16) | (groups[7] ?? 0)) >>> 0;
      return { version: 4, text: formatIpv4(value), value };
    }
    return { version: 6, text: formatIpv6(groups), groups };
  }
  return parseIpv4(text);
}
