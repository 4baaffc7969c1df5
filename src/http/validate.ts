// Runs a route's parameter schema and turns the first failure into the
// CONTRACT.md error it names.
import type { z } from 'zod';
import { AppError, ERROR_STATUS, type ErrorCode } from '../errors.js';

export function validate<T>(schema: z.ZodType<T>, input: unknown, fallback: ErrorCode): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const named = (first as { params?: { appCode?: unknown } } | undefined)?.params?.appCode;
  const code = typeof named === 'string' && named in ERROR_STATUS ? (named as ErrorCode) : fallback;
  throw new AppError(code, first?.message ?? 'Invalid request.');
}
