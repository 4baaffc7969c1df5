// One GET on a connection of its own (no pooling, no keep-alive), for tests
// that talk to a spawned service or spread parallel requests over workers.
import { request, type IncomingHttpHeaders } from 'node:http';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface GetOptions {
  /** the socket's own address (any of 127.0.0.0/8 on Linux: a distinct client) */
  localAddress?: string;
  headers?: Record<string, string>;
}

export function getOnce(
  port: number,
  path: string,
  timeoutMs = 5_000,
  options: GetOptions = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, ...options }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`GET ${path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}
