// The fast path (src/http/fast-path.ts): which request heads it reads itself
// (a table of plain and not-plain heads), and, over raw sockets to the
// service on loopback, that its answers are node:http's answers, that a
// connection passes to node:http mid-way without losing or reordering a
// byte, and that it keeps node:http's timeouts, back-pressure and shutdown.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { FastPathServer, readPlainHead } from '../../src/http/fast-path.js';
import { defineHandler, route, streamedPaths } from '../../src/http/route.js';
import { exportHandlers } from '../../src/routes/export-routes.js';
import { parseResponse, rawRequest, type RawResponse } from '../helpers/inject.js';
import { seededRandom } from '../helpers/seeded-random.js';
import { startService, type TestService } from '../helpers/service.js';

const RDAP_BODY = readFileSync(new URL('../fixtures/rdap/arin_23.0.2.10.json', import.meta.url));
const PLAIN = 'GET /ip/8.8.8.8 HTTP/1.1\r\nHost: a.test\r\n\r\n';

describe('readPlainHead', () => {
  it('reads a plain GET: lower-case names, values trimmed, the head length', () => {
    const text =
      'GET /ip/8.8.8.8/vpn?x=1 HTTP/1.1\r\nHost: a.test\r\nX-Request-Id:  abc \t\r\nAccept:*/*\r\n\r\nGET /';
    const head = readPlainHead(text);
    assert.deepEqual(head, {
      method: 'GET',
      url: '/ip/8.8.8.8/vpn?x=1',
      headers: { host: 'a.test', 'x-request-id': 'abc', accept: '*/*' },
      length: text.length - 'GET /'.length,
    });
  });

  it('reads HEAD, an empty header value and Connection: keep-alive', () => {
    const head = readPlainHead(
      'HEAD / HTTP/1.1\r\nHost: a\r\nX-Empty:\r\nConnection: Keep-Alive\r\n\r\n',
    );
    assert.equal(head?.method, 'HEAD');
    assert.equal(head?.url, '/');
    assert.equal(head?.headers['x-empty'], '');
  });

  const notPlain: [string, string][] = [
    ['half a head', 'GET /ip HTTP/1.1\r\nHost: a\r\n'],
    ['a body (Content-Length)', 'GET /ip HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n'],
    ['chunked framing', 'GET /ip HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n'],
    ['POST', 'POST /batch HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['OPTIONS', 'OPTIONS /ip HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a lower-case method', 'get /ip HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['HTTP/1.0', 'GET /ip HTTP/1.0\r\nHost: a\r\n\r\n'],
    ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['absolute-form target', 'GET http://a/ip HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a space in the target', 'GET /ip /x HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['a raw UTF-8 byte in the target', 'GET /ip/\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n'],
    ['no Host', 'GET /ip HTTP/1.1\r\nAccept: */*\r\n\r\n'],
    ['Connection: close', 'GET /ip HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'],
    [
      'Connection: upgrade',
      'GET /ip HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n',
    ],
    ['Expect', 'GET /ip HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n'],
    ['a repeated header', 'GET /ip HTTP/1.1\r\nHost: a\r\nAccept: a\r\naccept: b\r\n\r\n'],
    ['a repeated Host', 'GET /ip HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'],
    ['obs-fold', 'GET /ip HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n'],
    ['a space before the colon', 'GET /ip HTTP/1.1\r\nHost : a\r\n\r\n'],
    ['a control character in a value', 'GET /ip HTTP/1.1\r\nHost: a\r\nX-A: b\x00c\r\n\r\n'],
    ['a bare LF inside the head', 'GET /ip HTTP/1.1\r\nHost: a\nX-A: b\r\n\r\n'],
    ['bare LF line ends', 'GET /ip HTTP/1.1\nHost: a\n\n'],
    ['__proto__ as a name', 'GET /ip HTTP/1.1\r\nHost: a\r\n__proto__: x\r\n\r\n'],
    ['a head over 16 KiB', `GET /ip HTTP/1.1\r\nHost: a\r\nX-A: ${'a'.repeat(16 * 1024)}\r\n\r\n`],
    [
      'more than 100 header lines',
      `GET /ip HTTP/1.1\r\nHost: a\r\n${Array.from({ length: 100 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`,
    ],
  ];
  for (const [what, text] of notPlain) {
    it(`leaves ${what} to node:http`, () => {
      assert.equal(readPlainHead(text), null);
    });
  }

  it("leaves the targets of the streamed routes' paths to node:http, and no others", () => {
    const get = (target: string) => `GET ${target} HTTP/1.1\r\nHost: a\r\n\r\n`;
    assert.equal(readPlainHead(get('/export/ipintel-city.mmdb'), ['/export/']), null);
    assert.equal(readPlainHead(get('/ip/8.8.8.8'), ['/export/'])?.url, '/ip/8.8.8.8');
    // the paths are the route table's to give, not a prefix the fast path knows
    assert.equal(readPlainHead(get('/export/x'))?.url, '/export/x');
  });
});

describe('streamedPaths', () => {
  const handler = (streamed: boolean) =>
    defineHandler({
      summary: 'a test route',
      tags: [],
      response: z.string(),
      errors: [],
      handle: () => '',
      ...(streamed ? { streamed: true } : {}),
    });

  it("is where the streamed routes' paths begin: up to the first parameter, or the whole path", () => {
    const routes = [
      route('GET', '/files/:dir/:name', handler(true), { limited: false }),
      route('GET', '/ip/:ip', handler(false), { limited: true }),
      route('GET', '/dump.csv', handler(true), { limited: false }),
    ];
    assert.deepEqual(streamedPaths(routes), ['/files/', '/dump.csv']);
  });

  it('takes in GET /export/:file, whose handler streams the file', () => {
    const exported = exportHandlers({ dir: null }).file;
    const routes = [route('GET', '/export/:file', exported, { limited: false, operator: true })];
    assert.deepEqual(streamedPaths(routes), ['/export/']);
  });
});

/** Writes `request` (all at once, or in `parts` with `gapMs` between) and reads until `count` answers or the close. */
function exchange(
  port: number,
  parts: string[],
  options: {
    gapMs?: number;
    count?: number;
    timeoutMs?: number;
    head?: boolean;
    /** end the client's side after the last part */
    halfClose?: boolean;
  } = {},
): Promise<{ answers: RawResponse[]; closed: boolean; raw: string }> {
  const {
    gapMs = 0,
    count = Infinity,
    timeoutMs = 5000,
    head = false,
    halfClose = false,
  } = options;
  return new Promise((resolve, reject) => {
    let raw = '';
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      socket.destroy();
      resolve({ answers: splitAnswers(raw, head), closed, raw });
    };
    const socket = connect({ host: '127.0.0.1', port }, () => {
      void (async () => {
        for (const part of parts) {
          if (socket.destroyed) return;
          socket.write(Buffer.from(part, 'latin1'));
          if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
        }
        if (halfClose && !socket.destroyed) socket.end();
      })();
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      if (splitAnswers(raw, head).length >= count) finish(false);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    setTimeout(() => {
      if (!done) {
        socket.destroy();
        reject(new Error(`no ${count} answers in ${timeoutMs} ms: ${raw.slice(0, 300)}`));
      }
    }, timeoutMs).unref();
  });
}

/** The complete answers (framed by Content-Length; none has a body when they answer HEAD) in a connection's bytes. */
function splitAnswers(raw: string, head = false): RawResponse[] {
  const answers: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const length = head
      ? 0
      : Number(parseResponse(raw.slice(at, end + 4)).headers['content-length'] ?? 0);
    if (raw.length < end + 4 + length) break;
    answers.push(parseResponse(raw.slice(at, end + 4 + length)));
    at = end + 4 + length;
  }
  return answers;
}

/** The headers that differ from answer to answer by nature. */
function comparable(answer: RawResponse): Record<string, string> {
  const rest = { ...answer.headers };
  delete rest['date'];
  delete rest['x-request-id'];
  // each answer counts one more request of the window
  delete rest['ratelimit-remaining'];
  delete rest['ratelimit-reset'];
  return rest;
}

describe('the fast path on a live service', () => {
  let service: TestService;
  before(async () => {
    service = await startService({
      env: { RATE_LIMIT_MAX: '100000', KEEP_ALIVE_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' },
    });
  });
  after(() => service.close());

  // a second Accept line makes a head not plain: the same request, node:http's way
  const viaNode = (head: string): string =>
    head.replace('\r\n\r\n', '\r\nAccept: */*\r\nAccept: */*\r\n\r\n');
  const requests = [
    'GET /ip/8.8.8.8 HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /ip/2a00:1450:4001:80e::200e/vpn HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /cidr/10.0.0.0%2F8 HTTP/1.1\r\nHost: a\r\n\r\n',
    'HEAD /ip/1.1.1.1 HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /ip/1.1.1.1 HTTP/1.1\r\nHost: a\r\nOrigin: https://b.test\r\n\r\n',
    'GET /ip/not-an-ip HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /no/such/route HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /batch HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n',
    'GET /openapi.json HTTP/1.1\r\nHost: a\r\n\r\n',
  ];
  for (const request of requests) {
    const line = request.slice(0, request.indexOf(' HTTP/'));
    it(`${line}: the same status, headers and body as node:http's`, async () => {
      const head = request.startsWith('HEAD');
      const stats = (service.app.server as FastPathServer).stats;
      const before = { ...stats };
      const fast = await exchange(service.port, [request], { count: 1, head });
      assert.deepEqual(stats, { ...before, plainRequests: before.plainRequests + 1 });
      const node = await exchange(service.port, [viaNode(request)], { count: 1, head });
      assert.deepEqual(
        { plainRequests: stats.plainRequests, handedOff: stats.handedOff },
        { plainRequests: before.plainRequests + 1, handedOff: before.handedOff + 1 },
      );
      const [a, b] = [fast.answers[0]!, node.answers[0]!];
      assert.equal(a.status, b.status);
      assert.deepEqual(comparable(a), comparable(b));
      assert.equal(a.body, b.body);
      assert.match(
        a.headers['date'] ?? '',
        /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
      );
      assert.ok(a.headers['x-request-id']);
    });
  }

  it('answers an ETag revalidation with 304, as node:http does', async () => {
    const first = await exchange(service.port, [PLAIN], { count: 1 });
    const etag = first.answers[0]!.headers['etag']!;
    const revalidate = `GET /ip/8.8.8.8 HTTP/1.1\r\nHost: a\r\nIf-None-Match: ${etag}\r\n\r\n`;
    const fast = await exchange(service.port, [revalidate], { count: 1 });
    const node = await exchange(service.port, [viaNode(revalidate)], { count: 1 });
    assert.equal(fast.answers[0]!.status, 304);
    assert.deepEqual(comparable(fast.answers[0]!), comparable(node.answers[0]!));
    assert.equal(fast.answers[0]!.body, '');
  });

  it('answers pipelined requests in order, one answer each', async () => {
    const ips = ['1.1.1.1', '8.8.8.8', '9.9.9.9', '2001:4860:4860::8888', '1.0.0.1'];
    const heads = ips.map(
      (ip) => `GET /ip/${ip} HTTP/1.1\r\nHost: a\r\nX-Request-Id: r-${ip}\r\n\r\n`,
    );
    const stats = (service.app.server as FastPathServer).stats;
    const before = { ...stats };
    const { answers } = await exchange(service.port, [heads.join('')], { count: ips.length });
    // every one read by the fast path, none passed on
    assert.deepEqual(stats, { ...before, plainRequests: before.plainRequests + ips.length });
    assert.deepEqual(
      answers.map((a) => (JSON.parse(a.body) as { data: { ip: string } }).data.ip),
      ips,
    );
    assert.deepEqual(
      answers.map((a) => a.headers['x-request-id']),
      ips.map((ip) => `r-${ip}`),
    );
  });

  const BODY = '["8.8.8.8"]';
  const POST = `POST /batch HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;
  const LAST = 'GET /ip/1.1.1.1 HTTP/1.1\r\nHost: a\r\n\r\n';

  it('passes a connection to node:http mid-way: a plain request answered, then a POST with a body and a plain one, in order', async () => {
    const stats = (service.app.server as FastPathServer).stats;
    const before = { ...stats };
    const { answers } = await exchange(service.port, [PLAIN, POST + LAST], {
      gapMs: 100,
      count: 3,
    });
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    assert.match(answers[1]!.body, /"8\.8\.8\.8"/);
    assert.match(answers[2]!.body, /"ip":"1\.1\.1\.1"/);
    // the first by the fast path; then node:http has the connection
    assert.deepEqual(
      { plainRequests: stats.plainRequests, handedOff: stats.handedOff },
      { plainRequests: before.plainRequests + 1, handedOff: before.handedOff + 1 },
    );
  });

  it('bytes holding a head that is not plain go to node:http whole: plain, POST, plain in one write', async () => {
    const stats = (service.app.server as FastPathServer).stats;
    const before = { ...stats };
    const { answers } = await exchange(service.port, [PLAIN + POST + LAST], { count: 3 });
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200],
    );
    assert.match(answers[0]!.body, /"ip":"8\.8\.8\.8"/);
    assert.match(answers[1]!.body, /"8\.8\.8\.8"/);
    assert.match(answers[2]!.body, /"ip":"1\.1\.1\.1"/);
    assert.deepEqual(stats, { ...before, handedOff: before.handedOff + 1 });
  });

  it('a client that half-closes after a plain request and a POST gets both answers, then the end', async () => {
    const started = performance.now();
    const { answers, closed } = await exchange(service.port, [PLAIN + POST], {
      timeoutMs: 4000,
      halfClose: true,
    });
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    assert.ok(closed);
    assert.ok(performance.now() - started < 1000, 'the connection ended at once');
  });

  it('a head that arrives in pieces is answered (by node:http, which waits for the rest)', async () => {
    const { answers } = await exchange(
      service.port,
      [PLAIN, 'GET /ip/1.1.1', '.1 HTTP/1.1\r\nHo', 'st: a\r\n\r\n'],
      { gapMs: 50, count: 2 },
    );
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200],
    );
    assert.match(answers[1]!.body, /"ip":"1\.1\.1\.1"/);
  });

  it('what node:http refuses is still refused: a head over 16 KiB gets 431, a bad line 400', async () => {
    const big = await rawRequest(
      service.port,
      `GET /ip/8.8.8.8 HTTP/1.1\r\nHost: a\r\nX-A: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    assert.equal(big.status, 431);
    const bad = await rawRequest(service.port, 'GET /ip/8.8.8.8 HTTP/1.1\r\nHost : a\r\n\r\n');
    assert.equal(bad.status, 400);
  });

  it('a client that half-closes after its request gets the answer, then the connection ends', async () => {
    const answer = await rawRequest(service.port, PLAIN, 2000);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['connection'], 'keep-alive');
  });

  it('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const started = performance.now();
    const { answers, closed } = await exchange(service.port, [PLAIN], { timeoutMs: 5000 });
    const ms = performance.now() - started;
    assert.equal(answers.length, 1);
    assert.equal(answers[0]!.headers['keep-alive'], 'timeout=1');
    assert.ok(closed);
    assert.ok(ms >= 1400 && ms < 3500, `closed after ${Math.round(ms)} ms`);
  });

  it('a connection that sends nothing gets 408 after HEADERS_TIMEOUT_MS, as node:http gives it', async () => {
    const started = performance.now();
    const { answers, closed, raw } = await exchange(service.port, [], { timeoutMs: 5000 });
    const ms = performance.now() - started;
    assert.ok(closed);
    assert.equal(answers.length === 1 ? answers[0]!.status : parseResponse(raw).status, 408);
    assert.ok(ms >= 900 && ms < 3000, `closed after ${Math.round(ms)} ms`);
  });

  it('a client that does not read its answers is not answered without bound, and gets all once it reads', async () => {
    const total = 3000;
    const socket: Socket = connect({ host: '127.0.0.1', port: service.port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write(PLAIN.repeat(total));
    await new Promise((r) => setTimeout(r, 300));
    let raw = '';
    const read = new Promise<number>((resolve, reject) => {
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        raw += chunk;
        const count = raw.split('HTTP/1.1 200 OK').length - 1;
        if (count === total) resolve(count);
      });
      socket.on('error', reject);
      setTimeout(
        () => reject(new Error(`${raw.split('HTTP/1.1 200 OK').length - 1} answers`)),
        10_000,
      ).unref();
    });
    socket.resume();
    assert.equal(await read, total);
    socket.destroy();
  });
});

describe('the fast path against node:http on generated requests', () => {
  let service: TestService;
  before(async () => {
    service = await startService({ env: { RATE_LIMIT_MAX: '1000000' } });
  });
  after(() => service.close());

  const random = seededRandom();
  const blank = (): string => random.pick(['', '', ' ', '\t', '  ', ' \t']);
  const casing = (name: string): string =>
    random.pick([name, name.toUpperCase(), name[0]!.toUpperCase() + name.slice(1)]);
  /** A request head, plain or not: methods, targets, versions and header lines a client may send. */
  function generatedHead(): string {
    const method = random.pick(['GET', 'GET', 'GET', 'HEAD', 'POST', 'get', 'OPTIONS']);
    const target = random.pick([
      '/ip/8.8.8.8',
      '/ip/1.1.1.1/vpn',
      '/ip/2001:4860:4860::8888',
      '/cidr/10.0.0.0%2F8',
      '/healthz',
      '/nowhere',
      '/ip/%zz',
      '/ip/8.8.8.8?fields=country&x=%20',
      '/ip/\xe9',
      '/ip/8.8.8.8/',
    ]);
    const version = random.chance(0.9) ? 'HTTP/1.1' : 'HTTP/1.0';
    const lines: string[] = [];
    if (random.chance(0.95)) lines.push(`${casing('host')}:${blank()}a.test${blank()}`);
    const extras: (() => string)[] = [
      () => `${casing('accept')}:${blank()}*/*${blank()}`,
      () =>
        `X-Request-Id:${blank()}${random.pick(['abc-1', 'a b', 'x'.repeat(200), 'é'])}${blank()}`,
      () => `Origin: https://b.test`,
      () => `Connection: ${random.pick(['keep-alive', 'Keep-Alive', 'close', 'Upgrade'])}`,
      () => `If-None-Match: ${random.pick(['*', '"x"', 'W/"y"'])}`,
      () => `X-Obs: a\x80\xff b`,
      () => `X-Empty:`,
      () => `Content-Length: 0`,
      () => `Accept: */*`,
      () => `User-Agent: curl/8.0`,
    ];
    for (let i = random.below(5); i > 0; i--) lines.push(random.pick(extras)());
    return `${method} ${target} ${version}\r\n${lines.map((l) => `${l}\r\n`).join('')}\r\n`;
  }

  it('every generated head gets from the fast path what node:http answers', async () => {
    const stats = (service.app.server as FastPathServer).stats;
    const plainBefore = stats.plainRequests;
    for (let i = 0; i < 150; i++) {
      const head = generatedHead();
      const context = `seed ${random.seed}, head ${JSON.stringify(head)}`;
      const isHead = head.startsWith('HEAD ');
      // a repeated header line makes any head node:http's
      const viaNode = head.replace('\r\n', '\r\nX-Via: 1\r\nX-Via: 1\r\n');
      const a = await exchange(service.port, [head], { count: 1, head: isHead, timeoutMs: 3000 });
      const b = await exchange(service.port, [viaNode], {
        count: 1,
        head: isHead,
        timeoutMs: 3000,
      });
      assert.equal(a.answers.length, b.answers.length, context);
      if (a.answers.length === 0) continue;
      const [x, y] = [a.answers[0]!, b.answers[0]!];
      assert.equal(x.status, y.status, context);
      assert.deepEqual(comparable(x), comparable(y), context);
      assert.equal(x.body, y.body, context);
      // a request id the client sent once (blanks around it trimmed; node:http joins a
      // repeated one, which then is no valid id) comes back the same either way
      if (head.split('X-Request-Id:').length === 2 && head.includes('abc-1'))
        assert.equal(x.headers['x-request-id'], y.headers['x-request-id'], context);
    }
    // some of them were plain: the comparison saw the fast path at work
    assert.ok(stats.plainRequests - plainBefore > 20, `${stats.plainRequests - plainBefore} plain`);
  });
});

describe('the fast path at shutdown', () => {
  it('closing the server closes an idle fast connection at once; an answer on its way says close', async () => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '100000' } });
    const idle = exchange(service.port, [PLAIN], { timeoutMs: 4000 });
    await new Promise((r) => setTimeout(r, 200));
    const started = performance.now();
    await new Promise<void>((resolve, reject) =>
      service.app.server.close((error) => (error ? reject(error) : resolve())),
    );
    assert.ok(performance.now() - started < 1000, 'close waited for an idle connection');
    const { answers, closed } = await idle;
    assert.equal(answers[0]!.status, 200);
    assert.ok(closed);
  });

  it('an answer on its way when the server closes says Connection: close and ends its connection', async (t) => {
    // an RDAP upstream that takes 400 ms: the answer is surely on its way at close()
    const rdap = createServer((_req, res) => {
      setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(RDAP_BODY),
        400,
      );
    });
    await new Promise<void>((resolve) => rdap.listen(0, '127.0.0.1', resolve));
    t.after(() => rdap.close());
    const service = await startService({
      env: {
        RATE_LIMIT_MAX: '100000',
        RDAP_BASE_URL: `http://127.0.0.1:${(rdap.address() as AddressInfo).port}/`,
        WHOIS_SERVER: '127.0.0.1:9',
      },
    });
    const inFlight = exchange(service.port, ['GET /whois/23.0.2.10 HTTP/1.1\r\nHost: a\r\n\r\n'], {
      timeoutMs: 4000,
    });
    await new Promise((r) => setTimeout(r, 150));
    const serverClosed = new Promise<void>((resolve) => service.app.server.close(() => resolve()));
    const { answers, closed } = await inFlight;
    await serverClosed;
    assert.equal(answers.length, 1);
    assert.equal(answers[0]!.status, 200, answers[0]!.body);
    assert.match(answers[0]!.body, /"ip":"23\.0\.2\.10"/);
    assert.equal(answers[0]!.headers['connection'], 'close');
    assert.ok(closed);
  });
});

describe('the fast path without a clientError listener', () => {
  /** what a client that sends nothing receives before the connection closes */
  async function silentClient(server: import('node:http').Server): Promise<string> {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { raw, closed } = await exchange((server.address() as AddressInfo).port, [], {
        timeoutMs: 4000,
      });
      assert.ok(closed);
      return raw;
    } finally {
      server.close();
    }
  }
  const options = { headersTimeout: 400, requestTimeout: 1000, connectionsCheckingInterval: 100 };

  it("a silent connection gets node:http's own 408, as node:http gives it", async () => {
    const fast = new FastPathServer(options, () => assert.fail('no request was sent'));
    const node = createServer(options, () => assert.fail('no request was sent'));
    const [fromFast, fromNode] = [await silentClient(fast), await silentClient(node)];
    assert.equal(fromNode, 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    assert.equal(fromFast, fromNode);
    assert.equal(fast.listenerCount('clientError'), 0);
  });
});
