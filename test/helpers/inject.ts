// Two ways to talk HTTP/1.1 byte for byte: `inject` hands the server an
// in-memory connection (node:http accepts any Duplex through its 'connection'
// event), so a test chooses the peer address and no port is opened;
// `rawRequest` writes bytes to a real loopback socket, for requests fetch()
// would refuse to send or would normalise.
import { connect } from 'node:net';
import type { Server } from 'node:http';
import { Duplex } from 'node:stream';

export interface RawResponse {
  status: number;
  /** lower-case names; repeated headers joined with ", " */
  headers: Record<string, string>;
  body: string;
  raw: string;
}

class MemorySocket extends Duplex {
  readonly written: Buffer[] = [];
  readonly remotePort = 50000;
  readonly remoteFamily: string;

  constructor(
    readonly remoteAddress: string,
    private request: Buffer,
  ) {
    super();
    this.remoteFamily = remoteAddress.includes(':') ? 'IPv6' : 'IPv4';
  }

  override _read(): void {
    if (this.request.length > 0) {
      this.push(this.request);
      this.request = Buffer.alloc(0);
    }
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    this.written.push(Buffer.from(chunk));
    callback();
  }

  override _final(callback: () => void): void {
    callback();
    this.push(null);
    this.emit('close');
  }

  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
}

export function parseResponse(raw: string): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  const head = split === -1 ? raw : raw.slice(0, split);
  let body = split === -1 ? '' : raw.slice(split + 4);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body);
  return { status, headers, body, raw };
}

function dechunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

export interface InjectOptions {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  /** the peer address the server sees; default 127.0.0.1 */
  remoteAddress?: string;
}

/** One request through an in-memory connection: no socket, the peer address chosen by the test. */
export function inject(server: Server, options: InjectOptions): Promise<RawResponse> {
  const lines = [
    `${options.method ?? 'GET'} ${options.path} HTTP/1.1`,
    'Host: ipintel.test',
    'Connection: close',
    ...Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  return injectRaw(
    server,
    Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'),
    options.remoteAddress,
  );
}

export function injectRaw(
  server: Server,
  request: Buffer,
  remoteAddress = '127.0.0.1',
): Promise<RawResponse> {
  const socket = new MemorySocket(remoteAddress, request);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('inject: no complete response')), 5000);
    socket.on('finish', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(socket.written).toString('utf8')));
    });
    server.emit('connection', socket);
  });
}

/** Bytes to a real socket on 127.0.0.1; resolves with everything read until the server closes. */
export function rawRequest(
  port: number,
  request: string | Buffer,
  timeoutMs = 5000,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.end(request);
    });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error('rawRequest: timed out'));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks).toString('utf8'))));
  });
}
