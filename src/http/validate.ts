// Runs a route's parameter schema and turns the first failure into the
// error of docs/api.md ("Errors") it names.
import type { z } from 'zod';
import { AppError, ERROR_STATUS, type ErrorCode } from '../kit/errors.js';
import type { AnyHandler, RequestContext, RouteInput } from './route.js';

/**
 * Plain functions that answer for a schema (withPlainParser): what
 * schema.safeParse answers, or the AppError validate() would throw, for the
 * inputs they accept; `undefined` for others, which zod then checks.
 */
const plainParsers = new WeakMap<z.ZodType, (input: Record<string, unknown>) => unknown>();

/**
 * Gives a schema a plain twin for the hot path. Under load, zod's parse of
 * `/ip/:ip`'s params allocated objects that V8 came to allocate straight into
 * the old generation (allocation-site pretenuring): garbage that only a full
 * collection frees, and each young collection several times slower. The
 * schema stays the contract (OpenAPI, MCP) and the checker of other inputs;
 * tests hold the twin to its answers.
 */
export function withPlainParser<S extends z.ZodType>(
  schema: S,
  parse: (input: Record<string, unknown>) => z.output<S> | undefined,
): S {
  plainParsers.set(schema, parse);
  return schema;
}

export function validate<T>(schema: z.ZodType<T>, input: unknown, fallback: ErrorCode): T {
  const plain = plainParsers.get(schema);
  if (plain !== undefined && typeof input === 'object' && input !== null) {
    const parsed = plain(input as Record<string, unknown>);
    if (parsed !== undefined) return parsed as T;
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const named = (first as { params?: { appCode?: unknown } } | undefined)?.params?.appCode;
  const code = typeof named === 'string' && named in ERROR_STATUS ? (named as ErrorCode) : fallback;
  throw new AppError(code, first?.message ?? 'Invalid request.');
}

/**
 * A handler's input from raw params and query (an HTTP request's, an MCP
 * tool's arguments, the CLI's): each checked by the handler's schema, the
 * first failure thrown as the handler's first error code.
 */
export function checkInput(
  handler: Pick<AnyHandler, 'errors' | 'params' | 'query'>,
  raw: { params?: Record<string, string>; query?: Record<string, string | string[]> },
  ctx: RequestContext,
): RouteInput<unknown, unknown> {
  const errorCode = handler.errors[0];
  return {
    params: handler.params
      ? validate(handler.params, raw.params ?? {}, errorCode ?? 'NOT_FOUND')
      : (raw.params ?? {}),
    query: handler.query
      ? validate(handler.query, raw.query ?? {}, errorCode ?? 'BAD_REQUEST')
      : {},
    ctx,
  };
}
