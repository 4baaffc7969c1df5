// Strict IP address parsing and canonical formatting, shared by every route.
// IPv4 is dotted-quad without leading zeros (CONTRACT.md: `010.1.1.1` is
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

function parseIpv6Groups(text: string): number[] | null {
  if (text.length < 2 || text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parseSide = (side: string): number[] | null => {
    if (side === '') return [];
    const out: number[] = [];
    const pieces = side.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? '';
      if (piece.includes('.')) {
        // an embedded IPv4 may only be the last piece (RFC 4291 §2.2 form 3)
        if (i !== pieces.length - 1) return null;
        const v4 = ipv4Value(piece);
        if (v4 === null) return null;
        out.push(v4 >>> 16, v4 & 0xffff);
      } else {
        if (!/^[0-9A-Fa-f]{1,4}$/.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = parseSide(halves[0] ?? '');
  if (head === null) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const tail = parseSide(halves[1] ?? '');
  if (tail === null) return null;
  // an embedded IPv4 is allowed only at the very end
  if ((halves[0] ?? '').includes('.')) return null;
  const missing = 8 - head.length - tail.length;
  // "::" stands for at least one group of zeros
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
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
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(':');
  const head = hex.slice(0, bestStart).join(':');
  const tail = hex.slice(bestStart + bestLength).join(':');
  return `${head}::${tail}`;
}

function isIpv4Mapped(groups: readonly number[]): boolean {
  return groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
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
