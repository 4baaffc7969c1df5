// Request parameter schemas: they validate requests (src/http/validate.ts)
// and describe them in the OpenAPI document (src/http/openapi.ts). A failed
// check carries the error code (docs/api.md, "Errors") in the issue's params.
import { z } from 'zod';
import { AppError, type ErrorCode } from '../kit/errors.js';
import { withPlainParser } from '../http/validate.js';
import { parseIp, type Ip } from '../net/ip.js';

export function issue(ctx: z.RefinementCtx, appCode: ErrorCode, message: string): never {
  ctx.addIssue({ code: 'custom', message, params: { appCode } });
  return z.NEVER;
}

/** User input echoed in a message is bounded and printable. */
export function quote(text: string): string {
  const clipped = text.length > 64 ? `${text.slice(0, 61)}...` : text;
  return JSON.stringify(clipped);
}

/**
 * The address a text names, or null: what every surface (the API, the
 * compatible formats, the library) accepts as an address to look up. A zone
 * id (fe80::1%eth0) or an undecodable escape is not one.
 */
export function addressOf(text: string): Ip | null {
  return text.includes('%') ? null : parseIp(text);
}

/** The address of a path parameter, or INVALID_IP: the check behind `ipParam`, callable directly. */
export function checkIp(text: string): Ip {
  const ip = addressOf(text);
  if (ip === null) {
    throw new AppError('INVALID_IP', `${quote(text)} is not an IPv4 or IPv6 address.`);
  }
  return ip;
}

export const ipParam = z
  .string()
  .transform((text, ctx) => fromParser(checkIp)(text, ctx))
  .meta({
    description:
      'An IPv4 address in dotted-quad form without leading zeros, or an IPv6 address without a zone. An IPv4-mapped IPv6 address (::ffff:1.2.3.4) is treated as the IPv4 address.',
    examples: ['8.8.8.8', '2606:4700:4700::1111'],
  });

// (zod's object drops unknown keys: the twin's answer is the same whatever else is there)
export const ipParams = withPlainParser(z.object({ ip: ipParam }), (input) =>
  typeof input['ip'] === 'string' ? { ip: checkIp(input['ip']) } : undefined,
);

/** Runs a parser that throws AppError inside a schema, keeping its code and message. */
export function fromParser<T>(parse: (text: string) => T) {
  return (text: string, ctx: z.RefinementCtx): T => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof AppError) return issue(ctx, error.code, error.message);
      throw error;
    }
  };
}
