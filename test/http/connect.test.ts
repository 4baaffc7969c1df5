// CONNECT (RFC 9110 §9.3.6) is answered like every refused method — 405 with
// Allow and the JSON error envelope — on any target, over a raw socket to the
// service on loopback; the connection then closes, and the service goes on.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { parseResponse, rawRequest, type RawResponse } from '../helpers/inject.js';
import { errorCode, get, startService, type TestService } from '../helpers/service.js';
import { timed } from '../helpers/wait.js';

let service: TestService;
before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '1000' } });
});
after(() => service.close());

function connectRequest(target: string, extra = ''): string {
  return `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${extra}\r\n`;
}

/** Sends `request` and keeps the socket open (no half-close), writing `after` once the head is out. */
function keepOpen(port: number, request: string, afterHead: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(request);
      socket.write(afterHead);
    });
    socket.setTimeout(3000, () => {
      socket.destroy();
      reject(new Error('the service did not close the connection'));
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    // the service ends its side; this client ends its own only then
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve(parseResponse(Buffer.concat(chunks).toString('utf8'))));
  });
}

describe('CONNECT', () => {
  const cases = [
    // a known path: its own methods, as for any refused method
    { target: '/ip', allow: 'GET, HEAD' },
    { target: '/mcp', allow: 'POST' },
    // no route there: every method the service serves
    { target: '/nowhere', allow: 'GET, POST, HEAD' },
    // the usual authority form of a proxy client
    { target: 'example.test:443', allow: 'GET, POST, HEAD' },
  ];
  for (const { target, allow } of cases) {
    it(`CONNECT ${target} → 405 METHOD_NOT_ALLOWED, Allow: ${allow}, connection closed`, async () => {
      const answer = await rawRequest(service.port, connectRequest(target), 3000);
      assert.equal(answer.status, 405, answer.raw);
      assert.equal(answer.headers.allow, allow);
      assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(answer.headers.connection, 'close');
      assert.ok(answer.headers['x-request-id']);
      const body = JSON.parse(answer.body) as unknown;
      assert.equal(errorCode(body), 'METHOD_NOT_ALLOWED');
      assert.match(answer.body, /CONNECT is not allowed on /);
      assert.equal(Number(answer.headers['content-length']), Buffer.byteLength(answer.body));
    });
  }

  it('a client that keeps its socket open and sends tunnel bytes gets the answer, then the close', async () => {
    const { result: answer, ms } = await timed(() =>
      keepOpen(service.port, connectRequest('/ip/8.8.8.8'), 'tunnel bytes\x00\x01\x02'.repeat(100)),
    );
    assert.equal(answer.status, 405);
    assert.equal(errorCode(JSON.parse(answer.body) as unknown), 'METHOD_NOT_ALLOWED');
    assert.ok(ms < 2000, `closed after ${ms} ms`);
  });

  it('counts against the rate limit like any request, and the service keeps answering', async () => {
    const limitedService = await startService({ env: { RATE_LIMIT_MAX: '1' } });
    try {
      const first = await rawRequest(limitedService.port, connectRequest('/ip'), 3000);
      assert.equal(first.status, 405);
      const second = await rawRequest(limitedService.port, connectRequest('/ip'), 3000);
      assert.equal(second.status, 429);
      assert.equal(errorCode(JSON.parse(second.body) as unknown), 'RATE_LIMITED');
      // a route that is not rate limited still answers, on a new connection
      assert.equal((await get(limitedService.baseUrl, '/healthz')).status, 200);
    } finally {
      await limitedService.close();
    }
  });
});
