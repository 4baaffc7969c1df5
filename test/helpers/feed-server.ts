// A real HTTP server on 127.0.0.1 that plays feed publishers for the updater
// tests: whole files, HTTP errors, a body cut off mid-transfer (the socket is
// destroyed after part of a declared Content-Length), and a server that never
// answers. Nothing leaves loopback.
import { readFileSync } from 'node:fs';
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'feeds');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8');
}

export type FeedRoute =
  | {
      readonly body: string | Buffer;
      readonly status?: number;
      readonly type?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  /** sends `sendBytes` of `body` under the full Content-Length, then destroys the socket */
  | { readonly cutAfter: number; readonly body: string | Buffer }
  /** sends the headers, then one byte of `body` every `trickleMs` */
  | { readonly trickleMs: number; readonly body: string | Buffer }
  /** accepts the request and never answers */
  | { readonly hang: true };

export interface FeedServer {
  readonly base: string;
  url(path: string): string;
  /** request count per path */
  readonly hits: Map<string, number>;
  /** the headers of the last request per path */
  readonly requestHeaders: Map<string, IncomingHttpHeaders>;
  /** replaces or adds a route while the server runs */
  route(path: string, route: FeedRoute): void;
  close(): Promise<void>;
}

function answer(res: ServerResponse, route: FeedRoute): void {
  if ('hang' in route) return;
  if ('cutAfter' in route) {
    const bytes = Buffer.from(route.body);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': bytes.length });
    res.write(bytes.subarray(0, route.cutAfter), () => {
      // let the partial body reach the client before the connection dies
      setTimeout(() => res.socket?.destroy(), 20);
    });
    return;
  }
  if ('trickleMs' in route) {
    const bytes = Buffer.from(route.body);
    res.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': bytes.length,
    });
    let at = 0;
    const timer = setInterval(() => {
      if (at >= bytes.length || res.destroyed) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write(bytes.subarray(at, ++at));
    }, route.trickleMs);
    res.once('close', () => clearInterval(timer));
    return;
  }
  const bytes = Buffer.from(route.body);
  res.writeHead(route.status ?? 200, {
    'content-type': route.type ?? 'text/plain; charset=utf-8',
    'content-length': bytes.length,
    ...route.headers,
  });
  res.end(bytes);
}

export async function startFeedServer(routes: Record<string, FeedRoute>): Promise<FeedServer> {
  const table = new Map(Object.entries(routes));
  const hits = new Map<string, number>();
  const requestHeaders = new Map<string, IncomingHttpHeaders>();
  const server: Server = createServer((req, res) => {
    // a route may name a query (MaxMind's ?suffix=tar.gz and ?suffix=tar.gz.sha256)
    const full = req.url ?? '/';
    const path = table.has(full) ? full : (full.split('?')[0] ?? '/');
    hits.set(path, (hits.get(path) ?? 0) + 1);
    requestHeaders.set(path, req.headers);
    const route = table.get(path);
    if (route === undefined) answer(res, { status: 404, body: 'not found' });
    else answer(res, route);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    url: (path) => `${base}${path}`,
    hits,
    requestHeaders,
    route: (path, route) => void table.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
