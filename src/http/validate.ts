// Runs a route's parameter schema and turns the first failure into the
// CONTRACT.md error it names.
import type { z } from 'zod';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';
import type { AnyHandler, RequestContext, RouteInput } from './route.js';

export function validate<T>(schema: z.ZodType<T>, input: unknown, fallback: ErrorCode): T {
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
