// The GeoIP record of SPEC.md: location from the city database, network from
// the ASN database. Every field is present; unknown values are null.
import type { Ip } from '../../net/ip.js';
import type { AsnSource } from './asn-table.js';
import { isBogon } from './bogons.js';
import { locationJson, type GeoSource } from './mmdb-sources.js';

export interface GeoIpRecord {
  ip: string;
  country: string | null;
  city: string | null;
  region: string | null;
  timezone: string | null;
  latitude: number | null;
  longitude: number | null;
  /** the AS organisation unless an ISP database names the ISP */
  isp: string | null;
  /** `AS<number>` */
  asn: string | null;
  org: string | null;
  /** true for private, loopback, documentation and other special-purpose addresses */
  bogon: boolean;
}

export interface GeoIpLookup {
  lookup(ip: Ip): GeoIpRecord;
  /**
   * The same record already serialised (JSON.stringify(lookup(ip)), byte for
   * byte): the hot path of GET /ip/:ip builds it from memoised fragments
   * instead of allocating and serialising an object per request.
   */
  lookupJson(ip: Ip): string;
}

const NO_LOCATION = locationJson({
  country: null,
  city: null,
  region: null,
  timezone: null,
  latitude: null,
  longitude: null,
});
const NO_NETWORK = '"isp":null,"asn":null,"org":null';

export function createGeoIpLookup(sources: { geo: GeoSource; asn: AsnSource }): GeoIpLookup {
  return {
    lookupJson(ip) {
      // ip.text is canonical (digits, hex, dots, colons): nothing to escape
      if (isBogon(ip)) return `{"ip":"${ip.text}",${NO_LOCATION},${NO_NETWORK},"bogon":true}`;
      const location = sources.geo.entry(ip)?.json ?? NO_LOCATION;
      const n = sources.asn.lookup(ip);
      const network =
        n === null
          ? NO_NETWORK
          : `"isp":${JSON.stringify(n.isp ?? n.org)},"asn":"AS${n.asn}","org":${JSON.stringify(n.org)}`;
      return `{"ip":"${ip.text}",${location},${network},"bogon":false}`;
    },
    lookup(ip) {
      if (isBogon(ip)) {
        return {
          ip: ip.text,
          country: null,
          city: null,
          region: null,
          timezone: null,
          latitude: null,
          longitude: null,
          isp: null,
          asn: null,
          org: null,
          bogon: true,
        };
      }
      const location = sources.geo.lookup(ip);
      const network = sources.asn.lookup(ip);
      return {
        ip: ip.text,
        country: location?.country ?? null,
        city: location?.city ?? null,
        region: location?.region ?? null,
        timezone: location?.timezone ?? null,
        latitude: location?.latitude ?? null,
        longitude: location?.longitude ?? null,
        isp: network ? (network.isp ?? network.org) : null,
        asn: network ? `AS${network.asn}` : null,
        org: network?.org ?? null,
        bogon: false,
      };
    },
  };
}
