// GET /ip and GET /ip/:ip: one lookup, one cache namespace (the caller's own
// address and the same address asked for by path share an entry).
import { ipParams } from '../api/params.js';
import { geoIpRecordSchema } from '../api/schemas.js';
import { defineRoute, RawJson, type AnyRoute, type CachePolicy } from '../http/route.js';
import type { GeoIpLookup } from '../lookups/geoip/geoip.js';

export const GEOIP_CACHE: CachePolicy = {
  namespace: 'geoip',
  ttlSeconds: 24 * 3600,
  visibility: 'public',
};

/** `generation` changes when the data is reloaded: it is part of the cache key. */
export function geoipRoutes(geoip: GeoIpLookup, generation: () => number): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/ip',
      summary: 'GeoIP record of the caller',
      description:
        'Location and network of the address the request comes from (the socket peer, or X-Forwarded-For when TRUST_PROXY allows it).',
      tags: ['GeoIP'],
      response: geoIpRecordSchema,
      errors: [],
      rateLimited: true,
      cache: { ...GEOIP_CACHE, visibility: 'private' },
      cacheKey: ({ ctx }) => `${generation()}:${ctx.clientIp.text}`,
      handle: ({ ctx }) => new RawJson(geoip.lookupJson(ctx.clientIp)),
    }),
    defineRoute({
      method: 'GET',
      path: '/ip/:ip',
      summary: 'GeoIP record of an address',
      description:
        'Country, region, city, coordinates, time zone and autonomous system of an IPv4 or IPv6 address. Special-purpose addresses answer with `bogon: true` and null fields.',
      tags: ['GeoIP'],
      params: ipParams,
      response: geoIpRecordSchema,
      errors: ['INVALID_IP'],
      rateLimited: true,
      cache: GEOIP_CACHE,
      cacheKey: ({ params }) => `${generation()}:${params.ip.text}`,
      handle: ({ params }) => new RawJson(geoip.lookupJson(params.ip)),
    }),
  ];
}
