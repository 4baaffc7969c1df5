// Many GeoIP (and VPN) lookups in one request, answered as JSON text: each
// result is `{"query":…,"data":<the record of GET /ip/:ip>}` or
// `{"query":…,"error":{…}}`, in input order. The records are the lookups'
// own prebuilt JSON texts, spliced rather than parsed and re-serialised, and
// a query sent twice is computed once. Only in-memory lookups are batched:
// see the README (a batch of whois or DNS lookups would be a thousand
// upstream queries behind one rate-limit unit).
import { checkIp } from '../api/params.js';
import { AppError } from '../errors.js';
import type { Ip } from '../net/ip.js';

export interface BatchLookups {
  /** the GeoIP record's JSON text */
  geoip(ip: Ip): string;
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

/** One result's JSON text. */
function resultOf(query: string, lookups: BatchLookups): { text: string; failed: boolean } {
  const head = `{"query":${JSON.stringify(query)},`;
  let ip: Ip;
  try {
    ip = checkIp(query);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const failure = JSON.stringify({ code: error.code, message: error.message });
    return { text: `${head}"error":${failure}}`, failed: true };
  }
  const geoip = lookups.geoip(ip);
  // the GeoIP record ends with "}": the VPN record goes inside it, as `vpn`
  const data = lookups.vpn ? `${geoip.slice(0, -1)},"vpn":${lookups.vpn(ip)}}` : geoip;
  return { text: `${head}"data":${data}}`, failed: false };
}

/** `{"results":[…],"count":N,"errors":E}` */
export function batchJson(queries: readonly string[], lookups: BatchLookups): string {
  const seen = new Map<string, { text: string; failed: boolean }>();
  const parts = new Array<string>(queries.length);
  let errors = 0;
  for (let i = 0; i < queries.length; i++) {
    const query = queries[i]!;
    let result = seen.get(query);
    if (result === undefined) {
      result = resultOf(query, lookups);
      seen.set(query, result);
    }
    if (result.failed) errors++;
    parts[i] = result.text;
  }
  return `{"results":[${parts.join(',')}],"count":${queries.length},"errors":${errors}}`;
}
