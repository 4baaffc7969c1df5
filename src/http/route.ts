// What a route is: its method and path, its request and response schemas
// (which validate, and document it in OpenAPI), its cache policy, and a
// handler that returns the record. Routes know nothing of sockets or headers.
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type { Ip } from '../net/ip.js';

export interface RequestContext {
  clientIp: Ip;
  requestId: string;
  headers: IncomingHttpHeaders;
  /** the request body of routes that take one (`body` set), as UTF-8 text */
  bodyText?: string;
}

export interface CachePolicy {
  /** key prefix; also the endpoint label in logs and metrics */
  namespace: string;
  ttlSeconds: number;
  /** `private` when the answer depends on who asks (GET /ip) */
  visibility: 'public' | 'private';
}

export interface RouteInput<P, Q> {
  params: P;
  query: Q;
  ctx: RequestContext;
}

export interface RawBody {
  /** null: no body at all (e.g. 202 Accepted for a JSON-RPC notification) */
  body: string | null;
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
  /** error codes this route can answer, beyond the ones every route can (404/405/429/500) */
  errors: ErrorCode[];
  rateLimited: boolean;
  cache?: CachePolicy;
  /** the cache key for one input; required with `cache` */
  cacheKey?: (input: RouteInput<P, Q>) => string;
  /** `raw` routes answer a body of their own, outside the `{data}` envelope */
  raw?: boolean;
  /** a JSON request body is read (bounded, Content-Type checked) into ctx.bodyText */
  body?: boolean;
  /**
   * The answer is a function of the checked params and query alone (no data,
   * no clock, no caller): the app may answer the same URL again with it.
   */
  pure?: boolean;
  handle(input: RouteInput<P, Q>): D | Promise<D>;
}

// Routes are stored side by side whatever their parameter types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = Route<any, any, any>;

export function defineRoute<P, Q, D>(route: Route<P, Q, D>): AnyRoute {
  return route;
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

/** Data that is already JSON (built from memoised fragments on a hot path). */
export class RawJson {
  constructor(readonly json: string) {}
}
