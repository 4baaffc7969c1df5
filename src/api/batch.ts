// Many GeoIP (and VPN) lookups in one request, answered as JSON bytes: each
// result is `{"query":…,"data":<the record of GET /ip/:ip>}` or
// `{"query":…,"error":{…}}`, in input order. The records are written straight
// from the tables' bytes into one buffer (GeoIpLookup.writeJson, the bulk path
// `ipintel enrich` takes too), never built as strings, and a query sent twice
// is computed once and its bytes copied. Only in-memory lookups are batched:
// see docs/api.md (a batch of whois or DNS lookups would be a thousand upstream
// queries behind one rate-limit unit).
import { Buffer } from 'node:buffer';
import { checkIp } from './params.js';
import { writeAscii } from '../data/byte-writer.js';
import { OutputBuffer } from '../data/output-buffer.js';
import { AppError } from '../kit/errors.js';
import type { Ip } from '../net/ip.js';

export interface BatchLookups {
  geoip: {
    /** the GeoIP record's JSON bytes written into `out` at `at`; returns the offset after them */
    writeJson(ip: Ip, out: Buffer, at: number): number;
    /** the room writeJson may need */
    maxJsonBytes(): number;
  };
  /** the VPN record's JSON text, when the batch asks for it */
  vpn?: (ip: Ip) => string;
}

const EXAMPLE = '["8.8.8.8", "2606:4700:4700::1111"]';

/** JSON's name for a value's type, for messages. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * The addresses of a request body, or the error that says what is wrong:
 * not JSON or not an array (400 BAD_REQUEST), more than `maxItems`
 * (413 PAYLOAD_TOO_LARGE, naming the limit), an element that is not a string
 * (400 BAD_REQUEST, naming its index).
 */
export function parseBatchBody(text: string, maxItems: number): string[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new AppError(
      'BAD_REQUEST',
      `The body is not valid JSON; send an array such as ${EXAMPLE}.`,
    );
  }
  if (!Array.isArray(body)) {
    throw new AppError(
      'BAD_REQUEST',
      `The body must be a JSON array of address strings, such as ${EXAMPLE}; it is ${kindOf(body)}.`,
    );
  }
  if (body.length > maxItems) {
    throw new AppError(
      'PAYLOAD_TOO_LARGE',
      `The batch holds ${body.length} addresses; the limit is ${maxItems} per request (BATCH_MAX_ITEMS). Split it into several requests.`,
    );
  }
  for (let i = 0; i < body.length; i++) {
    if (typeof body[i] !== 'string') {
      throw new AppError(
        'BAD_REQUEST',
        `Element ${i} of the batch is ${kindOf(body[i])}, not a string: every element must be an address as a string, such as ${EXAMPLE}.`,
      );
    }
  }
  return body as string[];
}

/** Writes one result at out.at; whether it is an error. */
function writeResult(query: string, lookups: BatchLookups, out: OutputBuffer): boolean {
  let ip: Ip;
  try {
    ip = checkIp(query);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const failure = JSON.stringify({ code: error.code, message: error.message });
    out.writeText(`{"query":${JSON.stringify(query)},"error":${failure}}`);
    return true;
  }
  const verdict = lookups.vpn ? lookups.vpn(ip) : '';
  // an address that parsed is hex digits, dots and colons: nothing to escape
  const bytes = out.reserve(query.length + lookups.geoip.maxJsonBytes() + 3 * verdict.length + 32);
  let at = writeAscii(bytes, out.at, '{"query":"');
  at = writeAscii(bytes, at, query);
  at = writeAscii(bytes, at, '","data":');
  at = lookups.geoip.writeJson(ip, bytes, at);
  if (lookups.vpn) {
    // the GeoIP record ends with "}": the VPN record goes inside it, as `vpn`
    at = writeAscii(bytes, at - 1, ',"vpn":');
    at += bytes.write(verdict, at, 'utf8');
    bytes[at++] = 0x7d; // }
  }
  bytes[at++] = 0x7d; // }
  out.at = at;
  return false;
}

/**
 * `{"results":[…],"count":N,"errors":E}` as UTF-8 bytes, between `head` and
 * `tail` (the response envelope, `{"data":` and `}`).
 */
export function batchJson(
  queries: readonly string[],
  lookups: BatchLookups,
  head = '',
  tail = '',
): Buffer {
  // each result's bytes [start, end) and whether it failed, by query
  const seen = new Map<string, { start: number; end: number; failed: boolean }>();
  const out = new OutputBuffer(64 + queries.length * 320);
  out.writeText(`${head}{"results":[`);
  let errors = 0;
  for (let i = 0; i < queries.length; i++) {
    const query = queries[i]!;
    if (i > 0) out.reserve(1)[out.at++] = 0x2c; // ,
    let result = seen.get(query);
    if (result === undefined) {
      const start = out.at;
      const failed = writeResult(query, lookups, out);
      result = { start, end: out.at, failed };
      seen.set(query, result);
    } else {
      const length = result.end - result.start;
      out.reserve(length).copyWithin(out.at, result.start, result.end);
      out.at += length;
    }
    if (result.failed) errors++;
  }
  out.writeText(`],"count":${queries.length},"errors":${errors}}${tail}`);
  return out.written();
}
