// Writing responses: every answer is JSON with the same base headers, written
// with a single writeHead (cheaper than one setHeader per header on this hot path).
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

const EXPOSED =
  'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Cache, X-Request-Id, X-Data-Attribution';

export interface ResponseMeta {
  requestId: string;
  /** set when the request carried an Origin header (a browser's CORS request) */
  cors: boolean;
  head: boolean;
}

export function send(
  res: ServerResponse,
  meta: ResponseMeta,
  status: number,
  body: string,
  headers: OutgoingHttpHeaders,
  contentType = 'application/json; charset=utf-8',
  bytes = Buffer.byteLength(body),
): void {
  headers['content-type'] = contentType;
  headers['content-length'] = bytes;
  headers['access-control-allow-origin'] = '*';
  headers['x-request-id'] = meta.requestId;
  if (meta.cors) headers['access-control-expose-headers'] = EXPOSED;
  res.writeHead(status, headers);
  if (meta.head) res.end();
  else res.end(body);
}

export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
let sequence = 0;
const prefix = Math.random().toString(36).slice(2, 10);

/** The client's X-Request-Id when it is sane (length, charset), a fresh unique one otherwise. */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === 'string' && REQUEST_ID.test(header)) return header;
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}-${sequence.toString(36)}`;
}
