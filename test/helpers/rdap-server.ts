// A real RDAP server on 127.0.0.1 for tests: serves test/fixtures/rdap per
// path, and misbehaves on purpose under a few mount points. The client is
// pointed at `${url}<mount>/`, so each test picks a behaviour by base URL:
//   /              fixtures; unknown address → 404 with an RFC 9083 error body
//   /redirect/     302 (relative Location) → 307 (absolute) → the fixture
//   /loop/         302 to itself, forever
//   /bad-redirect/ 302 to a file: URL
//   /status-500/, /status-503/, /status-400/   that status with a JSON error body
//   /rate-limited/ 429 with an HTML body, as RIPE once sent
//   /html/         200 text/html            /garbage/  200 truncated JSON
//   /not-network/  200 an entity object     /array/    200 a JSON array
//   /error-200/    200 {errorCode: 404}     /plain/    fixtures as text/plain
//   /huge/         200 streaming 3 MiB      /huge-declared/ Content-Length 3 MiB
//   /slow-body/    headers, then a body that never ends
//   /no-answer/    never answers at all
//   /entity-404/   fixtures, but every entity is 404
//   /entity-slow/  fixtures, but entity requests never answer
//   /iana/ipv4.json, /iana/ipv6.json   bootstrap files (test/fixtures/rdap/bootstrap-*.json)
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const FIXTURES = new URL('../fixtures/rdap/', import.meta.url);

export interface RdapServer {
  /** "http://127.0.0.1:<port>/" */
  url: string;
  /** every request seen: path and Accept header */
  requests: { path: string; accept: string | undefined }[];
  close(): Promise<void>;
}

/** File name key: the address with ":" written as "-" (as in the fixture names). */
function loadFixtures(): Map<string, string> {
  const map = new Map<string, string>();
  for (const name of readdirSync(FIXTURES)) {
    const match = /^(?:arin|ripe|apnic|lacnic|afrinic|entity)_(.+)\.json$/.exec(name);
    if (match?.[1] === undefined || name.endsWith('.expected.json')) continue;
    map.set(match[1], readFileSync(new URL(name, FIXTURES), 'utf8'));
  }
  return map;
}

export async function startRdapServer(): Promise<RdapServer> {
  const fixtures = loadFixtures();
  const requests: RdapServer['requests'] = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push({ path, accept: req.headers.accept });
    route(path, req, res, fixtures);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function route(
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  fixtures: Map<string, string>,
): void {
  const iana = /^\/iana\/(ipv4|ipv6)\.json$/.exec(path);
  if (iana) return sendFile(res, `bootstrap-${iana[1]}.json`);
  const match = /^\/(?:([\w-]+)\/)?(ip|entity)\/(.+)$/.exec(path);
  if (match === null) return json(res, 404, { errorCode: 404, title: 'Not Found' });
  const [, mount = '', kind = '', key = ''] = match;
  if (misbehave(mount, kind, key, req, res)) return;
  if (mount === 'entity-404' && kind === 'entity') return json(res, 404, { errorCode: 404 });
  if (mount === 'entity-slow' && kind === 'entity') return; // never answers
  const body = fixtures.get(key.replaceAll(':', '-'));
  if (body === undefined) {
    return json(res, 404, { errorCode: 404, title: 'Not Found', description: [`no ${key}`] });
  }
  const type = mount === 'plain' ? 'text/plain' : 'application/rdap+json';
  res.writeHead(200, { 'content-type': type }).end(body);
}

/** The deliberately broken behaviours; true when the request was handled. */
function misbehave(
  mount: string,
  kind: string,
  key: string,
  req: IncomingMessage,
  res: ServerResponse,
): boolean {
  const status = /^status-(\d{3})$/.exec(mount)?.[1];
  if (status !== undefined) {
    json(res, Number(status), { errorCode: Number(status), title: 'Server trouble' });
    return true;
  }
  switch (mount) {
    case 'redirect':
      res.writeHead(302, { location: `../../r2/${kind}/${key}` }).end();
      return true;
    case 'r2':
      res.writeHead(307, { location: `http://${req.headers.host}/${kind}/${key}` }).end();
      return true;
    case 'loop':
      res.writeHead(302, { location: `/loop/${kind}/${key}` }).end();
      return true;
    case 'bad-redirect':
      res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      return true;
    case 'rate-limited':
      res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '60' });
      res.end('<html><body><h1>429 Too Many Requests</h1></body></html>');
      return true;
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><p>Welcome</p>');
      return true;
    case 'garbage':
      res.writeHead(200, { 'content-type': 'application/rdap+json' }).end('{"handle": "NET-1", ');
      return true;
    case 'not-network':
      json(res, 200, { objectClassName: 'entity', handle: 'SOMEONE' });
      return true;
    case 'array':
      json(res, 200, [1, 2, 3]);
      return true;
    case 'error-200':
      json(res, 200, { errorCode: 404, title: 'Not Found' });
      return true;
    case 'huge':
      streamHuge(res);
      return true;
    case 'huge-declared':
      res.writeHead(200, { 'content-length': String(3 << 20) }).write('{"handle":"');
      return true;
    case 'slow-body':
      res.writeHead(200, { 'content-type': 'application/rdap+json' }).write('{"handle":');
      return true;
    case 'no-answer':
      return true;
    default:
      return false;
  }
}

function streamHuge(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/rdap+json' });
  const chunk = `"${'x'.repeat(64 * 1024)}",`;
  let sent = 0;
  const more = () => {
    // stops on its own after 3 MiB, or when the client hangs up
    while (sent < 48 && !res.destroyed) {
      sent++;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end('"end"]');
  };
  res.write('[');
  more();
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/rdap+json' }).end(JSON.stringify(body));
}

function sendFile(res: ServerResponse, name: string): void {
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(readFileSync(new URL(name, FIXTURES)));
}

/** A fetch that refuses anything but loopback: tests must never reach a registry. */
export const loopbackFetch: typeof fetch = (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) {
    return Promise.reject(new Error(`test tried to fetch ${url.href}`));
  }
  return fetch(input, init);
};
