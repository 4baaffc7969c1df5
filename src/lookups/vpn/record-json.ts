// The VPN detection record as JSON text, fast: an address's verdict is that
// of its set of feeds (none, for most) and its AS record, so that answer (all
// but the address) is serialised once per pair and feed snapshot — a memo
// bounded by the data (the pairs that exist in the address space), not by
// the traffic. Shared by GET /ip/:ip/vpn, POST /batch and `ipintel enrich --vpn`.
import { NONE } from '../../data/range-table.js';
import type { Ip } from '../../net/ip.js';
import { isBogon } from '../geoip/bogons.js';
import type { GeoIpLookup } from '../geoip/geoip.js';
import { overrideDetection } from '../overrides/apply.js';
import { detect, type VpnDetection } from './detect.js';
import type { DetectionIndexHolder } from './index/detection-index.js';
import { NO_OVERRIDE } from '../overrides/override-index.js';

export interface VpnJson {
  /** JSON.stringify(detect(ip, …)), byte for byte */
  record(ip: Ip): string;
  /**
   * The record's members after `"ip":"…",`, without its closing brace, when
   * the address's feed set and AS record speak for it (one text per pair,
   * the same string each time); null when record() builds it whole (a bogon,
   * an override, a stale proxy list). `network`: the address's AS record
   * index (GeoIpLookup.recordIndexes) when the caller has it already (the
   * export, for 8 million intervals), else it is looked up here.
   */
  members(ip: Ip, network?: number): string | null;
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
  /** per feed set (0: in no feed), the record's members per AS record (and for no record) */
  let bySet: (SetMemo | undefined)[] = [];

  /**
   * The record's members after `"ip":"…",` up to its closing brace, for an
   * address its feed set and AS record speak for; null when the address is a
   * bogon, an override covers it or a proxy list holding it went stale (then
   * `record` builds the whole record).
   */
  const verdict = (ip: Ip, network?: number): string | null => {
    if (isBogon(ip)) return null;
    const feeds = holder.current();
    const set = feeds.settledSetOf(ip);
    if (set < 0) return null;
    // without overrides (the common case) this one check is all they cost
    const overrides = geoip.overrides.current;
    if (overrides.size !== 0 && overrides.find(ip) !== NO_OVERRIDE) return null;
    const asn = geoip.tables.asn;
    if (memoOf === null || memoOf.feeds !== feeds || memoOf.asn !== asn) {
      memoOf = { feeds, asn };
      bySet = [];
    }
    const memo = (bySet[set] ??= { byRecord: [], noRecord: undefined });
    const record = network ?? geoip.networkIndex(ip);
    let text = record === NONE ? memo.noRecord : memo.byRecord[record];
    if (text === undefined) {
      const json = JSON.stringify(detect(ip, asnOf, feeds, feeds.matchOfSet(set)));
      // {"ip":"<ip>", … }: keep what follows the address
      text = json.slice(json.indexOf('",') + 2, -1);
      if (record === NONE) memo.noRecord = text;
      else memo.byRecord[record] = text;
    }
    return text;
  };

  return {
    members: verdict,
    record(ip) {
      const members = verdict(ip);
      // ip.text is canonical: nothing to escape
      return members === null ? JSON.stringify(detection(ip)) : `{"ip":"${ip.text}",${members}}`;
    },
    detection,
  };
}

/** The verdicts of one feed set: the record's members per AS record, and for an address of none. */
interface SetMemo {
  byRecord: (string | undefined)[];
  noRecord: string | undefined;
}
