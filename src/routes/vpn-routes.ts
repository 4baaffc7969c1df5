// GET /ip/:ip/vpn: VPN, proxy, hosting and mobile flags with their evidence,
// from the ASN classification shipped with the project and the published
// ranges fetched into DATA_DIR, computed per request from in-memory data
// (the current feed index, so a reload is visible at once).
//
// An address outside every published range gets the verdict of its AS
// record alone: that answer (all but the address) is serialised once per AS
// record and feed snapshot — a memo bounded by the data, not by the traffic.
import { ipParams } from '../api/params.js';
import { vpnRecordSchema } from '../api/lookup-schemas.js';
import { NONE } from '../data/range-table.js';
import { defineHandler, JsonBody, type Lifetime } from '../http/route.js';
import { isBogon } from '../lookups/geoip/bogons.js';
import type { GeoIpLookup } from '../lookups/geoip/geoip.js';
import type { Ip } from '../net/ip.js';
import { detect, type DetectionIndexHolder } from '../lookups/vpn/index.js';

export const VPN_LIFETIME: Lifetime = { ttlSeconds: 6 * 3600, visibility: 'public' };

export function vpnHandlers(
  geoip: GeoIpLookup,
  holder: DetectionIndexHolder,
  attribution: () => Readonly<Record<string, string>> | null,
) {
  const asnOf = (ip: Ip) => geoip.network(ip);
  let memoOf: { feeds: object; asn: object } | null = null;
  let byRecord: (string | undefined)[] = [];
  let noRecord: string | undefined;
  /** `"isVpn":…` up to the end of the record, for an address that only its AS speaks for */
  const verdictOf = (ip: Ip, record: number): string => {
    const feeds = holder.current();
    const asn = geoip.tables.asn;
    if (memoOf === null || memoOf.feeds !== feeds || memoOf.asn !== asn) {
      memoOf = { feeds, asn };
      byRecord = [];
      noRecord = undefined;
    }
    let verdict = record === NONE ? noRecord : byRecord[record];
    if (verdict === undefined) {
      const json = JSON.stringify(detect(ip, asnOf, feeds));
      // {"ip":"<ip>", … }: keep what follows the address
      verdict = json.slice(json.indexOf('",') + 2, -1);
      if (record === NONE) noRecord = verdict;
      else byRecord[record] = verdict;
    }
    return verdict;
  };
  return {
    detect: defineHandler({
      summary: 'VPN, proxy, hosting and mobile detection',
      description:
        'Flags derived from who operates the address: published cloud/VPN/Tor ranges (confidence high), the classified ASN (medium) or an organisation-name rule (low), with the evidence in `reasons`.',
      tags: ['Detection'],
      params: ipParams,
      response: vpnRecordSchema,
      errors: ['INVALID_IP'],
      headers: attribution,
      handle: ({ params }) => {
        const ip = params.ip;
        if (isBogon(ip) || holder.current().matchFeeds(ip).length > 0) {
          return detect(ip, asnOf, holder.current());
        }
        // ip.text is canonical: nothing to escape
        return new JsonBody(
          `{"data":{"ip":"${ip.text}",${verdictOf(ip, geoip.networkIndex(ip))}}}`,
        );
      },
      record: ({ params }) => detect(params.ip, asnOf, holder.current()),
    }),
  };
}
