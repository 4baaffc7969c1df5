// No RIR holds a special-purpose range (src/net/special-purpose.ts), so
// /whois answers 404 before any network call (docs/api.md, "Errors": the message
// names the special-purpose range).
import { AppError } from '../../kit/errors.js';
import type { Ip } from '../../net/ip.js';
import { specialRangeOf } from '../../net/special-purpose.js';

/** Throws NOT_FOUND naming the range when no registry can hold the address. */
export function assertRegistrable(ip: Ip): void {
  const special = specialRangeOf(ip);
  if (special !== null) {
    throw new AppError(
      'NOT_FOUND',
      `${ip.text} is in ${special.range}, ${special.purpose}: no registry holds it.`,
    );
  }
}
