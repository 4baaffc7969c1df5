// GET /ip/:ip/vpn: VPN, proxy, hosting and mobile flags with their evidence,
// from the ASN classification shipped with the project and the published
// ranges fetched into DATA_DIR. The cache key carries the feed generation, so
// a hot reload of the feeds is visible at once instead of after six hours.
import { ipParams } from '../api/params.js';
import { vpnRecordSchema } from '../api/lookup-schemas.js';
import { defineRoute, type AnyRoute } from '../http/route.js';
import type { AsnSource } from '../lookups/geoip/asn-table.js';
import type { Ip } from '../net/ip.js';
import { detect, type DetectionIndexHolder } from '../lookups/vpn/index.js';

export function vpnRoutes(
  asn: AsnSource,
  holder: DetectionIndexHolder,
  dataGeneration: () => number,
): AnyRoute[] {
  const generations = new WeakMap<object, number>();
  let counter = 0;
  const asnOf = (ip: Ip) => asn.lookup(ip);
  const generation = (index: object): number => {
    let id = generations.get(index);
    if (id === undefined) generations.set(index, (id = ++counter));
    return id;
  };
  return [
    defineRoute({
      method: 'GET',
      path: '/ip/:ip/vpn',
      summary: 'VPN, proxy, hosting and mobile detection',
      description:
        'Flags derived from who operates the address: published cloud/VPN/Tor ranges (confidence high), the classified ASN (medium) or an organisation-name rule (low), with the evidence in `reasons`.',
      tags: ['Detection'],
      params: ipParams,
      response: vpnRecordSchema,
      errors: ['INVALID_IP'],
      rateLimited: true,
      cache: { namespace: 'vpn', ttlSeconds: 6 * 3600, visibility: 'public' },
      cacheKey: ({ params }) =>
        `${dataGeneration()}.${generation(holder.current())}:${params.ip.text}`,
      handle: ({ params }) => detect(params.ip, asnOf, holder.current()),
    }),
  ];
}
