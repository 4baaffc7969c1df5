// The reference for the differential tests (test/http/node-parity.test.ts):
// a bare node:http server with the service's settings (serverOptions,
// configureServer) and its rule for refused bytes (src/http/client-error.ts).
// Its handler reads each body whole and then answers, a path under /whois/
// after SLOW_MS, as the service's RDAP lookup does against slowRdap().
import { createServer, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import { refuseAfterAnswers } from '../../src/http/client-error.js';
import { configureServer } from '../../src/http/server-options.js';
import { listen, SLOW_MS } from './raw-play.js';

const NODE_REFUSALS: Record<string, string> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** The reference server (see the module's comment), listening on loopback. */
export async function referenceServer(options: ServerOptions): Promise<Server> {
  const server = createServer(options, (req, res) => {
    const delay = req.url?.startsWith('/whois/') ? SLOW_MS : 0;
    req.resume();
    // framed by Content-Length, as every answer of the service is
    req.once('end', () =>
      setTimeout(() => res.writeHead(200, { 'content-length': 2 }).end('{}'), delay),
    );
  });
  configureServer(server);
  server.on('clientError', (error: Error & { code?: string }, socket) => {
    const status = NODE_REFUSALS[error.code ?? ''] ?? '400 Bad Request';
    refuseAfterAnswers(socket as Socket, `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
  });
  await listen(server);
  return server;
}
