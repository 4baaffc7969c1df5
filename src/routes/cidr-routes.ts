// GET /cidr?range=: pure arithmetic, computed per request (well under a
// microsecond); not cached for clients (Cache-Control: no-store, no X-Cache).
import { z } from 'zod';
import { cidrRecordSchema } from '../api/schemas.js';
import { defineHandler } from '../http/route.js';
import { calculateCidr } from '../lookups/cidr.js';

const cidrQuery = z.object({
  range: z
    .string({
      error: (iss) =>
        iss.input === undefined
          ? 'The query parameter "range" is required, e.g. ?range=192.168.0.0/24.'
          : 'Give the query parameter "range" once.',
    })
    .meta({
      description:
        'An IPv4 range as <address>/<prefix length>, 0–32. Host bits may be set: the network is reported.',
      examples: ['192.168.1.77/24'],
    }),
});

export function cidrHandlers() {
  return {
    calculate: defineHandler({
      summary: 'CIDR calculation',
      description:
        'Network, broadcast, mask and host counts of an IPv4 range. /31 and /32 follow RFC 3021 (every address usable).',
      tags: ['CIDR'],
      query: cidrQuery,
      response: cidrRecordSchema,
      errors: ['INVALID_RANGE'],
      handle: ({ query }) => calculateCidr(query.range),
    }),
  };
}
