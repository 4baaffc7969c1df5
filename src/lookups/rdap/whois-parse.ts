// A port-43 answer → the Whois record's fields, whichever dialect it is in.
// An answer saying "no match" is NOT_FOUND; one with no network we can read
// is UPSTREAM_ERROR (garbage, an error banner, a rate-limit notice).
import { AppError } from '../../kit/errors.js';
import type { ParsedNetwork } from './types.js';
import { isArinAnswer, parseArin } from './whois-parse-arin.js';
import { isRpslAnswer, parseRpsl } from './whois-parse-rpsl.js';

// ARIN "No match found for", RIPE/AFRINIC/APNIC "%ERROR:101: no entries found",
// LACNIC "% No match for"
const NO_MATCH = /no match (found )?for|no entries found|%ERROR:101\b/i;

export function parseWhois(answer: string, server: string): ParsedNetwork {
  const parsed = isArinAnswer(answer)
    ? parseArin(answer)
    : isRpslAnswer(answer)
      ? parseRpsl(answer)
      : null;
  if (parsed !== null) return parsed;
  if (NO_MATCH.test(answer)) {
    throw new AppError(
      'NOT_FOUND',
      `The registry's whois server (${server}) holds no record for it.`,
    );
  }
  throw new AppError(
    'UPSTREAM_ERROR',
    `The whois server ${server} sent an answer without a network.`,
  );
}
