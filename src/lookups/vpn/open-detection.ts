// Opens the detection index the way the service and the CLI both run it: the
// feeds of DATA_DIR, the proxy age limit and the vpn-range rule of the
// configuration, and the ASN table of the loaded GeoIP data for the ranges
// (its IPv4 routed rows, the AS of an IPv6 /48; read through the holder, so a
// reload after a GeoIP update sees new tables).
import type { Config } from '../../config.js';
import { createGeoIpLookup } from '../geoip/geoip.js';
import type { GeoData } from '../geoip/load.js';
import { DetectionIndexHolder } from './detection-index.js';
import { feedsDir } from './feed-store.js';

export function openDetection(
  config: Readonly<Config>,
  geo: Pick<GeoData, 'tables'>,
): Promise<DetectionIndexHolder> {
  const asn = createGeoIpLookup(geo);
  return DetectionIndexHolder.open({
    dataDir: feedsDir(config.dataDir),
    proxyMaxAgeMs: config.proxyListMaxAgeMs,
    routedRange: (value) => asn.routedV4(value),
    networkOfV6: (ip) => asn.networkAt(asn.networkIndex(ip)),
    vpnRangeRule: config.vpnRangeRule,
  });
}
