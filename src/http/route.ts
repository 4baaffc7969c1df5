// What a route is: its method and path, its request and response schemas
// (which validate, and document it in OpenAPI), its cache policy, and a
// handler that returns the record. Routes know nothing of sockets or headers.
import type { FileHandle } from 'node:fs/promises';
import { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { ErrorCode, ErrorResponse } from '../kit/errors.js';
import type { Ip } from '../net/ip.js';

export interface RequestContext {
  clientIp: Ip;
  requestId: string;
  headers: IncomingHttpHeaders;
  /** the request body of routes that take one (`body` set), as UTF-8 text */
  bodyText?: string;
  /** the valid API key the request carried as ?key= (the page's links carry it on) */
  queryKey?: string;
}

export interface CachePolicy {
  /** key prefix; also the endpoint label in logs and metrics */
  namespace: string;
  ttlSeconds: number;
  /** `private` when the answer depends on who asks (GET /ip) */
  visibility: 'public' | 'private';
}

/**
 * How long clients may keep an answer computed from in-memory data (GeoIP,
 * VPN detection): no server-side cache sits in front (a table lookup is
 * cheaper than a cache hit), so no X-Cache either.
 */
export interface Lifetime {
  ttlSeconds: number;
  visibility: 'public' | 'private';
}

export interface RouteInput<P, Q> {
  params: P;
  query: Q;
  ctx: RequestContext;
}

export interface RawBody {
  /** null: no body at all (e.g. 202 Accepted for a JSON-RPC notification); bytes: a precompressed asset */
  body: string | Buffer | null;
  /** a file streamed as the body (body null): its open handle, closed once sent, and its size */
  file?: { handle: FileHandle; bytes: number };
  /** a body made as it is sent (body null): its chunks, read as the client takes them */
  stream?: AsyncIterable<string>;
  contentType: string;
  status?: number;
  headers?: Record<string, string>;
}

export interface Route<P = unknown, Q = unknown, D = unknown> {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  /** the schema of `data` (or of the whole body when `raw`) */
  response: z.ZodType;
  /** a raw answer's media types and the schema of each (OpenAPI; default: JSON, `response`) */
  mediaTypes?: Readonly<Record<string, z.ZodType>>;
  /** error codes this route can answer, beyond the ones every route can (404/405/429/500) */
  errors: ErrorCode[];
  rateLimited: boolean;
  /** the operator's endpoint (/metrics): METRICS_TOKEN guards it (src/http/access-control.ts) */
  operator?: boolean;
  /**
   * answers streamed from a file (GET /export/…): node:http's, never the
   * fast path's, which writes an answer in one piece (streamedPaths below)
   */
  streamed?: boolean;
  /**
   * Cache-Control of answers from in-memory data (no server cache): from the
   * table's lifetime, built once in route(); 'no-store' without one
   */
  cacheControl: string;
  /** answers that ask an upstream: kept in the lookup cache (X-Cache) */
  cache?: CachePolicy;
  /** the cache key for one input; required with `cache` */
  cacheKey?: (input: RouteInput<P, Q>) => string;
  /** `raw` routes answer a body of their own, outside the `{data}` envelope */
  raw?: boolean;
  /** a JSON request body is read (bounded, Content-Type checked) into ctx.bodyText */
  body?: boolean;
  /** the request body's schema and an example, for the OpenAPI document */
  requestBody?: { schema: z.ZodType; description: string; example: unknown };
  /** an example of `data`, for the OpenAPI document */
  responseExample?: unknown;
  /**
   * headers of every successful answer (the data's attribution and version),
   * read per request; an `etag` among them makes a matching If-None-Match a 304
   */
  headers?: (ctx: RequestContext) => Readonly<Record<string, string>> | null;
  /**
   * the answer names its data's versions (X-Data-Version); `etag`: with an
   * ETag too, and If-None-Match → 304 (documented in OpenAPI from this)
   */
  versioned?: { etag: boolean };
  /** the HTTP answer: the record, or its serialised form (RawJson, JsonBody) */
  handle(input: RouteInput<P, Q>): D | Promise<D>;
  /**
   * A foreign format's own error answers (the compatible surfaces: ipinfo,
   * ip-api, MaxMind GeoIP2): what any failure on this route is written as,
   * instead of the `{error:{code,message}}` envelope.
   */
  failure?(error: unknown, failure: ErrorResponse): { status: number; body: string };
  /**
   * The password of `Authorization: Basic` is an API key here too (MaxMind's
   * clients send their licence key so).
   */
  basicAuth?: boolean;
  /**
   * The record itself, for callers inside the process (MCP tools), when
   * `handle` answers a serialised form; defaults to `handle`.
   */
  record?(input: RouteInput<P, Q>): unknown;
}

// Routes are stored side by side whatever their parameter types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = Route<any, any, any>;

/** What answers a route, apart from where it sits in the route table (src/routes/route-table.ts). */
export type Handler<P = unknown, Q = unknown, D = unknown> = Omit<
  Route<P, Q, D>,
  'method' | 'path' | 'rateLimited' | 'operator' | 'cacheControl' | 'cache'
>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyHandler = Handler<any, any, any>;

export function defineHandler<P, Q, D>(handler: Handler<P, Q, D>): AnyHandler {
  return handler;
}

export interface Placement {
  /** counted against the client's rate limit (and asks for an API key where keys are required) */
  limited: boolean;
  /** the operator's endpoint: METRICS_TOKEN, not API keys */
  operator?: boolean;
  lifetime?: Lifetime;
  cache?: CachePolicy;
}

/** A handler at its method and path, with the table's rate-limit and caching decisions. */
export function route(
  method: Route['method'],
  path: string,
  handler: AnyHandler,
  placement: Placement,
): AnyRoute {
  if ((placement.cache === undefined) !== (handler.cacheKey === undefined)) {
    throw new Error(`${method} ${path}: a cache policy and a cache key go together`);
  }
  return {
    ...handler,
    method,
    path,
    rateLimited: placement.limited,
    ...(placement.operator === true ? { operator: true } : {}),
    cacheControl:
      placement.lifetime === undefined
        ? 'no-store'
        : `${placement.lifetime.visibility}, max-age=${placement.lifetime.ttlSeconds}`,
    ...(placement.cache === undefined ? {} : { cache: placement.cache }),
  };
}

/**
 * A handler's answer that should live shorter than the route's cache policy:
 * DNS records no longer than their own TTL, partial failures briefly.
 */
export class Expiring<T> {
  constructor(
    readonly data: T,
    readonly ttlSeconds: number,
  ) {}
}

/** Data that is already JSON. */
export class RawJson {
  constructor(readonly json: string) {}
}

/** A handler's data as JSON text: RawJson as it is, anything else stringified. */
export function serialise(data: unknown): string {
  return data instanceof RawJson ? data.json : JSON.stringify(data);
}

/** The whole response body, `{"data":…}`, assembled by the lookup (the GeoIP and VPN hot paths). */
export class JsonBody {
  constructor(
    /** the whole response body, `{"data":…}`: a string, or its UTF-8 bytes */
    readonly body: string | Buffer,
    /** its UTF-8 length, when the maker knows it (saves measuring it) */
    readonly bytes?: number,
    /** 'latin1': `body` is a string of UTF-8 bytes, one char a byte (written as they are) */
    readonly encoding: 'utf8' | 'latin1' = 'utf8',
    /** this answer's own headers beyond the route's (where a GeoIP location came from) */
    readonly headers: Readonly<Record<string, string>> | null = null,
  ) {}
}

/**
 * Where the streamed routes' paths begin (up to their first parameter): the
 * fast path leaves a request whose target starts so to node:http. A prefix
 * can take in more than the route (a path it does not serve): node:http
 * answers that as well, only not as fast.
 */
export function streamedPaths(routes: readonly AnyRoute[]): string[] {
  return routes
    .filter((r) => r.streamed === true)
    .map((r) => {
      const parameter = r.path.indexOf('/:');
      return parameter === -1 ? r.path : r.path.slice(0, parameter + 1);
    });
}
