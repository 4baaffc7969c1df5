// Opens the detection index the way the service and the CLI both run it: the
// feeds of DATA_DIR, the proxy age limit and the vpn-range rule of the
// configuration, and the ASN table of the loaded GeoIP data for the ranges
// (its IPv4 routed rows, the AS of an IPv6 /48; read through the holder, so a
// reload after a GeoIP update sees new tables).
import { join } from 'node:path';
import { tablesIdentity } from '../geoip/compiled-set.js';
import { createGeoIpLookup } from '../geoip/geoip.js';
import type { GeoData } from '../geoip/load.js';
import type { RoutedSizes } from './index/asn-evidence.js';
import type { DerivedLog } from '../../data/derived-tables.js';
import {
  DETECTION_TABLES,
  DetectionIndexHolder,
  type DetectionIndexOptions,
} from './index/detection-index.js';
import type { VpnRangeRule } from './index/vpn-ranges.js';
import { feedsDir } from './feeds/feed-store.js';
import { DEFAULT_VPN_DENSE_RULE } from './index/vpn-dense.js';

/** What of the configuration detection reads (the Config has these fields). */
export interface DetectionSettings {
  readonly dataDir: string;
  readonly proxyListMaxAgeMs: number;
  readonly vpnRangeRule: VpnRangeRule;
}

/** As the service runs it: the built index kept in DATA_DIR/tables for the next start. */
export function openDetection(
  config: DetectionSettings,
  geo: Pick<GeoData, 'tables'>,
  log: DerivedLog,
): Promise<DetectionIndexHolder> {
  return DetectionIndexHolder.open({
    ...detectionOptions(config, geo),
    compiled: {
      path: join(config.dataDir, 'tables', DETECTION_TABLES),
      // the vpn-range and VPN-dense rules read the ASN table's ranges
      inputs: () => tablesIdentity(geo.tables.asn),
      log,
    },
  });
}

/** The options the service builds its index with (the evaluation rebuilds indexes with them). */
export function detectionOptions(
  config: DetectionSettings,
  geo: Pick<GeoData, 'tables'>,
): DetectionIndexOptions {
  const asn = createGeoIpLookup(geo);
  // each AS's routed space: one walk of the ASN table per table loaded
  let sizes: { of: object; sizes: RoutedSizes } | null = null;
  return {
    dataDir: feedsDir(config.dataDir),
    proxyMaxAgeMs: config.proxyListMaxAgeMs,
    routedRange: (value) => asn.routedV4(value),
    networkOfV6: (ip) => asn.networkAt(asn.networkIndex(ip)),
    vpnRangeRule: config.vpnRangeRule,
    vpnDenseRule: DEFAULT_VPN_DENSE_RULE,
    routedSizes: () => {
      const of = geo.tables.asn;
      if (sizes?.of !== of) sizes = { of, sizes: asn.routedSizesV4() };
      return sizes.sizes;
    },
  };
}
