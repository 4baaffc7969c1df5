// The error envelope and request ids, shared by the pipeline
// (src/http/exchange.ts writes the answers).

export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}

const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
let sequence = 0;
const prefix = Math.random().toString(36).slice(2, 10);

/** The client's X-Request-Id when it is sane (length, charset), a fresh unique one otherwise. */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === 'string' && REQUEST_ID.test(header)) return header;
  sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}-${sequence.toString(36)}`;
}
