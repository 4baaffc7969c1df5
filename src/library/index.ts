// ipintel as a library: `import { openLookups } from 'ipintel'`. The data the
// service answers from — the compiled GeoIP/ASN tables, DATA_DIR's feeds
// (the detection index), geofeeds and the operator's overrides — opened in
// this process through the service's own configuration and loading
// (loadConfig, loadServiceData, the DataReloader), answering synchronously
// with the records of GET /ip/:ip and GET /ip/:ip/vpn, plus geoip-lite's
// answer shape for a drop-in swap (docs/library.md).
import pino, { type Logger } from 'pino';
import { addressOf, checkIp } from '../api/params.js';
import { loadConfig } from '../config.js';
import { loadServiceData, type ServiceData } from '../composition.js';
import { DataReloader } from '../life/reloader.js';
import { createGeoIpLookup, type GeoIpLookup, type GeoIpRecord } from '../lookups/geoip/geoip.js';
import { readRest, type DataSetInfo } from '../lookups/geoip/load.js';
import { GeoRecordObjects } from '../lookups/geoip/record-objects.js';
import { createVpnJson, type VpnJson } from '../lookups/vpn/record-json.js';
import type { VpnDetection } from '../lookups/vpn/detect.js';
import { formatIpv4, type Ip } from '../net/ip.js';
import { isBogon } from '../lookups/geoip/bogons.js';
import { AppError } from '../kit/errors.js';
import { geoipLiteAnswer, type GeoipLiteAnswer } from './geoip-lite.js';
import { regionCodes, type RegionCode } from './region-codes.js';
import { subdivisionTables } from '../lookups/geofeed/subdivision-names.js';

export type { GeoIpRecord, VpnDetection, GeoipLiteAnswer, DataSetInfo };
export { AppError };

export interface OpenLookupsOptions {
  /**
   * The variables that configure the data, read as the service reads them
   * (DATA_DIR, GEOIP_DB, ASN_DB, OVERRIDES_FILE, PROXY_LIST_MAX_AGE_HOURS,
   * VPN_RANGE_*; docs/api.md): default `process.env`; `{}` for none.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** DATA_DIR: where `ipintel update-data` keeps feeds, geofeeds and updated tables */
  dataDir?: string;
  /** GEOIP_DB: an MMDB file (or its compiled tables) instead of the embedded data */
  geoipDb?: string;
  /** ASN_DB: an ASN MMDB or CSV instead of the embedded data */
  asnDb?: string;
  /** OVERRIDES_FILE: the operator's corrections (default DATA_DIR/overrides.csv) */
  overridesFile?: string;
  /** where problems are told (a feed file skipped, a failed reload): default warnings on stderr */
  logger?: Logger;
}

export interface Lookups {
  /** The record of GET /ip/:ip (`data`); an invalid address throws AppError INVALID_IP. */
  geo(ip: string): GeoIpRecord;
  /** The record of GET /ip/:ip/vpn (`data`); an invalid address throws AppError INVALID_IP. */
  vpn(ip: string): VpnDetection;
  /** geoip-lite's `lookup(ip)`: its object, or null (invalid, special-purpose or unplaced address). */
  lookup(ip: string | number): GeoipLiteAnswer | null;
  /** The GeoIP and ASN data sets answering now (as GET /status names them). */
  dataSets(): readonly DataSetInfo[];
  /**
   * Reads the data again (after `ipintel update-data`, a new GEOIP_DB file,
   * edited overrides) and swaps it in; a part that fails keeps what it had
   * and is told to the logger. Resolves when done.
   */
  reload(): Promise<void>;
  /** Lets go of the data: any call after it throws. */
  close(): void;
}

/** Opens the data (the tables read whole before it resolves: ~120 MB). */
export async function openLookups(options: OpenLookupsOptions = {}): Promise<Lookups> {
  const config = loadConfig({
    ...(options.env ?? process.env),
    ...defined({
      DATA_DIR: options.dataDir,
      GEOIP_DB: options.geoipDb,
      ASN_DB: options.asnDb,
      OVERRIDES_FILE: options.overridesFile,
    }),
  });
  const log = options.logger ?? pino({ level: 'warn', name: 'ipintel' }, pino.destination(2));
  const data = await loadServiceData(config, log);
  // read whole now: no lookup pays for reading its chunks, and no file stays open
  await readRest(data.geo.tables);
  const regionCode = regionCodes(await subdivisionTables());
  return new OpenedLookups(data, new DataReloader(config, data, log), regionCode);
}

function defined(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) if (value !== undefined) out[key] = value;
  return out;
}

/** What an open Lookups answers from: all of it let go at close(). */
interface Opened {
  data: ServiceData;
  reloader: DataReloader;
  geoip: GeoIpLookup;
  records: GeoRecordObjects;
  vpnJson: VpnJson;
}

class OpenedLookups implements Lookups {
  private opened: Opened | null;

  constructor(
    data: ServiceData,
    reloader: DataReloader,
    private readonly regionCode: RegionCode,
  ) {
    const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
    this.opened = {
      data,
      reloader,
      geoip,
      records: new GeoRecordObjects(geoip),
      vpnJson: createVpnJson(geoip, data.vpn),
    };
  }

  geo(ip: string): GeoIpRecord {
    return this.open().records.record(checkIp(ip));
  }

  vpn(ip: string): VpnDetection {
    return this.open().vpnJson.detection(checkIp(ip));
  }

  lookup(ip: string | number): GeoipLiteAnswer | null {
    const { records, geoip } = this.open();
    const address = geoipLiteAddress(ip);
    if (address === null || isBogon(address)) return null;
    const range = address.version === 4 ? rangeV4(geoip, address.value) : null;
    return geoipLiteAnswer(records.record(address), range, this.regionCode);
  }

  dataSets(): readonly DataSetInfo[] {
    return this.open().data.geo.dataSets;
  }

  async reload(): Promise<void> {
    await this.open().reloader.reload({ reason: 'library', ifChanged: false });
  }

  close(): void {
    this.opened = null;
  }

  private open(): Opened {
    if (this.opened === null) throw new AppError('SERVICE_UNAVAILABLE', 'The lookups are closed.');
    return this.opened;
  }
}

/**
 * The IPv4 range answering as `value` does: the GeoIP table's row, within
 * the geofeeds' row and the overrides' segment (covering it or not) around it.
 */
function rangeV4(geoip: GeoIpLookup, value: number): [number, number] {
  const row = geoip.tables.geoip.table.rowV4(value);
  let start = row.start;
  let end = row.end;
  const geofeeds = geoip.geofeeds.current;
  if (geofeeds.size !== 0) {
    const fed = geofeeds.table.rowV4(value);
    start = Math.max(start, fed.start);
    end = Math.min(end, fed.end);
  }
  const overrides = geoip.overrides.current;
  if (overrides.size !== 0) {
    const [first, last] = overrides.spanV4(value);
    start = Math.max(start, first);
    end = Math.min(end, last);
  }
  return [start, end];
}

/**
 * What geoip-lite looks up for its argument: an IPv4 address as a number
 * too, an IPv4-mapped IPv6 address as its IPv4 address (parseIp does so), and
 * nothing (null) for anything else, as geoip-lite answers null.
 */
function geoipLiteAddress(ip: string | number): Ip | null {
  if (typeof ip === 'number') {
    if (!Number.isInteger(ip) || ip < 0 || ip > 0xffffffff) return null;
    return { version: 4, text: formatIpv4(ip), value: ip };
  }
  return typeof ip === 'string' ? addressOf(ip) : null;
}
