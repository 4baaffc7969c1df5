// Content negotiation of GET / and of the page's assets (RFC 9110 §12.5),
// by `negotiator` (the parser behind Express's req.accepts): q-values,
// wildcards and specificity are its business, not ours.
import type { IncomingHttpHeaders } from 'node:http';
import Negotiator from 'negotiator';

const TYPES = ['application/json', 'text/html'] as const;

/**
 * True when the client prefers an HTML page to JSON: browsers
 * (`text/html,…,*\/*;q=0.8`). curl (`*\/*`), `application/json`, no Accept
 * at all and anything else get JSON: the first offered type wins a tie
 * that the client did not break itself.
 */
export function prefersHtml(headers: IncomingHttpHeaders): boolean {
  const accept = headers.accept;
  // the common API clients, without parsing
  if (accept === undefined || accept === '*/*' || !accept.includes('text/html')) return false;
  return new Negotiator({ headers }).mediaType(TYPES) === 'text/html';
}

export type ContentEncoding = 'br' | 'gzip' | 'identity';

const ENCODINGS: readonly ContentEncoding[] = ['br', 'gzip', 'identity'];

// negotiator's `preferred` option (break the client's ties by our order) is
// missing from its type definitions
type PickEncoding = (
  available: readonly string[],
  options: { preferred: readonly string[] },
) => string | undefined;

/** The smallest encoding the client accepts: br, then gzip, then none. */
export function pickEncoding(headers: IncomingHttpHeaders): ContentEncoding {
  if (headers['accept-encoding'] === undefined) return 'identity';
  const negotiator = new Negotiator({ headers });
  const pick = negotiator.encoding.bind(negotiator) as PickEncoding;
  return (pick(ENCODINGS, { preferred: ENCODINGS }) as ContentEncoding | undefined) ?? 'identity';
}
