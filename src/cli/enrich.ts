// `ipintel enrich`: one output record per input line — the first address in
// the line, its GeoIP record (and VPN record with --vpn), and the line itself.
//
// JSONL works on bytes: the line is never decoded, the record's texts are
// copied out of the tables' bytes, and the line is escaped as JSON byte by
// byte into the output buffer — the bulk path runs millions of times a file.
// Only a line with bytes beyond ASCII is decoded, then JSON.stringify'd,
// which replaces malformed UTF-8 as the decoder does; CSV (RFC 4180) reads
// the record's fields through strings.
import { Buffer } from 'node:buffer';
import { geoIpRecordSchema } from '../api/schemas.js';
import { writeAscii, writeJsonString } from '../data/byte-writer.js';
import type { GeoIpRecord } from '../lookups/geoip/geoip.js';
import type { Ip } from '../net/ip.js';
import type { OutputBuffer } from '../data/output-buffer.js';
import { findAddressIn } from './find-address.js';

export type EnrichFormat = 'jsonl' | 'csv';

export interface EnrichLookups {
  geoip: {
    /** the GeoIP record's JSON text (GeoIpLookup.json), for CSV */
    json(ip: Ip): string;
    /** the same text's bytes written into `out` at `at`; returns the offset after them */
    writeJson(ip: Ip, out: Buffer, at: number): number;
    /** the room writeJson may need */
    maxJsonBytes(): number;
  };
  /** the VPN record's JSON text, with --vpn */
  vpn?: (ip: Ip) => string;
}

export interface Enricher {
  /** the CSV header line, or "" for JSONL */
  readonly header: string;
  /** Appends the output line (with its "\n") of input bytes [start, end): one line without its break. */
  line(input: Buffer, start: number, end: number, out: OutputBuffer): void;
}

/** The GeoIP record's fields in its own order (the schema's, which the record follows). */
export const GEOIP_FIELDS = Object.keys(geoIpRecordSchema.shape) as (keyof GeoIpRecord)[];

const VPN_FIELDS = [
  'isVpn',
  'isProxy',
  'isHosting',
  'isMobile',
  'isTor',
  'provider',
  'confidence',
] as const;

/** CSV columns whose name alone would not say they belong to the VPN record */
const VPN_COLUMNS: Partial<Record<(typeof VPN_FIELDS)[number], string>> = {
  confidence: 'vpnConfidence',
  provider: 'vpnProvider',
};

/** A line without an address: every field present and null, so each output line has one shape. */
const NO_ADDRESS = `{${GEOIP_FIELDS.map((f) => `"${f}":null`).join(',')}`;

export function createEnricher(format: EnrichFormat, lookups: EnrichLookups): Enricher {
  return format === 'csv' ? csvEnricher(lookups) : jsonlEnricher(lookups);
}

function jsonlEnricher({ geoip, vpn }: EnrichLookups): Enricher {
  const noAddress = vpn ? `${NO_ADDRESS},"vpn":null,"line":` : `${NO_ADDRESS},"line":`;
  return {
    header: '',
    line(input, start, end, out) {
      const ip = findAddressIn(input, start, end);
      const verdict = vpn && ip !== null ? vpn(ip) : '';
      // a JSON-escaped byte is at most 6 ("\u001f"); a VPN text character at most 3 in UTF-8
      const room =
        Math.max(geoip.maxJsonBytes(), noAddress.length) +
        3 * verdict.length +
        6 * (end - start) +
        32;
      const bytes = out.reserve(room);
      let at = out.at;
      if (ip === null) at = writeAscii(bytes, at, noAddress);
      else {
        // the record ends with "}": the VPN record and the line go inside it
        at = geoip.writeJson(ip, bytes, at) - 1;
        if (vpn) {
          at = writeAscii(bytes, at, ',"vpn":');
          at += bytes.write(verdict, at, 'utf8');
        }
        at = writeAscii(bytes, at, ',"line":');
      }
      const lineAt = at;
      at = writeJsonString(input, start, end, bytes, at);
      if (at === -1) {
        // bytes beyond ASCII: decoded (malformed UTF-8 replaced, as the decoder does) and
        // stringified; each input byte gives at most 6 bytes here too, within `room`
        const text = JSON.stringify(input.toString('utf8', start, end));
        at = lineAt + bytes.write(text, lineAt, 'utf8');
      }
      bytes[at++] = 0x7d; // }
      bytes[at++] = 0x0a; // \n
      out.at = at;
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
  if (vpn) columns.push(...VPN_FIELDS.map((f) => VPN_COLUMNS[f] ?? f));
  columns.push('line');
  const empty = ','.repeat(columns.length - 1);
  /** a line's CSV row, through strings */
  const row = (text: string, ip: Ip | null): string => {
    if (ip === null) return `${empty}${csvField(text)}\n`;
    const record = JSON.parse(geoip.json(ip)) as Record<string, string | number | boolean | null>;
    let out = '';
    for (const field of GEOIP_FIELDS) out += `${csvField(record[field])},`;
    if (vpn) {
      const verdict = JSON.parse(vpn(ip)) as Record<string, string | number | boolean | null>;
      for (const field of VPN_FIELDS) out += `${csvField(verdict[field])},`;
    }
    return `${out}${csvField(text)}\n`;
  };
  return {
    header: `${columns.join(',')}\n`,
    line(input, start, end, out) {
      out.writeText(row(input.toString('utf8', start, end), findAddressIn(input, start, end)));
    },
  };
}
