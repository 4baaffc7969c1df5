// Test addresses as parsed values: a typo in a test's address fails loudly
// instead of turning into a null that a check might accept.
import { AppError } from '../../src/kit/errors.js';
import { parseIp, type Ip } from '../../src/net/ip.js';

export function ip(text: string): Ip {
  const parsed = parseIp(text);
  if (parsed === null) throw new Error(`bad test address ${text}`);
  return parsed;
}

/** For assert.rejects/throws: the error is an AppError with this code. */
export const isCode =
  (code: string) =>
  (error: unknown): boolean =>
    error instanceof AppError && error.code === code;
