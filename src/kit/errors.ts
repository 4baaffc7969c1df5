// The one error catalog (docs/api.md, "Errors"): every failure the API reports is an
// AppError with one of these codes, and toErrorResponse() is the only place
// that turns anything thrown into the `{error:{code,message}}` envelope.

export const ERROR_STATUS = {
  INVALID_IP: 400,
  INVALID_DOMAIN: 400,
  INVALID_TYPE: 400,
  INVALID_RANGE: 400,
  IPV4_ONLY: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  NXDOMAIN: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
  }
}

export interface ErrorResponse {
  status: number;
  code: ErrorCode;
  message: string;
  /** true when the error is a bug or an unexpected failure that must be logged in full */
  unexpected: boolean;
}

/** Anything thrown → what the client sees. Unknown errors never leak their message. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof AppError) {
    return { status: error.status, code: error.code, message: error.message, unexpected: false };
  }
  return {
    status: 500,
    code: 'INTERNAL_ERROR',
    message: 'An internal error occurred; it has been logged.',
    unexpected: true,
  };
}
