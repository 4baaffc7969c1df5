// Where a caller's secret travels, pure: `Authorization: Bearer <token>`
// (RFC 6750 §2.1; the scheme is case-insensitive, RFC 7235 §2.1) or the
// query's `key` (§2.3's idea under the name API users expect, as ipinfo's
// `?token=`); the header wins. Another scheme in Authorization (Basic from a
// proxy in front) is not ours and is ignored, except where a route asks for
// it (MaxMind's: the password is the key, basicPassword). A query key is never written to
// the access log: redactKey() hides its value.

import { Buffer } from 'node:buffer';

/** A presented key no table holds (keys have no spaces): two different `key` values in one query. */
export const AMBIGUOUS_KEY = ' ';

/** The token of `Authorization: Bearer <token>`, or undefined without one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  // the usual spelling first: no lower-cased copy on the hot path
  if (
    !authorization.startsWith('Bearer ') &&
    authorization.slice(0, 7).toLowerCase() !== 'bearer '
  ) {
    return undefined;
  }
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}

/**
 * The password of `Authorization: Basic <base64 user:password>` (RFC 7617),
 * or undefined without one: the routes that take it (MaxMind's, whose
 * clients send `account_id:licence_key`) read the key there.
 */
export function basicPassword(authorization: string | undefined): string | undefined {
  if (authorization === undefined || authorization.length < 8) return undefined;
  if (authorization.slice(0, 6).toLowerCase() !== 'basic ') return undefined;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const password = colon === -1 ? '' : decoded.slice(colon + 1);
  return password === '' ? undefined : password;
}

/** The query's `key` (percent-decoded); undefined when none or empty; AMBIGUOUS_KEY for two. */
export function queryKey(query: string): string | undefined {
  if (query === '') return undefined;
  let found: string | undefined;
  for (let at = keyAt(query, 0); at !== -1; at = keyAt(query, at + 1)) {
    const end = query.indexOf('&', at);
    const value = decoded(query.slice(at + 4, end === -1 ? query.length : end));
    if (value === '') continue;
    if (found !== undefined && found !== value) return AMBIGUOUS_KEY;
    found = value;
  }
  return found;
}

/** Where a `key=` parameter starts in a query string, from `from` on; -1 when none. */
function keyAt(query: string, from: number): number {
  for (let at = query.indexOf('key=', from); at !== -1; at = query.indexOf('key=', at + 1)) {
    if (at === 0 || query.charCodeAt(at - 1) === 0x26 /* & */) return at;
  }
  return -1;
}

function decoded(value: string): string {
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return value;
  }
}

/** The URL with the value of every `key` parameter replaced, for the access log. */
export function redactKey(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  // pieces sliced around each value: a regular expression's replace cost ~8× as much
  let out = '';
  let from = 0;
  let at = url.indexOf('key=', queryAt);
  while (at !== -1) {
    const before = url.charCodeAt(at - 1);
    if (before === 0x3f /* ? */ || before === 0x26 /* & */) {
      const end = url.indexOf('&', at);
      out += `${url.slice(from, at)}key=[redacted]`;
      from = end === -1 ? url.length : end;
      if (end === -1) break;
      at = url.indexOf('key=', end);
    } else {
      at = url.indexOf('key=', at + 4);
    }
  }
  return from === 0 ? url : out + url.slice(from);
}
