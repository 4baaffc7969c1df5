// Who may ask (docs/security.md): the API keys of API_KEYS_FILE on every
// counted route, and METRICS_TOKEN on /metrics. A request with a valid key is
// counted in its key's bucket against the key's limit; one without a key is
// counted by its address as always; a wrong key is refused (401) in either
// mode, after being counted by its address, so guessing keys is rate limited
// like anything else. Routes the table marks free (/healthz, /readyz, the
// page's assets) never look at credentials.
import { Buffer } from 'node:buffer';
import { hash, timingSafeEqual } from 'node:crypto';
import type { ApiKeyTable } from '../auth/api-keys.js';
import { AppError } from '../kit/errors.js';
import { basicPassword, bearerToken, queryKey } from './credentials.js';
import type { Exchange } from './exchange.js';

export interface AccessOptions {
  /** the keys in use, read per request (a reload swaps them); null: no API_KEYS_FILE */
  keys: (() => ApiKeyTable) | null;
  /** API_KEYS_REQUIRED */
  required: boolean;
  metricsToken: string | null;
}

const REALM = 'Bearer realm="ipintel"';
export const MISSING = 'An API key is required: send Authorization: Bearer <key>, or ?key=<key>.';
const WRONG = 'The API key is not valid: check it, or ask the operator for one.';

export class AccessControl {
  private readonly metricsDigest: Buffer | null;

  constructor(private readonly options: AccessOptions) {
    this.metricsDigest =
      options.metricsToken === null ? null : hash('sha256', options.metricsToken, 'buffer');
  }

  /**
   * Reads the key of a request to a counted route: a valid one is set on the
   * exchange (its bucket and limit count the request). Answers the refusal
   * to give once the request is counted (a wrong key, or none where keys are
   * required), or null.
   */
  identify(x: Exchange): string | null {
    const keys = this.options.keys;
    if (keys === null) return null;
    // the header wins (credentials.ts)
    const authorization = x.req.headers.authorization;
    const token =
      bearerToken(authorization) ??
      (x.route?.basicAuth === true ? basicPassword(authorization) : undefined);
    const presented = token ?? queryKey(x.query);
    if (presented === undefined) return this.options.required ? MISSING : null;
    const key = keys().find(presented);
    if (key === undefined) return WRONG;
    x.apiKey = key;
    if (token === undefined) x.queryKey = presented;
    return null;
  }

  /** /metrics: its token when METRICS_TOKEN is set; else a valid key when keys are required. */
  guardOperator(x: Exchange): void {
    if (this.metricsDigest !== null) {
      const token = bearerToken(x.req.headers.authorization);
      const digest = token === undefined ? null : hash('sha256', token, 'buffer');
      if (digest === null || !timingSafeEqual(digest, this.metricsDigest)) {
        refuse(
          x,
          'The operator endpoints (/metrics, /export/…) need the METRICS_TOKEN: send Authorization: Bearer <token>.',
          'Bearer realm="metrics"',
        );
      }
      return;
    }
    const denial = this.identify(x);
    if (denial !== null) refuse(x, denial);
  }
}

/** 401 with the challenge of RFC 6750 §3 (`error="invalid_token"` when a key was sent). */
export function refuse(x: Exchange, message: string, challenge = REALM): never {
  x.setHeader(
    'www-authenticate',
    message === WRONG ? `${challenge}, error="invalid_token"` : challenge,
  );
  throw new AppError('UNAUTHORIZED', message);
}
