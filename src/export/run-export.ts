// `ipintel export`: loads the data exactly as the service does (GEOIP_DB,
// ASN_DB, DATA_DIR's updates and feeds, OVERRIDES_FILE, the vpn-range rule)
// and writes the export (write-export.ts) from the service's own lookups.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { VERSION } from '../composition.js';
import { createGeoIpLookup } from '../lookups/geoip/geoip.js';
import { loadGeoData, readRest, type GeoData } from '../lookups/geoip/load.js';
import type { DetectionIndexHolder } from '../lookups/vpn/index/detection-index.js';
import { openGeofeeds, type GeofeedHolder } from '../lookups/geofeed/geofeed-holder.js';
import { OverridesHolder } from '../lookups/overrides/overrides-holder.js';
import { openDetection } from '../lookups/vpn/open-detection.js';
import { createVpnJson } from '../lookups/vpn/record-json.js';
import { exportDataVersion } from './export-keeper.js';
import {
  EXPORT_FILES,
  EXPORT_PARTS,
  PART_FILES,
  readManifest,
  type ExportPart,
} from '../kit/export-files.js';
import { writeExport, type ExportResult } from './write-export.js';

export async function exportData(
  config: Readonly<Config>,
  log: Logger,
  outDir: string,
  now: number = Date.now(),
  parts: readonly ExportPart[] = EXPORT_PARTS,
  { ifChanged = false }: { ifChanged?: boolean } = {},
): Promise<ExportResult | null> {
  const overrides = await OverridesHolder.open(config.overridesFile, log);
  const refused = overrides.status.refused;
  if (refused !== null) {
    // the service keeps answering with the overrides it had; an export must not silently drop them
    const lines = refused.problems.map((p) =>
      p.line === 0 ? p.reason : `line ${p.line}: ${p.reason}`,
    );
    throw new Error(`OVERRIDES_FILE ${config.overridesFile} refused: ${lines.join('; ')}`);
  }
  const geo = await loadGeoData(
    {
      geoipDb: config.geoipDb,
      asnDb: config.asnDb,
      geolite2CityDb: config.geolite2CityDb,
      dataDir: config.dataDir,
    },
    log,
  );
  const vpn = await openDetection(config, geo, log);
  const geofeeds = await openGeofeeds(config, geo, log);
  const data = { geo, vpn, geofeeds, overrides };
  if (ifChanged && isCurrent(outDir, exportDataVersion(data), parts)) return null;
  return exportLoaded(data, outDir, now, parts);
}

/**
 * The export of data already loaded (the service's ServiceData has these
 * three). Paged tables are read whole first: the boundaries are read from the
 * arrays themselves, not through the lookups that page them in.
 */
export async function exportLoaded(
  data: {
    geo: GeoData;
    vpn: DetectionIndexHolder;
    geofeeds: GeofeedHolder;
    overrides: OverridesHolder;
  },
  outDir: string,
  now: number = Date.now(),
  parts: readonly ExportPart[] = EXPORT_PARTS,
): Promise<ExportResult> {
  await readRest(data.geo.tables);
  const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
  const feeds = data.vpn.current();
  return writeExport(
    {
      geoip,
      vpn: createVpnJson(geoip, data.vpn),
      feeds,
      overrides: data.overrides.current,
      geofeeds: data.geofeeds.current,
    },
    outDir,
    {
      version: VERSION,
      dataSets: data.geo.dataSets,
      feeds: [
        ...new Set([...feeds.feeds, ...data.geofeeds.current.feeds].map((f) => f.feed)),
      ].sort(),
      overridesVersion: data.overrides.status.version,
      dataVersion: exportDataVersion(data),
      now,
    },
    parts,
  );
}

/** The folder holds an export of this data version by this version of the software, with these files. */
function isCurrent(outDir: string, dataVersion: string, parts: readonly ExportPart[]): boolean {
  const manifest = readManifest(outDir);
  if (manifest === null || manifest.dataVersion !== dataVersion || manifest.version !== VERSION) {
    return false;
  }
  const names = new Set(manifest.files.map((f) => f.name));
  return parts.every((part) => names.has(EXPORT_FILES[PART_FILES[part]]));
}
