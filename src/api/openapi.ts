// The OpenAPI 3.1 document, generated from the route table: the same zod
// schemas that validate parameters and type the records (JSON Schema 2020-12,
// which OpenAPI 3.1 uses as is).
import { z } from 'zod';
import { envelope, errorBodySchema } from './schemas.js';
import { ERROR_STATUS, type ErrorCode } from '../kit/errors.js';
import type { AnyRoute } from '../http/route.js';

type JsonObject = Record<string, unknown>;

const COMMON_ERRORS: ErrorCode[] = ['NOT_FOUND', 'METHOD_NOT_ALLOWED', 'INTERNAL_ERROR'];

class SchemaCollector {
  readonly components: Record<string, unknown> = {};

  toJson(schema: z.ZodType, io: 'input' | 'output'): JsonObject {
    const json = z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io,
      unrepresentable: 'any',
    }) as JsonObject;
    const defs = (json['$defs'] ?? {}) as Record<string, unknown>;
    delete json['$defs'];
    delete json['$schema'];
    for (const [id, def] of Object.entries(defs)) this.components[id] = this.rewrite(def);
    return this.rewrite(json) as JsonObject;
  }

  private rewrite(value: unknown): unknown {
    return JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));
  }
}

function parameters(
  collector: SchemaCollector,
  schema: z.ZodType | undefined,
  where: 'path' | 'query',
): JsonObject[] {
  if (!schema) return [];
  const json = collector.toJson(schema, 'input');
  const properties = (json['properties'] ?? {}) as Record<string, JsonObject>;
  const required = new Set((json['required'] ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = property;
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function errorResponses(codes: readonly ErrorCode[]): Record<string, JsonObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes, ...COMMON_ERRORS]) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...new Set([...(byStatus.get(status) ?? []), code])]);
  }
  const out: Record<string, JsonObject> = {};
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    out[String(status)] = {
      description: `Error codes: ${list.join(', ')}`,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return out;
}

/** What guards this instance's routes (docs/security.md). */
export interface OpenApiAuth {
  apiKeys: 'off' | 'optional' | 'required';
  metricsToken: boolean;
}

const KEY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key of this instance (API_KEYS_FILE) as Authorization: Bearer <key>. Counted against the key’s own limit; a key that is not valid is refused (401).',
  },
  apiKeyQuery: {
    type: 'apiKey',
    in: 'query',
    name: 'key',
    description:
      'The same API key as ?key=<key> (the Authorization header wins when both are sent).',
  },
};
const METRICS_SCHEME = {
  metricsToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator’s METRICS_TOKEN, for GET /metrics.',
  },
};

/** An operation's security requirements (OpenAPI 3.1 §4.8.30), or undefined when it has none. */
function securityOf(route: AnyRoute, auth: OpenApiAuth): JsonObject[] | undefined {
  const keys = [{ apiKey: [] }, { apiKeyQuery: [] }];
  if (route.operator === true) {
    if (auth.metricsToken) return [{ metricsToken: [] }];
    return auth.apiKeys === 'required' ? keys : undefined;
  }
  if (!route.rateLimited || auth.apiKeys === 'off') return undefined;
  // {} first: the key is optional, the request is then counted by address
  return auth.apiKeys === 'required' ? keys : [{}, ...keys];
}

const X_DATA_VERSION = {
  description:
    'The versions of the data the answer is made from, e.g. `geoip=2.3.2026060513; asn=2.3.2026061719; feeds=0c1d2e3f4a5b; overrides=none` (overrides: the first 12 hex digits of the SHA-256 of OVERRIDES_FILE, or none).',
  schema: { type: 'string' },
};

const ETAG = {
  description:
    "Derived from X-Data-Version (and, for GET /ip, the caller's address): it changes when the data does. Send it back in If-None-Match to revalidate.",
  schema: { type: 'string' },
};

const IF_NONE_MATCH = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'An ETag of an earlier answer (or a list, or *): while the data is the same, the answer is 304 with no body.',
  schema: { type: 'string' },
};

const NOT_MODIFIED = {
  '304': {
    description: 'Not Modified: the If-None-Match tag is the current one; no body.',
    headers: { 'X-Data-Version': X_DATA_VERSION, ETag: ETAG },
  },
};

function versionHeaders(versioned: { etag: boolean }): JsonObject {
  return versioned.etag
    ? { 'X-Data-Version': X_DATA_VERSION, ETag: ETAG }
    : { 'X-Data-Version': X_DATA_VERSION };
}

export function buildOpenApi(
  routes: readonly AnyRoute[],
  described: { title: string; version: string; description: string; auth?: OpenApiAuth },
): JsonObject {
  const { auth = { apiKeys: 'off', metricsToken: false }, ...info } = described;
  const collector = new SchemaCollector();
  collector.toJson(errorBodySchema, 'output');
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const security = securityOf(route, auth);
    const codes: ErrorCode[] = route.rateLimited
      ? [...route.errors, 'RATE_LIMITED']
      : [...route.errors];
    if (security !== undefined) codes.push('UNAUTHORIZED');
    // raw routes and the compatible formats (a `failure` of their own) answer outside the envelope
    const unwrapped = route.raw === true || route.failure !== undefined;
    const body = unwrapped ? route.response : envelope(route.response);
    const cache = route.cache
      ? ` Cached for ${route.cache.ttlSeconds} s (Cache-Control: ${route.cache.visibility}; X-Cache: HIT or MISS).`
      : '';
    const limit = route.rateLimited ? ' Counts against the rate limit.' : ' Not rate limited.';
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      description: `${route.description ?? route.summary}${cache}${limit}`,
      tags: route.tags,
      ...(security === undefined ? {} : { security }),
      parameters: [
        ...parameters(collector, route.params, 'path'),
        ...parameters(collector, route.query, 'query'),
        ...(route.versioned?.etag === true ? [IF_NONE_MATCH] : []),
      ],
      ...(route.requestBody === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              description: route.requestBody.description,
              content: {
                'application/json': {
                  schema: collector.toJson(route.requestBody.schema, 'input'),
                  example: route.requestBody.example,
                },
              },
            },
          }),
      responses: {
        '200': {
          description: 'Success',
          ...(route.versioned === undefined ? {} : { headers: versionHeaders(route.versioned) }),
          content:
            route.mediaTypes === undefined
              ? {
                  'application/json': {
                    schema: collector.toJson(body, 'output'),
                    ...(route.responseExample === undefined
                      ? {}
                      : {
                          example: unwrapped
                            ? route.responseExample
                            : { data: route.responseExample },
                        }),
                  },
                }
              : Object.fromEntries(
                  Object.entries(route.mediaTypes).map(([type, schema]) => [
                    type,
                    { schema: collector.toJson(schema, 'output') },
                  ]),
                ),
        },
        ...(route.versioned?.etag === true ? NOT_MODIFIED : {}),
        ...errorResponses(codes),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: { ...info, license: { name: 'MIT', identifier: 'MIT' } },
    paths,
    components: {
      schemas: collector.components,
      ...(auth.apiKeys === 'off' && !auth.metricsToken
        ? {}
        : {
            securitySchemes: {
              ...(auth.apiKeys === 'off' ? {} : KEY_SCHEMES),
              ...(auth.metricsToken ? METRICS_SCHEME : {}),
            },
          }),
    },
  };
}
