// The in-memory data of the CLI's GeoIP and VPN subcommands (`ipintel <ip>`,
// `vpn`, `enrich`): the same tables and feeds the service loads, through the
// same configuration (GEOIP_DB, ASN_DB, DATA_DIR, OVERRIDES_FILE); the feeds only when asked.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { createGeoIpLookup, type GeoIpLookup } from '../lookups/geoip/geoip.js';
import { loadConfiguredGeoData } from '../lookups/geoip/load.js';
import type { DetectionIndexHolder } from '../lookups/vpn/index/detection-index.js';
import { openDetection } from '../lookups/vpn/open-detection.js';
import { OverridesHolder } from '../lookups/overrides/overrides-holder.js';
import { openGeofeeds } from '../lookups/geofeed/geofeed-holder.js';
import { createVpnJson, type VpnJson } from '../lookups/vpn/record-json.js';

export interface LoadedGeo {
  geoip: GeoIpLookup;
  /** with `vpn` only */
  holder: DetectionIndexHolder | null;
  vpnJson: VpnJson | null;
}

export async function loadGeo(
  config: Readonly<Config>,
  log: Logger,
  vpn: boolean,
): Promise<LoadedGeo> {
  // the operator's corrections answer here as in the service (a refused file: none, logged)
  const overridesLoading = OverridesHolder.open(config.overridesFile, log);
  // one process, one command: the IPv6 tables only when an IPv6 address comes
  const geo = await loadConfiguredGeoData(config, log);
  const holder = vpn ? await openDetection(config, geo, log) : null;
  const geofeeds = await openGeofeeds(config, geo, log);
  const geoip = createGeoIpLookup(geo, await overridesLoading, geofeeds);
  return { geoip, holder, vpnJson: holder === null ? null : createVpnJson(geoip, holder) };
}
