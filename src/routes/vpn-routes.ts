// GET /ip/:ip/vpn: VPN, proxy, hosting and mobile flags with their evidence,
// from the ASN classification shipped with the project and the published
// ranges fetched into DATA_DIR, computed per request from in-memory data
// (the current feed index, so a reload is visible at once).
//
// The record's JSON comes from ../lookups/vpn/record-json.ts (a memo of the
// verdict per AS record and feed snapshot).
import { ipParams } from '../api/params.js';
import { vpnRecordSchema } from '../api/lookup-schemas.js';
import { defineHandler, JsonBody, type Lifetime } from '../http/route.js';
import type { VpnJson } from '../lookups/vpn/record-json.js';

export const VPN_LIFETIME: Lifetime = { ttlSeconds: 6 * 3600, visibility: 'public' };

export function vpnHandlers(
  vpnJson: VpnJson,
  attribution: () => Readonly<Record<string, string>> | null,
) {
  return {
    detect: defineHandler({
      summary: 'VPN, proxy, hosting and mobile detection',
      description:
        'Flags derived from who operates the address: published cloud/VPN/Tor ranges (confidence high), the classified ASN (medium) or an organisation-name rule (low), with the evidence in `reasons`.',
      tags: ['Detection'],
      params: ipParams,
      response: vpnRecordSchema,
      errors: ['INVALID_IP'],
      versioned: { etag: true },
      headers: attribution,
      handle: ({ params }) => new JsonBody(`{"data":${vpnJson.record(params.ip)}}`),
      record: ({ params }) => vpnJson.detection(params.ip),
    }),
  };
}
