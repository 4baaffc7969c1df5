// GET /ip and GET /ip/:ip: answered from the compiled tables on every
// request (a table lookup is cheaper than a cache hit), the body assembled
// from fragments serialised at compile time.
import { ipParams } from '../api/params.js';
import { geoIpRecordSchema } from '../api/schemas.js';
import { defineHandler, JsonBody, type Lifetime } from '../http/route.js';
import type { GeoIpLookup } from '../lookups/geoip/geoip.js';

export const GEOIP_LIFETIME: Lifetime = { ttlSeconds: 24 * 3600, visibility: 'public' };
/** the caller's own record: for the caller only */
export const CALLER_LIFETIME: Lifetime = { ...GEOIP_LIFETIME, visibility: 'private' };

type Headers = Readonly<Record<string, string>>;

/**
 * `attribution`: the headers of an answer, the current data's licence asks
 * for (DB-IP's CC BY 4.0 link) and its version (X-Data-Version, ETag);
 * `callerHeaders`: the same for the caller's own record, whose ETag names the caller.
 */
export function geoipHandlers(
  geoip: GeoIpLookup,
  attribution: () => Headers | null,
  callerHeaders: (callerIp: string) => Headers | null = attribution,
) {
  return {
    caller: defineHandler({
      summary: 'GeoIP record of the caller',
      description:
        'Location and network of the address the request comes from (the socket peer, or X-Forwarded-For when TRUST_PROXY allows it).',
      tags: ['GeoIP'],
      response: geoIpRecordSchema,
      errors: [],
      versioned: { etag: true },
      headers: (ctx) => callerHeaders(ctx.clientIp.text),
      handle: ({ ctx }) => {
        const body = geoip.body(ctx.clientIp);
        return new JsonBody(body, body.length, 'latin1', geoip.locationSource());
      },
      record: ({ ctx }) => geoip.lookup(ctx.clientIp),
    }),
    address: defineHandler({
      summary: 'GeoIP record of an address',
      description:
        'Country, region, city, coordinates, time zone and autonomous system of an IPv4 or IPv6 address. Special-purpose addresses answer with `bogon: true` and null fields.',
      tags: ['GeoIP'],
      params: ipParams,
      response: geoIpRecordSchema,
      errors: ['INVALID_IP'],
      versioned: { etag: true },
      headers: attribution,
      handle: ({ params }) => {
        const body = geoip.body(params.ip);
        return new JsonBody(body, body.length, 'latin1', geoip.locationSource());
      },
      record: ({ params }) => geoip.lookup(params.ip),
    }),
  };
}
