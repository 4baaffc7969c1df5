// One request and its answer: what every step of the pipeline reads (method,
// path, caller, request id) and writes (the headers it decided, the status),
// passed as one value from routing to the access log. The response headers
// belong to the exchange and are written once, by `send`.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AnyRoute } from './route.js';
import type { Ip } from '../net/ip.js';
import { bodyStillArriving, sendLingering } from './linger.js';
import { requestIdFrom } from './respond.js';

const EXPOSED =
  'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Cache, X-Request-Id, X-Data-Attribution';

export const JSON_TYPE = 'application/json; charset=utf-8';

export class Exchange {
  readonly started = performance.now();
  readonly method: string;
  readonly url: string;
  /** the path without the query string */
  readonly path: string;
  /** the query string without "?", or "" */
  readonly query: string;
  readonly requestId: string;
  /** the request carried an Origin header (a browser's CORS request) */
  readonly cors: boolean;
  readonly head: boolean;
  /** the matched route, for metrics; null until matched */
  route: AnyRoute | null = null;
  /** headers decided along the way (rate limit, caching, attribution) */
  readonly headers: OutgoingHttpHeaders = {};

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly clientIp: Ip,
  ) {
    const url = req.url ?? '/';
    this.url = url;
    this.method = req.method ?? 'GET';
    const queryAt = url.indexOf('?');
    this.path = queryAt === -1 ? url : url.slice(0, queryAt);
    this.query = queryAt === -1 ? '' : url.slice(queryAt + 1);
    this.requestId = requestIdFrom(req.headers['x-request-id']);
    this.cors = req.headers.origin !== undefined;
    this.head = this.method === 'HEAD';
  }

  /** Writes the whole answer: the decided headers plus the ones every answer carries. */
  send(status: number, body: string | Buffer, contentType = JSON_TYPE, bytes?: number): number {
    const headers = this.headers;
    headers['content-type'] = contentType;
    headers['content-length'] = bytes ?? Buffer.byteLength(body);
    headers['access-control-allow-origin'] = '*';
    headers['x-request-id'] = this.requestId;
    if (this.cors) headers['access-control-expose-headers'] = EXPOSED;
    if (bodyStillArriving(this.req)) {
      // an early refusal (413, 415, 429, 405): see ./linger.ts
      headers['connection'] = 'close';
      this.res.writeHead(status, headers);
      sendLingering(this.req, this.res, this.head ? undefined : body);
      return status;
    }
    this.res.writeHead(status, headers);
    if (this.head) this.res.end();
    else this.res.end(body);
    return status;
  }

  /** An answer without a body (204, or 202 for a JSON-RPC notification). */
  sendEmpty(status: number): number {
    this.headers['access-control-allow-origin'] = '*';
    this.headers['x-request-id'] = this.requestId;
    this.res.writeHead(status, this.headers);
    this.res.end();
    return status;
  }
}
