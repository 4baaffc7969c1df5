// The head the exchange gives the fast path's writer as text lines: the same
// headers as node:http's flat list, and a value that would break its line
// refused as node:http refuses it (an answer must never be split).
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { Exchange } from '../../src/http/exchange.js';
import type { LineResponder } from '../../src/http/message.js';
import { parseIp } from '../../src/net/ip.js';

/** The head as the writer got it. */
function recorder(): LineResponder & { heads: { status: number; lines: string }[] } {
  const heads: { status: number; lines: string }[] = [];
  return {
    heads,
    writeHeadLines: (status, lines) => heads.push({ status, lines }),
    end: () => undefined,
    destroy: () => undefined,
  };
}

function exchange(res: LineResponder, headers: Record<string, string> = {}): Exchange {
  const req = { method: 'GET', url: '/ip/8.8.8.8', headers, socket: {} as Socket, complete: true };
  return new Exchange(req, res, parseIp('127.0.0.1')!);
}

describe('Exchange header lines', () => {
  it('every decided header is one line, the data headers after the others', () => {
    const res = recorder();
    const x = exchange(res, { 'x-request-id': 'r-1', origin: 'https://a.test' });
    x.cacheControl = 'public, max-age=60';
    x.setHeader('allow', 'GET, HEAD');
    x.dataHeaders = { 'x-data-version': 'asn=1', etag: '"e"' };
    x.send(200, '{"data":1}');
    assert.deepEqual(res.heads, [
      {
        status: 200,
        lines:
          'access-control-allow-origin: *\r\nx-request-id: r-1\r\ncache-control: public, max-age=60\r\n' +
          'access-control-expose-headers: RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, WWW-Authenticate, X-Cache, X-Request-Id, X-Data-Attribution, X-Data-Version, X-Location-Source, ETag\r\n' +
          'allow: GET, HEAD\r\nx-data-version: asn=1\r\netag: "e"\r\n' +
          'content-type: application/json; charset=utf-8\r\ncontent-length: 10\r\n',
      },
    ]);
  });

  for (const [where, set] of [
    ['a header set along the way', (x: Exchange) => x.setHeader('allow', 'GET\r\nx-evil: 1')],
    ['a data header', (x: Exchange) => (x.dataHeaders = { 'x-data-version': 'a\nb' })],
  ] as const) {
    it(`a line break in ${where} is refused, and nothing is written`, () => {
      const res = recorder();
      const x = exchange(res);
      set(x);
      assert.throws(() => x.send(200, '{}'), /Invalid character in header content/);
      assert.deepEqual(res.heads, []);
    });
  }
});
