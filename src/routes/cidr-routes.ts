// GET /cidr?range=: pure arithmetic, computed per request (well under a
// microsecond); not cached for clients (Cache-Control: no-store, no X-Cache).
// An IPv4 record is serialised by hand: it holds only numbers and dotted
// quads, which JSON writes without escaping. An IPv6 one (BigInt arithmetic,
// a few microseconds) goes through JSON.stringify.
import { z } from 'zod';
import { cidrRecordSchema } from '../api/schemas.js';
import { defineHandler, RawJson } from '../http/route.js';
import { withPlainParser } from '../http/validate.js';
import { calculateCidr, type Cidr6Record, type CidrRecord } from '../lookups/cidr.js';

const RANGE_REQUIRED = 'The query parameter "range" is required, e.g. ?range=192.168.0.0/24.';
const RANGE_ONCE = 'Give the query parameter "range" once.';

/** exported for the test that holds its plain twin to zod's answers */
export const cidrQuery = withPlainParser(
  z.object({
    range: z
      .string({ error: (iss) => (iss.input === undefined ? RANGE_REQUIRED : RANGE_ONCE) })
      .meta({
        description:
          'An IPv4 range as <address>/<prefix length 0–32>, or an IPv6 range as <address>/<prefix length 0–128>. Host bits may be set: the network is reported.',
        examples: ['192.168.1.77/24', '2001:db8:abcd::1/48'],
      }),
  }),
  // one string passes as it is; a missing or repeated range is zod's to refuse
  (input) => (typeof input['range'] === 'string' ? { range: input['range'] } : undefined),
);

/** JSON.stringify(record), byte for byte, for a record of dotted quads and numbers. */
export function cidrText(r: CidrRecord | Cidr6Record): string {
  return r.broadcast === null ? JSON.stringify(r) : cidrJson(r);
}

/** An IPv4 record as JSON.stringify writes it (test/routes/cidr-json.test.ts). */
export function cidrJson(r: CidrRecord): string {
  return `{"network":"${r.network}","broadcast":"${r.broadcast}","subnetMask":"${r.subnetMask}","totalHosts":${r.totalHosts},"usableHosts":${r.usableHosts},"firstHost":"${r.firstHost}","lastHost":"${r.lastHost}","cidr":"${r.cidr}","prefixLength":${r.prefixLength},"wildcardMask":"${r.wildcardMask}"}`;
}

export function cidrHandlers() {
  return {
    calculate: defineHandler({
      summary: 'CIDR calculation',
      description:
        'Network, broadcast, mask and host counts of an IPv4 or IPv6 range. IPv4 /31 and /32 follow RFC 3021 (every address usable). IPv6 has no broadcast (`null`), masks in IPv6 notation, counts above 2^53 − 1 as decimal strings, and usable hosts leave out the Subnet-Router anycast address (RFC 4291 §2.6.1), the network address, except on a /127 (RFC 6164) and a /128.',
      tags: ['CIDR'],
      query: cidrQuery,
      response: cidrRecordSchema,
      errors: ['INVALID_RANGE'],
      handle: ({ query }) => new RawJson(cidrText(calculateCidr(query.range))),
      record: ({ query }) => calculateCidr(query.range),
    }),
  };
}
