// The GeoIP record of SPEC.md: location from the city database, network from
// the ASN database. Every field is present; unknown values are null.
import type { Ip } from '../../net/ip.js';
import type { AsnSource } from './asn-table.js';
import { isBogon } from './bogons.js';
import type { GeoSource } from './mmdb-sources.js';

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
}

export function createGeoIpLookup(sources: { geo: GeoSource; asn: AsnSource }): GeoIpLookup {
  return {
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
