// buildApp(config, deps) assembles the HTTP service without listening: one
// request pipeline for every route, over one Exchange per request —
//   route match → API key → rate limit → body → validation → answer → access log.
// Answers come three ways: from in-memory data (GeoIP, VPN, CIDR: computed
// per request, cheaper than any cache), through the lookup cache (an
// upstream is asked: whois, DNS, reverse DNS, blacklist; X-Cache), or raw
// (MCP, metrics, OpenAPI). Only src/main.ts touches the process.
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { CacheResult, LookupCache } from './cache/lookup-cache.js';
import type { Config } from './config.js';
import { AppError, toErrorResponse } from './kit/errors.js';
import type { AccessLog } from './http/access-log.js';
import { refuse, type AccessControl } from './http/access-control.js';
import { redactKey } from './http/credentials.js';
import { clientIp } from './http/client-ip.js';
import { answerConnect } from './http/connect.js';
import { refuseAfterAnswers } from './http/client-error.js';
import { clientErrorAnswer, configureServer, serverOptions } from './http/server-options.js';
import { Exchange } from './http/exchange.js';
import type { RequestHead, Responder } from './http/message.js';
import { FastPathServer } from './http/fast-path.js';
import { decide, rateLimitKey } from './http/rate-limit.js';
import { readJsonBody } from './http/request-body.js';
import { errorBody } from './http/respond.js';
import { matchesEtag } from './lookups/provenance.js';
import {
  Expiring,
  JsonBody,
  serialise,
  type AnyRoute,
  type CachePolicy,
  type RawBody,
  type RequestContext,
  type RouteInput,
  streamedPaths,
} from './http/route.js';
import { Router, type Match } from './http/router.js';
import { checkInput } from './http/validate.js';
import { after, type MaybePromise } from './kit/maybe-promise.js';
import type { Metrics } from './observe/metrics.js';
import type { Ip } from './net/ip.js';
import type { RateLimitHit, RateLimitStore } from './ratelimit/rate-limit-store.js';

export interface AppDeps {
  log: Logger;
  accessLog: AccessLog;
  metrics?: Metrics;
  now: () => number;
  cache: LookupCache;
  rateLimitStore: RateLimitStore;
  routes: readonly AnyRoute[];
  /** API keys and METRICS_TOKEN; absent: every caller anonymous, /metrics open */
  access?: AccessControl;
}

/** Raw params and query of a route, as an HTTP request or an MCP tool gives them. */
export interface RawInput {
  params?: Record<string, string>;
  query?: Record<string, string | string[]>;
  /** the JSON request body of a POST route (POST /batch) */
  body?: string;
}

export interface App {
  server: Server;
  router: Router;
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * Runs a GET route (or POST /batch) from inside the service (the MCP tools) by its path
   * pattern: the same validation, lookups, cache and errors as over HTTP,
   * without the rate limit (the request carrying the call was counted), and
   * answers the record itself.
   */
  call(path: string, raw: RawInput, ctx: RequestContext): Promise<unknown>;
}

/** What a route answered, before it is written. */
type Answer =
  { kind: 'cached'; policy: CachePolicy; result: CacheResult } | { kind: 'raw'; raw: RawBody };

const UNKNOWN_CLIENT: Ip = { version: 4, text: '0.0.0.0', value: 0 };
const NO_QUERY: Record<string, string> = Object.freeze({});

export function buildApp(config: Readonly<Config>, deps: AppDeps): App {
  const router = new Router(deps.routes);
  // the lookups by path: the GET routes, and POST routes with a JSON body that answer data
  const byPath = new Map(
    deps.routes.filter((r) => r.method === 'GET' || (r.body && !r.raw)).map((r) => [r.path, r]),
  );
  const windowMs = config.rateLimitWindowSeconds * 1000;
  const { log, now, cache, metrics, access } = deps;
  // parsed socket peers, per connection (keep-alive clients send many requests)
  const peers = new WeakMap<Socket, Ip>();
  /**
   * One request, start to end. A request whose steps are all synchronous
   * (in-memory rate limit, in-memory data) is answered before this returns;
   * an async step (Redis, DNS, a request body) turns the rest into a promise.
   */
  function serve(req: RequestHead, res: Responder): MaybePromise<void> {
    const x = new Exchange(req, res, callerIp(req));
    let outcome: MaybePromise<number>;
    try {
      outcome = dispatch(x);
    } catch (error) {
      outcome = fail(x, error);
    }
    if (outcome instanceof Promise) {
      return outcome.catch((error: unknown) => fail(x, error)).then((status) => finish(x, status));
    }
    finish(x, outcome);
  }

  function finish(x: Exchange, status: number): void {
    const seconds = (performance.now() - x.started) / 1000;
    metrics?.observeRequest(x.route?.path ?? 'unmatched', x.method, status, seconds);
    deps.accessLog.record({
      reqId: x.requestId,
      method: x.method,
      // a key never reaches the log: its value is hidden, its name logged
      url: clip(x.query === '' ? x.url : redactKey(x.url)),
      status,
      ip: x.clientIp.text,
      ms: Math.round(seconds * 100_000) / 100,
      key: x.apiKey === null ? null : x.apiKey.name,
    });
  }

  function fail(x: Exchange, error: unknown): number {
    const failure = toErrorResponse(error);
    if (failure.unexpected) log.error({ err: error, reqId: x.requestId }, 'unexpected error');
    x.cacheControl = 'no-store';
    x.xCache = null;
    // an error names no data version
    x.dataHeaders = null;
    // a compatible route answers in its own format (src/api/compat/)
    const foreign = x.route?.failure?.(error, failure);
    if (foreign !== undefined) return x.send(foreign.status, foreign.body);
    return x.send(failure.status, errorBody(failure.code, failure.message));
  }

  function dispatch(x: Exchange): MaybePromise<number> {
    if (x.method === 'OPTIONS') return preflight(x);
    const match = router.match(x.method, x.path);
    if (match.kind === 'route') {
      x.route = match.route;
      if (!match.route.rateLimited) {
        if (match.route.operator === true && access !== undefined) access.guardOperator(x);
        return run(x, match);
      }
    }
    // a valid API key is counted in its own bucket, against its own limit
    const denial = access === undefined ? null : access.identify(x);
    const key = x.apiKey;
    const limit = key === null ? config.rateLimitMax : key.limit;
    const hit = deps.rateLimitStore.hit(
      key === null ? rateLimitKey(x.clientIp) : key.bucket,
      limit,
      windowMs,
    );
    return hit instanceof Promise
      ? hit.then((counted) => admitted(x, match, counted, limit, denial))
      : admitted(x, match, hit, limit, denial);
  }

  /**
   * The rate limit's decision on a request counted against `limit`, then the API key's
   * refusal if any (401 comes after 429: guessing keys is limited), then the
   * route (or why not).
   */
  function admitted(
    x: Exchange,
    match: Match,
    hit: RateLimitHit,
    limit: number,
    denial: string | null,
  ): MaybePromise<number> {
    const decision = decide(hit, limit, now());
    x.rateLimit = decision;
    if (!decision.allowed) {
      x.setHeader('retry-after', String(decision.resetSeconds));
      metrics?.rateLimited();
      throw new AppError(
        'RATE_LIMITED',
        `Too many requests: the limit is ${limit} per ${config.rateLimitWindowSeconds} s ${x.apiKey === null ? 'per client' : 'for this API key'}. Retry after ${decision.resetSeconds} s.`,
      );
    }
    if (denial !== null) refuse(x, denial);
    if (match.kind === 'not-found') {
      throw new AppError(
        'NOT_FOUND',
        `No route for ${x.method} ${clip(x.path)}; see GET /openapi.json.`,
      );
    }
    if (match.kind === 'method-not-allowed') {
      x.setHeader('allow', match.allow.join(', '));
      throw new AppError(
        'METHOD_NOT_ALLOWED',
        `${x.method} is not allowed on ${clip(x.path)}; allowed: ${match.allow.join(', ')}.`,
      );
    }
    return run(x, match);
  }

  function run(x: Exchange, match: Match & { kind: 'route' }): MaybePromise<number> {
    return match.route.body
      ? readJsonBody(x).then((text) => respond(x, match, text))
      : respond(x, match, undefined);
  }

  /** Validation, then the answer: computed from memory (no closure on this path), cached or raw. */
  function respond(
    x: Exchange,
    match: Match & { kind: 'route' },
    bodyText: string | undefined,
  ): MaybePromise<number> {
    const { route } = match;
    const ctx: RequestContext = {
      clientIp: x.clientIp,
      requestId: x.requestId,
      headers: x.req.headers,
    };
    if (bodyText !== undefined) ctx.bodyText = bodyText;
    if (x.queryKey !== null) ctx.queryKey = x.queryKey;
    // a route without a query schema reads none (and `?key=` is not its business)
    const query = route.query === undefined ? NO_QUERY : queryObject(x.query);
    const input = checkInput(route, { params: match.rawParams, query }, ctx);
    if (route.raw || route.cache !== undefined) {
      return after(answer(route, input), (a) => write(x, route, a, ctx));
    }
    // an answer from in-memory data: its headers (attribution, data version,
    // ETag) are decided before it is made, so a revalidation costs no lookup
    const extra = route.headers?.(ctx) ?? null;
    const etag = extra?.['etag'];
    if (etag !== undefined && matchesEtag(header(x.req.headers['if-none-match']), etag)) {
      x.dataHeaders = extra;
      x.cacheControl = route.cacheControl;
      return x.sendEmpty(304);
    }
    const data: unknown = route.handle(input);
    return data instanceof Promise
      ? data.then((ready) => writeData(x, route, ready, extra))
      : writeData(x, route, data, extra);
  }

  /** The route's own headers of a successful answer through the cache or raw. */
  function addRouteHeaders(x: Exchange, route: AnyRoute, ctx: RequestContext): void {
    x.dataHeaders = route.headers?.(ctx) ?? null;
  }

  /**
   * An answer from in-memory data: the route's headers (decided by respond,
   * set only on success: an error names no data version), its lifetime, no X-Cache.
   */
  function writeData(
    x: Exchange,
    route: AnyRoute,
    data: unknown,
    extra: Readonly<Record<string, string>> | null,
  ): number {
    x.dataHeaders = extra;
    x.cacheControl = route.cacheControl;
    if (!(data instanceof JsonBody)) return x.send(200, `{"data":${serialise(data)}}`);
    if (data.headers !== null) x.setHeaders(data.headers);
    return x.send(200, data.body, undefined, data.bytes, data.encoding);
  }

  /** The answer of a raw route, or of one through the lookup cache. */
  function answer(route: AnyRoute, input: RouteInput<unknown, unknown>): MaybePromise<Answer> {
    if (route.raw) {
      return after(route.handle(input), (raw): Answer => ({ kind: 'raw', raw: raw as RawBody }));
    }
    const policy = route.cache!;
    return after(cached(route, policy, input), (result): Answer => ({
      kind: 'cached',
      policy,
      result,
    }));
  }

  function cached(
    route: AnyRoute,
    policy: CachePolicy,
    input: RouteInput<unknown, unknown>,
  ): MaybePromise<CacheResult> {
    const key = `${policy.namespace}:${route.cacheKey!(input)}`;
    const compute = () =>
      after(route.handle(input), (result: unknown) => {
        const data: unknown = result instanceof Expiring ? result.data : result;
        const ttlSeconds = Math.max(
          0,
          Math.min(policy.ttlSeconds, result instanceof Expiring ? result.ttlSeconds : Infinity),
        );
        const value = serialise(data);
        return { value, ttlMs: ttlSeconds * 1000, envelope: { value, data } };
      });
    return after(cache.lookup(key, compute), (result) => {
      metrics?.cache(policy.namespace, result.hit);
      return result;
    });
  }

  function write(x: Exchange, route: AnyRoute, a: Answer, ctx: RequestContext): number {
    if (a.kind === 'raw') {
      x.cacheControl = 'no-store';
      if (a.raw.headers !== undefined) x.setHeaders(a.raw.headers);
      const status = a.raw.status ?? 200;
      if (a.raw.file !== undefined) return x.sendFile(status, a.raw.file, a.raw.contentType);
      if (a.raw.stream !== undefined) {
        return x.sendStream(status, a.raw.stream, a.raw.contentType, (error) =>
          log.error({ err: error, reqId: x.requestId }, 'streamed answer failed partway'),
        );
      }
      return a.raw.body === null
        ? x.sendEmpty(status)
        : x.send(status, a.raw.body, a.raw.contentType);
    }
    addRouteHeaders(x, route, ctx);
    const { policy, result } = a;
    x.cacheControl = `${policy.visibility}, max-age=${result.maxAgeSeconds}`;
    x.xCache = result.hit ? 'HIT' : 'MISS';
    const entry = result.entry;
    // the body of a cached value is built once per entry, on its first answer
    const body =
      entry === undefined ? `{"data":${result.value}}` : (entry.body ??= `{"data":${entry.value}}`);
    return x.send(200, body);
  }

  function preflight(x: Exchange): number {
    const known =
      router.match('GET', x.path).kind !== 'not-found' ||
      router.match('POST', x.path).kind !== 'not-found';
    if (!known) {
      x.cacheControl = 'no-store';
      return x.send(404, errorBody('NOT_FOUND', 'No such route.'));
    }
    x.setHeaders({
      'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
      'access-control-allow-headers':
        'Authorization, Content-Type, Accept, X-Request-Id, Mcp-Session-Id, Mcp-Protocol-Version',
      'access-control-max-age': '86400',
    });
    return x.sendEmpty(204);
  }

  /** The caller's address; the socket peer is parsed once per connection. */
  function callerIp(req: RequestHead): Ip {
    const forwarded = req.headers['x-forwarded-for'];
    const socket = req.socket;
    if (forwarded === undefined || config.trustProxy.kind === 'none') {
      let peer = peers.get(socket);
      if (peer === undefined) {
        peer = clientIp(socket.remoteAddress, undefined, config.trustProxy) ?? UNKNOWN_CLIENT;
        peers.set(socket, peer);
      }
      return peer;
    }
    return clientIp(socket.remoteAddress, forwarded, config.trustProxy) ?? UNKNOWN_CLIENT;
  }

  async function call(path: string, raw: RawInput, ctx: RequestContext): Promise<unknown> {
    const route = byPath.get(path);
    // a raw route answers in-process callers only through its record
    if (route === undefined || (route.raw && route.record === undefined))
      throw new AppError('NOT_FOUND', `No lookup at ${clip(path)}.`);
    const input = checkInput(
      route,
      raw,
      raw.body === undefined ? ctx : { ...ctx, bodyText: raw.body },
    );
    if (route.cache === undefined) {
      return route.record !== undefined ? route.record(input) : route.handle(input);
    }
    const result = await cached(route, route.cache, input);
    // a miss (or a hit of this process's memory) holds the record; a value
    // from a shared store (Redis) is text and is read back
    const data = result.entry?.data;
    return data !== undefined ? data : (JSON.parse(result.value) as unknown);
  }

  const responseFailed = (error: unknown): void => {
    // serve() answers every error itself; reaching here means the socket broke mid-write
    log.warn({ err: error }, 'response failed');
  };
  const serveOne = (req: RequestHead, res: Responder): void => {
    try {
      const done = serve(req, res);
      if (done instanceof Promise) done.catch(responseFailed);
    } catch (error) {
      responseFailed(error);
    }
  };
  const server = new FastPathServer(
    serverOptions(config),
    serveOne,
    config.fastPath,
    streamedPaths(deps.routes),
  );
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> =>
    serve(req, res);
  configureServer(server);
  metrics?.fastPath(() => server.stats);
  if (config.maxConnections > 0) server.maxConnections = config.maxConnections;
  server.on('connect', (req: IncomingMessage, socket: Socket) =>
    answerConnect(req, socket, serveOne),
  );
  server.on('clientError', (error: Error & { code?: string }, socket: Socket) => {
    const refusal = clientErrorAnswer(error.code, config);
    const body = errorBody(refusal.code, refusal.message);
    // after the answers under way, and never a second answer to one request
    refuseAfterAnswers(
      socket,
      `HTTP/1.1 ${refusal.status}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  return { server, router, handle, call };
}

/**
 * Repeated keys become arrays, so a schema can refuse `?range=a&range=b`
 * instead of guessing. A query with nothing to decode is split by hand;
 * escapes and "+" go through URLSearchParams (WHATWG's decoding).
 */
function queryObject(queryString: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (queryString === '') return out;
  const pairs: Iterable<[string, string]> =
    queryString.includes('%') || queryString.includes('+')
      ? new URLSearchParams(queryString)
      : plainPairs(queryString);
  for (const [key, value] of pairs) {
    const existing = out[key];
    if (existing === undefined) out[key] = value;
    else out[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function plainPairs(queryString: string): [string, string][] {
  const pairs: [string, string][] = [];
  for (const part of queryString.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    pairs.push(eq === -1 ? [part, ''] : [part.slice(0, eq), part.slice(eq + 1)]);
  }
  return pairs;
}

/** A request header's one value (node:http joins repeated If-None-Match lines with ", "). */
function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
