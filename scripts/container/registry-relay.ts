// A read-only relay to the npm registry for `docker build` on a machine where
// containers cannot reach registry.npmjs.org themselves but the host can (here:
// the host trusts a TLS-intercepting proxy that containers do not).
// scripts/container-smoke.sh starts it on the Docker bridge address and passes
// NPM_CONFIG_REGISTRY=http://<bridge>:<port>/ to the build: npm then asks for
// packuments and tarballs here (it rewrites registry.npmjs.org tarball URLs to
// the configured registry), and this forwards GET/HEAD to the registry only.
//
//   node dist/scripts/container/registry-relay.js <listen-address> <port-file>
//
// It listens on PREFERRED_PORT when free, any port otherwise, and writes the
// port to <port-file> once listening; SIGTERM stops it. A stable port keeps
// the build's cache: the classic builder reuses the `npm ci` layer only while
// NPM_CONFIG_REGISTRY stays the same.
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { request } from 'node:https';

const UPSTREAM = 'https://registry.npmjs.org';
const TIMEOUT_MS = 60_000;
const PREFERRED_PORT = 48_730;
/** request headers npm's answers depend on (abbreviated packuments, compression, caching) */
const FORWARDED = ['accept', 'accept-encoding', 'user-agent', 'if-none-match', 'if-modified-since'];

function relay(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD' }).end();
    return;
  }
  const headers: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const upstream = request(
    new URL(req.url ?? '/', UPSTREAM),
    { method: req.method, headers, timeout: TIMEOUT_MS },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('timeout', () => upstream.destroy(new Error(`no answer in ${TIMEOUT_MS} ms`)));
  upstream.on('error', (error) => {
    process.stderr.write(`registry-relay: ${req.url ?? ''}: ${error.message}\n`);
    if (res.headersSent) res.destroy();
    else res.writeHead(502).end();
  });
  upstream.end();
}

const [address, portFile] = process.argv.slice(2);
if (address === undefined || portFile === undefined) {
  process.stderr.write('usage: registry-relay <listen-address> <port-file>\n');
  process.exit(2);
}
const server = createServer(relay);
server.once('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EADDRINUSE') throw error;
  server.listen(0, address);
});
server.on('listening', () => {
  const bound = server.address();
  if (bound !== null && typeof bound === 'object') writeFileSync(portFile, String(bound.port));
});
server.listen(PREFERRED_PORT, address);
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
});
