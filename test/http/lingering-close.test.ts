// An early refusal of a request whose body is still arriving is readable by a
// client that keeps streaming (Node's http.request writing 1 MiB chunks): the
// status arrives, no EPIPE/ECONNRESET, and the connection closes after the
// body, as `Connection: close` announced.
import { strict as assert } from 'node:assert';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Exchange, JSON_TYPE } from '../../src/http/exchange.js';
import { sendLingering, type LingerBounds } from '../../src/http/linger.js';
import { parseIp } from '../../src/net/ip.js';
import { startService, type TestService } from '../helpers/service.js';
import { timed } from '../helpers/wait.js';

const MIB = 1024 * 1024;

interface Outcome {
  status: number;
  connection: string | undefined;
  code: string | undefined;
  /** the socket's error, if any (EPIPE, ECONNRESET) */
  error: string | null;
  /** the answer's body, as UTF-8 */
  text: string;
}

function withoutText({ status, connection, code, error }: Outcome): Omit<Outcome, 'text'> {
  return { status, connection, code, error };
}

/** Streams `chunks` MiB in 1 MiB writes, respecting backpressure, and reports what came back. */
function stream(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  chunks: number,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let status = 0;
    let connection: string | undefined;
    let text = '';
    let error: string | null = null;
    let settled = false;
    const done = (): void => {
      if (settled) return;
      settled = true;
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {
        code = undefined;
      }
      resolve({ status, connection, code, error, text });
    };
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      status = res.statusCode ?? 0;
      connection = res.headers.connection;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => setTimeout(done, 50)); // an EPIPE would follow shortly
    });
    req.on('error', (err: Error & { code?: string }) => {
      error = err.code ?? err.message;
      done();
    });
    const chunk = Buffer.alloc(MIB, 0x20);
    let sent = 0;
    const writeMore = (): void => {
      while (sent < chunks) {
        sent++;
        if (sent === chunks) {
          req.end(chunk);
          return;
        }
        if (!req.write(chunk)) {
          req.once('drain', writeMore);
          return;
        }
      }
    };
    writeMore();
  });
}

describe('lingering close: an early refusal of a streamed body is readable', () => {
  let service: TestService;
  before(async () => {
    service = await startService({ env: { RATE_LIMIT_MAX: '1000' } });
  });
  after(() => service.close());

  const json = { 'content-type': 'application/json' };
  // [what, path, request headers, status, code]; every request is a POST streaming 16 MiB
  const cases: [string, string, Record<string, string>, number, string][] = [
    [
      'declared length',
      '/mcp',
      { ...json, 'content-length': String(16 * MIB) },
      413,
      'PAYLOAD_TOO_LARGE',
    ],
    ['chunked, found while reading', '/mcp', json, 413, 'PAYLOAD_TOO_LARGE'],
    ['not JSON', '/mcp', { 'content-type': 'text/plain' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['POST to a GET route', '/ip/8.8.8.8', json, 405, 'METHOD_NOT_ALLOWED'],
  ];
  for (const [what, path, headers, status, code] of cases) {
    it(`${status} ${code} (${what}): the status arrives, no EPIPE`, async () => {
      const got = await stream(service.port, 'POST', path, headers, 16);
      assert.deepEqual(withoutText(got), { status, code, connection: 'close', error: null });
    });
  }

  it('429 RATE_LIMITED on POST /mcp: the status arrives, no EPIPE', async () => {
    const limited = await startService({ env: { RATE_LIMIT_MAX: '1' } });
    try {
      await fetch(`${limited.baseUrl}/ip`); // the one request of the window
      const got = await stream(limited.port, 'POST', '/mcp', json, 16);
      assert.deepEqual(withoutText(got), {
        status: 429,
        code: 'RATE_LIMITED',
        connection: 'close',
        error: null,
      });
    } finally {
      await limited.close();
    }
  });
});

describe('lingering close: an answer made while the body still arrives', () => {
  it('a body handed over as a latin1 string of UTF-8 bytes (the GeoIP answer) arrives as those bytes', async () => {
    const bytes = Buffer.from(JSON.stringify({ data: { city: 'Nir H̱en', org: 'Telefónica' } }));
    const server = createServer((req, res) => {
      // as the app answers GET /ip/:ip: its body a latin1 string, one char a byte
      new Exchange(req, res, parseIp('127.0.0.1')!).send(
        200,
        bytes.toString('latin1'),
        JSON_TYPE,
        bytes.length,
        'latin1',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const got = await stream(port, 'POST', '/', { 'content-length': String(16 * MIB) }, 16);
      assert.equal(got.status, 200);
      assert.equal(got.connection, 'close', 'the lingering path: the body was still arriving');
      assert.equal(got.error, null);
      assert.equal(got.text, bytes.toString('utf8'));
    } finally {
      server.close();
    }
  });
});

describe('lingering close: bounded', () => {
  /** A server that refuses every request at once, lingering within `bounds`. */
  async function refusing(
    bounds: LingerBounds,
  ): Promise<{ port: number; server: Server; bytesRead: Promise<number> }> {
    let closed: (bytes: number) => void = () => undefined;
    const bytesRead = new Promise<number>((resolve) => (closed = resolve));
    const server = createServer((req, res) => {
      res.writeHead(413, { 'content-length': 2, connection: 'close' });
      sendLingering(req, res, '{}', bounds);
      req.socket.once('close', () => closed(req.socket.bytesRead));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, server, bytesRead };
  }

  it('past maxBytes the connection is closed while the client still sends', async () => {
    const { port, server, bytesRead } = await refusing({ maxBytes: 2 * MIB, maxMs: 30_000 });
    try {
      const got = await stream(port, 'POST', '/', {}, 64);
      assert.equal(got.status, 413);
      // 2 MiB discarded, plus what the socket buffers held when it closed
      const read = await bytesRead;
      assert.ok(read > 2 * MIB && read < 16 * MIB, `read ${read} bytes of 64 MiB`);
    } finally {
      server.close();
    }
  });

  it('past maxMs the connection is closed though the body never ends', async () => {
    const { port, server } = await refusing({ maxBytes: 64 * MIB, maxMs: 300 });
    try {
      const { ms: elapsedMs } = await timed(
        () =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => {
              socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\nabc');
            });
            socket.resume();
            socket.on('close', () => resolve());
          }),
      );
      assert.ok(elapsedMs >= 250 && elapsedMs < 5_000, `closed after ${elapsedMs} ms`);
    } finally {
      server.close();
    }
  });
});

describe('lingering close: a timeout while lingering writes no second answer', () => {
  it('a body dripping past REQUEST_TIMEOUT_MS after a 413 gets the 413 alone', async () => {
    const service = await startService({
      env: { HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600' },
    });
    try {
      const answer = await new Promise<string>((resolve) => {
        let text = '';
        let timer: NodeJS.Timeout | undefined;
        const socket = connect(service.port, '127.0.0.1', () => {
          socket.write(
            `POST /mcp HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${16 * MIB}\r\n\r\n`,
          );
          const drip = (): void => {
            socket.write(Buffer.alloc(1024, 0x20));
            timer = setTimeout(drip, 100);
          };
          drip();
        });
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          resolve(text);
        });
      });
      assert.deepEqual(answer.match(/HTTP\/1\.1 \d{3}/g), ['HTTP/1.1 413']);
    } finally {
      await service.close();
    }
  });
});
