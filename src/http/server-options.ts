// How the HTTP server treats clients before the pipeline sees a request:
// the timeouts that cut off slow clients (slowloris), the bound on open
// connections, and the answer to a request Node's parser refused.
import type { Server, ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * Node's own guards against slow clients (slowloris): the request head and
 * the whole request must arrive in time, idle keep-alive connections close.
 * Node checks the first two every connectionsCheckingInterval, so that is
 * kept to a fraction of the shorter timeout.
 */
export function serverOptions(config: Readonly<Config>): ServerOptions {
  return {
    headersTimeout: config.headersTimeoutMs,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(5_000, config.headersTimeoutMs / 4)),
  };
}

/**
 * What the server does that its options cannot say. A client that ends its
 * side of the connection (half-close) after its requests gets their answers,
 * then the end: node:http's default (`httpAllowHalfOpen` false) ends the
 * connection at the client's FIN, and an answer still being made (a DNS or
 * RDAP lookup) is lost. The fast path has always answered first; node:http
 * now does the same (src/http/fast-path.ts hands it the FIN when it hands
 * over a connection).
 */
export function configureServer(server: Server): void {
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
}

/** The answer to a request Node's parser refused before the pipeline saw it. */
export function clientErrorAnswer(
  code: string | undefined,
  config: Readonly<Config>,
): { status: string; code: 'BAD_REQUEST' | 'REQUEST_TIMEOUT'; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return {
      status: '431 Request Header Fields Too Large',
      code: 'BAD_REQUEST',
      message: 'Request headers are too large.',
    };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: '408 Request Timeout',
      code: 'REQUEST_TIMEOUT',
      message: `The request did not arrive in time: headers within ${config.headersTimeoutMs} ms, the whole request within ${config.requestTimeoutMs} ms.`,
    };
  }
  return { status: '400 Bad Request', code: 'BAD_REQUEST', message: 'Malformed HTTP request.' };
}
