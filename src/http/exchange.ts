// One request and its answer: what every step of the pipeline reads (method,
// path, caller, request id) and writes (the headers it decided, the status),
// passed as one value from routing to the access log. The response headers
// belong to the exchange and are written once, by `send`.
import type { FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { Buffer } from 'node:buffer';
import { IncomingMessage, ServerResponse } from 'node:http';
import type { HeaderValue, RequestHead, Responder } from './message.js';
import { performance } from 'node:perf_hooks';
import type { AnyRoute } from './route.js';
import type { Ip } from '../net/ip.js';
import type { ApiKey } from '../auth/api-keys.js';
import { bodyStillArriving, sendLingering } from './linger.js';
import { requestIdFrom } from './respond.js';
import { endWithTurn } from './write-batch.js';

const EXPOSED =
  'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate, X-Cache, X-Request-Id, X-Data-Attribution, X-Data-Version, X-Location-Source, ETag';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** a Buffer body up to this size is written with the head, as one string (see send) */
const JOINED_BODY_BYTES = 16 * 1024;

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
  /** the API key the request was admitted with (its name goes to the access log) */
  apiKey: ApiKey | null = null;
  /** that key, when it came as ?key=: the page's links carry it on */
  queryKey: string | null = null;
  // The headers decided along the way. The ones nearly every answer carries
  // are fields; the rest gather in `extra` as name, value, name, value… —
  // node:http takes that flat list as it is, where an object of headers costs
  // a for-in with an own-property check and a megamorphic load per header.
  /** the rate limit's figures, once counted */
  rateLimit: RateLimitFigures | null = null;
  cacheControl: string | null = null;
  /** X-Cache, on answers through the lookup cache */
  xCache: 'HIT' | 'MISS' | null = null;
  /** the other headers, name then value (lower-case names, each at most once) */
  readonly extra: HeaderValue[] = [];
  /**
   * the route's headers of an answer from its data (attribution, data
   * version, ETag): one object per data version, whose lines are made once
   * (see headerLines); no other header has their names
   */
  dataHeaders: Readonly<Record<string, string>> | null = null;

  constructor(
    readonly req: RequestHead,
    readonly res: Responder,
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

  /** Sets a header (replacing an earlier value of the same name). */
  setHeader(name: string, value: HeaderValue): void {
    if (name === 'cache-control') {
      this.cacheControl = String(value);
      return;
    }
    const extra = this.extra;
    for (let i = 0; i < extra.length; i += 2) {
      if (extra[i] === name) {
        extra[i + 1] = value;
        return;
      }
    }
    extra.push(name, value);
  }

  /** Sets every header of an object (a route's attribution, a raw answer's own). */
  setHeaders(headers: Readonly<Record<string, HeaderValue>>): void {
    for (const name of Object.keys(headers)) this.setHeader(name, headers[name]!);
  }

  /** Writes the whole answer: the decided headers plus the ones every answer carries. */
  send(
    status: number,
    body: string | Buffer,
    contentType = JSON_TYPE,
    bytes?: number,
    encoding: 'utf8' | 'latin1' = 'utf8',
  ): number {
    const length = bytes ?? Buffer.byteLength(body);
    const { req, res } = this;
    if (res.writeHeadLines !== undefined) {
      const lines = `${this.headerLines()}content-type: ${contentType}\r\ncontent-length: ${length}\r\n`;
      res.writeHeadLines(status, lines, true);
      this.end(body, encoding);
      return status;
    }
    const headers = this.commonHeaders();
    headers.push('content-type', contentType, 'content-length', length);
    if (bodyStillArriving(req) && req instanceof IncomingMessage && isNodeResponse(res)) {
      // an early refusal (413, 415, 429, 405): see ./linger.ts (a request
      // with a body is always node:http's: the fast path reads none)
      headers.push('connection', 'close');
      res.writeHead(status, headers);
      const bytesOf = encoding === 'latin1' ? Buffer.from(body as string, 'latin1') : body;
      sendLingering(req, res, this.head ? undefined : bytesOf);
      return status;
    }
    res.writeHead(status, headers);
    this.end(body, encoding);
    return status;
  }

  /** Ends the answer whose head is written. */
  private end(body: string | Buffer, encoding: 'utf8' | 'latin1'): void {
    if (this.head) endWithTurn(this.res, undefined);
    else if (typeof body === 'string') endWithTurn(this.res, body, encoding);
    else if (body.length > JOINED_BODY_BYTES) endWithTurn(this.res, body);
    // node:http joins a string body to the head and writes both at once; a
    // Buffer goes out as a second chunk of a writev, which costs more than
    // copying a small body into a string: its bytes as latin1, one char a byte
    else endWithTurn(this.res, body.toString('latin1'), 'latin1');
  }

  /**
   * A file's bytes streamed as the answer (GET /export/…): never read whole
   * into memory. node:http's responses only (the fast path hands such paths
   * to node:http: it writes an answer in one piece). The handle is closed
   * once the file is sent, the client gone, or a HEAD answered.
   */
  sendFile(
    status: number,
    file: { handle: FileHandle; bytes: number },
    contentType: string,
  ): number {
    const res = this.res;
    if (!isNodeResponse(res)) {
      void file.handle.close();
      throw new Error('a streamed file needs a node:http response');
    }
    const headers = this.commonHeaders();
    headers.push('content-type', contentType, 'content-length', file.bytes);
    res.writeHead(status, headers);
    if (this.head) {
      void file.handle.close();
      res.end();
      return status;
    }
    const stream = file.handle.createReadStream({ highWaterMark: 256 * 1024 });
    // pipeline destroys the stream (closing the handle) when the client goes away
    pipeline(stream, res).catch(() => undefined);
    return status;
  }

  /**
   * A body made as it is sent (chunked): its chunks read only as fast as the
   * client takes them; a client that goes away stops the maker. A maker that
   * fails partway ends the answer unfinished (the client sees a chunked body
   * without its last chunk, not a whole-looking list) and goes to `failed`;
   * a client that went away is no failure of ours.
   */
  sendStream(
    status: number,
    chunks: AsyncIterable<string>,
    contentType: string,
    failed: (error: unknown) => void,
  ): number {
    const res = this.res;
    if (!isNodeResponse(res)) throw new Error('a streamed answer needs a node:http response');
    const headers = this.commonHeaders();
    headers.push('content-type', contentType);
    res.writeHead(status, headers);
    if (this.head) {
      res.end();
      return status;
    }
    // the head goes at once: the client knows the answer has begun before the first chunk
    res.flushHeaders();
    pipeline(Readable.from(chunks, { objectMode: false }), res).catch((error: unknown) => {
      if (!clientWentAway(error)) failed(error);
    });
    return status;
  }

  /** An answer without a body (204, or 202 for a JSON-RPC notification). */
  sendEmpty(status: number): number {
    const res = this.res;
    if (res.writeHeadLines !== undefined) res.writeHeadLines(status, this.headerLines(), false);
    else res.writeHead(status, this.commonHeaders());
    endWithTurn(res, undefined);
    return status;
  }

  /** The decided headers and the ones every answer carries, as node:http's flat list. */
  private commonHeaders(): HeaderValue[] {
    const headers: HeaderValue[] = [
      'access-control-allow-origin',
      '*',
      'x-request-id',
      this.requestId,
    ];
    const limit = this.rateLimit;
    if (limit !== null) {
      headers.push(
        'ratelimit-limit',
        limit.limit,
        'ratelimit-remaining',
        limit.remaining,
        'ratelimit-reset',
        limit.resetSeconds,
      );
    }
    if (this.cacheControl !== null) headers.push('cache-control', this.cacheControl);
    if (this.xCache !== null) headers.push('x-cache', this.xCache);
    if (this.cors) headers.push('access-control-expose-headers', EXPOSED);
    const extra = this.extra;
    for (let i = 0; i < extra.length; i++) headers.push(extra[i]!);
    const data = this.dataHeaders;
    if (data !== null) for (const name of Object.keys(data)) headers.push(name, data[name]!);
    return headers;
  }

  /**
   * The same headers as text lines, in the same order, for a writer that
   * takes text (the fast path). The values are the pipeline's own; the
   * request id is checked or made by requestIdFrom, the data headers' lines
   * are checked when made, and the other headers here.
   */
  private headerLines(): string {
    let lines = `access-control-allow-origin: *\r\nx-request-id: ${this.requestId}\r\n`;
    const limit = this.rateLimit;
    if (limit !== null) {
      lines += `ratelimit-limit: ${limit.limit}\r\nratelimit-remaining: ${limit.remaining}\r\nratelimit-reset: ${limit.resetSeconds}\r\n`;
    }
    if (this.cacheControl !== null) lines += `cache-control: ${this.cacheControl}\r\n`;
    if (this.xCache !== null) lines += `x-cache: ${this.xCache}\r\n`;
    if (this.cors) lines += EXPOSED_LINE;
    const extra = this.extra;
    for (let i = 0; i < extra.length; i += 2)
      lines += headerLine(extra[i] as string, extra[i + 1]!);
    if (this.dataHeaders !== null) lines += dataHeaderLines(this.dataHeaders);
    return lines;
  }
}

const EXPOSED_LINE = `access-control-expose-headers: ${EXPOSED}\r\n`;

/** `name: value\r\n`, refused as node:http refuses it when the value would break the line. */
function headerLine(name: string, value: HeaderValue): string {
  if (typeof value === 'string' && (value.includes('\n') || value.includes('\r'))) {
    throw new TypeError(`Invalid character in header content ["${name}"]`);
  }
  return `${name}: ${value}\r\n`;
}

/** The lines of a data-headers object, made once per object (one per data version). */
const dataLines = new WeakMap<object, string>();
function dataHeaderLines(headers: Readonly<Record<string, string>>): string {
  let lines = dataLines.get(headers);
  if (lines === undefined) {
    lines = '';
    for (const name of Object.keys(headers)) lines += headerLine(name, headers[name]!);
    dataLines.set(headers, lines);
  }
  return lines;
}

/** What the rate-limit headers say. */
export interface RateLimitFigures {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** node:http's own response (answers of the fast path never linger: their requests have no body) */
function isNodeResponse(res: Responder): res is ServerResponse {
  return res instanceof ServerResponse;
}

/** the errors a pipeline ends with when the client closed the connection first */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE']);

function clientWentAway(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLIENT_GONE.has(code);
}
