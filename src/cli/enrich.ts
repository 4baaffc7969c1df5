// `ipintel enrich`: one output record per input line — the first address in
// the line, its GeoIP record (and VPN record with --vpn), and the line itself.
// JSONL splices the lookups' prebuilt JSON texts around the line (no parse,
// no stringify of the record); CSV (RFC 4180) reads the record's fields.
import { geoIpRecordSchema } from '../api/schemas.js';
import type { GeoIpRecord } from '../lookups/geoip/geoip.js';
import { findAddress } from './find-address.js';
import type { Ip } from '../net/ip.js';

export type EnrichFormat = 'jsonl' | 'csv';

export interface EnrichLookups {
  /** the GeoIP record's JSON text (GeoIpLookup.json) */
  geoip: (ip: Ip) => string;
  /** the VPN record's JSON text, with --vpn */
  vpn?: (ip: Ip) => string;
}

export interface Enricher {
  /** the CSV header line, or "" for JSONL */
  readonly header: string;
  /** the output line (with its "\n") of one input line (without its line break) */
  line(text: string): string;
}

/** The GeoIP record's fields in its own order (the schema's, which the record follows). */
export const GEOIP_FIELDS = Object.keys(geoIpRecordSchema.shape) as (keyof GeoIpRecord)[];

const VPN_FIELDS = ['isVpn', 'isProxy', 'isHosting', 'isMobile', 'isTor', 'confidence'] as const;

/** A line without an address: every field present and null, so each output line has one shape. */
const NO_ADDRESS = `{${GEOIP_FIELDS.map((f) => `"${f}":null`).join(',')}`;

export function createEnricher(format: EnrichFormat, lookups: EnrichLookups): Enricher {
  return format === 'csv' ? csvEnricher(lookups) : jsonlEnricher(lookups);
}

function jsonlEnricher({ geoip, vpn }: EnrichLookups): Enricher {
  const noAddress = vpn ? `${NO_ADDRESS},"vpn":null,"line":` : `${NO_ADDRESS},"line":`;
  return {
    header: '',
    line(text) {
      const ip = findAddress(text);
      if (ip === null) return `${noAddress}${JSON.stringify(text)}}\n`;
      // the record's text ends with "}": the line (and the VPN record) go inside it
      const record = geoip(ip);
      const head = record.slice(0, -1);
      return vpn
        ? `${head},"vpn":${vpn(ip)},"line":${JSON.stringify(text)}}\n`
        : `${head},"line":${JSON.stringify(text)}}\n`;
    },
  };
}

/** RFC 4180 §2: a field with a comma, quote or line break is quoted, quotes doubled. */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

function csvEnricher({ geoip, vpn }: EnrichLookups): Enricher {
  const columns: string[] = [...GEOIP_FIELDS];
  if (vpn) columns.push(...VPN_FIELDS.map((f) => (f === 'confidence' ? 'vpnConfidence' : f)));
  columns.push('line');
  const empty = ','.repeat(columns.length - 1);
  return {
    header: `${columns.join(',')}\n`,
    line(text) {
      const ip = findAddress(text);
      if (ip === null) return `${empty}${csvField(text)}\n`;
      const record = JSON.parse(geoip(ip)) as Record<string, string | number | boolean | null>;
      let out = '';
      for (const field of GEOIP_FIELDS) out += `${csvField(record[field])},`;
      if (vpn) {
        const verdict = JSON.parse(vpn(ip)) as Record<string, string | number | boolean | null>;
        for (const field of VPN_FIELDS) out += `${csvField(verdict[field])},`;
      }
      return `${out}${csvField(text)}\n`;
    },
  };
}
