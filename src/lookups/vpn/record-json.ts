// The VPN detection record as JSON text, fast: an address outside every
// published range gets the verdict of its AS record alone, so that answer
// (all but the address) is serialised once per AS record and feed snapshot —
// a memo bounded by the data, not by the traffic. Shared by GET /ip/:ip/vpn,
// POST /batch and `ipintel enrich --vpn`.
import { NONE } from '../../data/range-table.js';
import type { Ip } from '../../net/ip.js';
import { isBogon } from '../geoip/bogons.js';
import type { GeoIpLookup } from '../geoip/geoip.js';
import { overrideDetection } from '../overrides/apply.js';
import { detect, type VpnDetection } from './detect.js';
import type { DetectionIndexHolder } from './detection-index.js';
import { NO_OVERRIDE } from '../overrides/override-index.js';

export interface VpnJson {
  /** JSON.stringify(detect(ip, …)), byte for byte */
  record(ip: Ip): string;
  /** the record itself, an override applied (the MCP tool, the CLI, the page) */
  detection(ip: Ip): VpnDetection;
}

export function createVpnJson(geoip: GeoIpLookup, holder: DetectionIndexHolder): VpnJson {
  // an override's AS number is classified as the data's would be
  const asnOf = (ip: Ip) => geoip.network(ip);
  const detection = (ip: Ip): VpnDetection => {
    const record = detect(ip, asnOf, holder.current());
    const row = geoip.overrides.current.rowOf(ip);
    return row === null ? record : overrideDetection(record, row);
  };
  let memoOf: { feeds: object; asn: object } | null = null;
  let byRecord: (string | undefined)[] = [];
  let noRecord: string | undefined;

  /**
   * The record's members after `"ip":"…",` up to its closing brace, for an
   * address only its AS speaks for; null when the address is a bogon or in a
   * published range (then `record` builds the whole record).
   */
  const verdict = (ip: Ip): string | null => {
    const feeds = holder.current();
    if (isBogon(ip) || feeds.inAnyFeed(ip)) return null;
    // without overrides (the common case) this one check is all they cost
    const overrides = geoip.overrides.current;
    if (overrides.size !== 0 && overrides.find(ip) !== NO_OVERRIDE) return null;
    const asn = geoip.tables.asn;
    if (memoOf === null || memoOf.feeds !== feeds || memoOf.asn !== asn) {
      memoOf = { feeds, asn };
      byRecord = [];
      noRecord = undefined;
    }
    const record = geoip.networkIndex(ip);
    let text = record === NONE ? noRecord : byRecord[record];
    if (text === undefined) {
      const json = JSON.stringify(detect(ip, asnOf, feeds));
      // {"ip":"<ip>", … }: keep what follows the address
      text = json.slice(json.indexOf('",') + 2, -1);
      if (record === NONE) noRecord = text;
      else byRecord[record] = text;
    }
    return text;
  };

  return {
    record(ip) {
      const members = verdict(ip);
      // ip.text is canonical: nothing to escape
      return members === null ? JSON.stringify(detection(ip)) : `{"ip":"${ip.text}",${members}}`;
    },
    detection,
  };
}
