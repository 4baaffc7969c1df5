// CIDR arithmetic for IPv4, wholly pure. Conventions (CONTRACT.md):
//  - host bits in the input are allowed and cleared, as ipcalc does;
//  - broadcast is always the last address of the range;
//  - /31 and /32 follow RFC 3021: every address is usable;
//  - IPv6 is refused: it has no broadcast, and its counts exceed what a JSON
//    number holds exactly (2^53), so its fields would change type.
import { AppError } from '../errors.js';
import { formatIpv4, parseIpv4 } from '../net/ip.js';
import { ipv4Mask } from '../net/cidr-match.js';

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

const EXAMPLE = 'use the form <ipv4>/<prefix length>, e.g. 192.168.0.0/24';

export function parseRange(range: string | null | undefined): { address: number; prefix: number } {
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
  if (addressText.includes(':')) {
    throw new AppError(
      'INVALID_RANGE',
      `IPv6 ranges are not supported; /cidr takes IPv4 ranges only: ${EXAMPLE}.`,
    );
  }
  if (slash === -1) {
    throw new AppError('INVALID_RANGE', `"${clip(text)}" has no prefix length: ${EXAMPLE}.`);
  }
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
  return { address: address.value, prefix: Number(prefixText) };
}

export function calculateCidr(range: string | null | undefined): CidrRecord {
  const { address, prefix } = parseRange(range);
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
