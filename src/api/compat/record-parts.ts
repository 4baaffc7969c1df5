// What the three compatible formats (ipinfo, ip-api, MaxMind GeoIP2) read
// besides the GeoIP record: the detection's flags, a country's English name
// and its continent, a bogon's kind, and the failure they answer in a format
// of their own. Every value comes from ipintel's own records: no lookup of
// its own, nothing invented.
import type { Ip } from '../../net/ip.js';
import { specialRangeOf } from '../../net/special-purpose.js';
import { AppError, type ErrorCode } from '../../kit/errors.js';
import { CONTINENT_NAMES, continentOf } from '../../lookups/geoip/continents.js';
import type { VpnDetection } from '../../lookups/vpn/detect.js';

/** The detection's verdict, without the address, AS and reasons (what the formats carry). */
export type PrivacyFlags = Pick<
  VpnDetection,
  'isVpn' | 'isProxy' | 'isHosting' | 'isMobile' | 'isTor' | 'isRelay' | 'provider'
>;

/** The continent's code and English name of a country, or null (GeoNames' assignment). */
export function continentOfCountry(code: string): { code: string; name: string } | null {
  const continent = continentOf(code);
  return continent === null ? null : { code: continent, name: CONTINENT_NAMES[continent]! };
}

/**
 * RFC 1918, RFC 6598 (shared address space) and RFC 4193 (unique local):
 * the ranges ip-api calls "private range"; every other special-purpose
 * address it calls "reserved range". Rows of the IANA registry's table.
 */
const PRIVATE_RANGES = new Set([
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
]);

export function isPrivateRange(ip: Ip): boolean {
  const range = specialRangeOf(ip);
  return range !== null && PRIVATE_RANGES.has(range.range);
}

/**
 * A failure a compatible route answers in its own format, status and body
 * decided by the format (the pipeline writes them as they are: see
 * Route.failure); its code is the catalog's nearest, for logs and metrics.
 */
export class ForeignAnswer extends AppError {
  constructor(
    code: ErrorCode,
    readonly answer: { status: number; body: string },
  ) {
    super(code, answer.body);
    this.name = 'ForeignAnswer';
  }
}
