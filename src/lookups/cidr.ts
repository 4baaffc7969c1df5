// CIDR arithmetic, wholly pure. IPv4 conventions (docs/api.md, "Records"):
//  - host bits in the input are allowed and cleared, as ipcalc does;
//  - broadcast is always the last address of the range;
//  - /31 and /32 follow RFC 3021: every address is usable.
// IPv6 ranges (no broadcast, counts that outgrow a JSON number) are computed
// by ./cidr-v6.ts, whose header gives their conventions.
import { AppError } from '../kit/errors.js';
import { formatIpv4, parseIpv4, parseIpv6Groups } from '../net/ip.js';
import { ipv4Mask } from '../net/cidr-match.js';
import { calculateCidr6, type Cidr6Record } from './cidr-v6.js';

export type { Cidr6Record };

export interface CidrRecord {
  network: string;
  broadcast: string;
  subnetMask: string;
  totalHosts: number;
  usableHosts: number;
  firstHost: string;
  lastHost: string;
  /** extras: the normalised range, its prefix length and the Cisco-style wildcard mask */
  cidr: string;
  prefixLength: number;
  wildcardMask: string;
}

const EXAMPLE = 'use the form <address>/<prefix length>, e.g. 192.168.0.0/24 or 2001:db8::/32';

/** An IPv4 range (address as a 32-bit value) or an IPv6 one (eight groups). */
export type ParsedRange =
  | { version: 4; address: number; prefix: number }
  | { version: 6; groups: number[]; prefix: number };

function parseRange(range: string | null | undefined): ParsedRange {
  if (range === null || range === undefined || range === '') {
    throw new AppError('INVALID_RANGE', `The query parameter "range" is required: ${EXAMPLE}.`);
  }
  const text = range;
  if (/\s/.test(text)) {
    throw new AppError(
      'INVALID_RANGE',
      `${JSON.stringify(clip(text))} contains spaces: ${EXAMPLE}.`,
    );
  }
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  if (slash === -1) {
    throw new AppError('INVALID_RANGE', `"${clip(text)}" has no prefix length: ${EXAMPLE}.`);
  }
  if (addressText.includes(':')) return parseRange6(addressText, text.slice(slash + 1));
  const address = parseIpv4(addressText);
  if (address === null) {
    throw new AppError(
      'INVALID_RANGE',
      `"${clip(addressText)}" is not an IPv4 address: ${EXAMPLE}.`,
    );
  }
  const prefixText = text.slice(slash + 1);
  if (!/^(\d|[12]\d|3[0-2])$/.test(prefixText)) {
    throw new AppError(
      'INVALID_RANGE',
      `"${clip(prefixText)}" is not a prefix length from 0 to 32: ${EXAMPLE}.`,
    );
  }
  return { version: 4, address: address.value, prefix: Number(prefixText) };
}

/** An IPv6 range, taken as written: `::ffff:10.0.0.0/104` is that IPv6 range, not an IPv4 one. */
function parseRange6(addressText: string, prefixText: string): ParsedRange {
  const groups = parseIpv6Groups(addressText);
  if (groups === null) {
    throw new AppError(
      'INVALID_RANGE',
      `"${clip(addressText)}" is not an IPv6 address (zones such as %eth0 are refused): ${EXAMPLE}.`,
    );
  }
  if (!/^(\d|[1-9]\d|1[01]\d|12[0-8])$/.test(prefixText)) {
    throw new AppError(
      'INVALID_RANGE',
      `"${clip(prefixText)}" is not a prefix length from 0 to 128: ${EXAMPLE}.`,
    );
  }
  return { version: 6, groups, prefix: Number(prefixText) };
}

/** The record of an IPv4 or IPv6 range; the IPv4 one is the one /cidr always answered. */
export function calculateCidr(range: string | null | undefined): CidrRecord | Cidr6Record {
  const parsed = parseRange(range);
  return parsed.version === 6
    ? calculateCidr6(parsed.groups, parsed.prefix)
    : calculateCidr4(parsed.address, parsed.prefix);
}

function calculateCidr4(address: number, prefix: number): CidrRecord {
  const mask = ipv4Mask(prefix);
  const network = (address & mask) >>> 0;
  const size = 2 ** (32 - prefix);
  const broadcast = network + size - 1;
  // RFC 3021: a /31 has no network or broadcast address to reserve; a /32 is one host
  const reserved = prefix >= 31 ? 0 : 2;
  return {
    network: formatIpv4(network),
    broadcast: formatIpv4(broadcast),
    subnetMask: formatIpv4(mask),
    totalHosts: size,
    usableHosts: size - reserved,
    firstHost: formatIpv4(reserved ? network + 1 : network),
    lastHost: formatIpv4(reserved ? broadcast - 1 : broadcast),
    cidr: `${formatIpv4(network)}/${prefix}`,
    prefixLength: prefix,
    wildcardMask: formatIpv4(~mask >>> 0),
  };
}

/** Echoing user input into a message: bounded, so an error never carries a megabyte. */
function clip(text: string): string {
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
