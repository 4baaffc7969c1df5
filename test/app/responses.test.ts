// The envelope, statuses and headers of docs/api.md, through a real
// listening server (fetch to 127.0.0.1) and in process (an injected
// connection whose peer address the test chooses).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { geoIpRecordSchema } from '../../src/api/schemas.js';
import { inject, rawRequest } from '../helpers/inject.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';

const GEOIP_FIELDS = [
  'ip',
  'country',
  'city',
  'region',
  'timezone',
  'latitude',
  'longitude',
  'accuracyRadiusKm',
  'isp',
  'asn',
  'org',
  'bogon',
];

let service: TestService;
before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '1000000' } });
});
after(() => service.close());

describe('200 envelope', () => {
  it('GET /ip/8.8.8.8 → {data} with every GeoIP field, JSON content type', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json; charset=utf-8$/);
    assert.deepEqual(Object.keys(res.body as object), ['data']);
    const data = dataOf(res.body);
    assert.deepEqual(Object.keys(data).sort(), [...GEOIP_FIELDS].sort());
    assert.ok(geoIpRecordSchema.safeParse(data).success);
    for (const field of GEOIP_FIELDS) assert.notEqual(data[field], undefined, field);
    assert.equal(data['ip'], '8.8.8.8');
    assert.equal(data['bogon'], false);
  });

  it('the same answer in process', async () => {
    const res = await inject(service.app.server, { path: '/ip/8.8.8.8' });
    assert.equal(res.status, 200);
    assert.equal(dataOf(JSON.parse(res.body))['asn'], 'AS15169');
  });

  it('a public IPv6 address gets a real answer', async () => {
    const data = dataOf((await get(service.baseUrl, '/ip/2001:4860:4860::8888')).body);
    assert.equal(data['bogon'], false);
    assert.equal(data['asn'], 'AS15169');
    assert.equal(typeof data['country'], 'string');
  });

  it('an IPv6 address is answered in canonical form', async () => {
    const data = dataOf(
      (await get(service.baseUrl, '/ip/2001:4860:4860:0000:0000:0000:0000:8888')).body,
    );
    assert.equal(data['ip'], '2001:4860:4860::8888');
  });

  it('::ffff:8.8.8.8 is 8.8.8.8', async () => {
    const res = await get(service.baseUrl, '/ip/::ffff:8.8.8.8');
    assert.equal(res.status, 200);
    assert.equal(dataOf(res.body)['ip'], '8.8.8.8');
  });

  it('a trailing slash is forgiven', async () => {
    assert.equal((await get(service.baseUrl, '/ip/1.1.1.1/')).status, 200);
  });
});

describe('bogons → 200, bogon: true, every other field null', () => {
  const bogons = [
    '10.0.0.1',
    '127.0.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.1.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '2001:db8::1',
    'ff02::1',
    '::ffff:10.0.0.1',
  ];
  for (const address of bogons) {
    it(address, async () => {
      const res = await get(service.baseUrl, `/ip/${address}`);
      assert.equal(res.status, 200);
      const data = dataOf(res.body);
      assert.equal(data['bogon'], true);
      for (const field of GEOIP_FIELDS.filter((f) => f !== 'ip' && f !== 'bogon')) {
        assert.equal(data[field], null, `${field} should be null`);
      }
      assert.equal(typeof data['ip'], 'string');
    });
  }
});

describe('GET /ip answers for the caller', () => {
  it('through the real socket the caller is 127.0.0.1, a bogon', async () => {
    const data = dataOf((await get(service.baseUrl, '/ip')).body);
    assert.equal(data['ip'], '127.0.0.1');
    assert.equal(data['bogon'], true);
  });

  it('without TRUST_PROXY, X-Forwarded-For is ignored', async () => {
    const res = await get(service.baseUrl, '/ip', { headers: { 'x-forwarded-for': '8.8.8.8' } });
    assert.equal(dataOf(res.body)['ip'], '127.0.0.1');
  });

  it('in process, a public peer gets its own record', async () => {
    const res = await inject(service.app.server, { path: '/ip', remoteAddress: '8.8.8.8' });
    const data = dataOf(JSON.parse(res.body));
    assert.deepEqual([data['ip'], data['country'], data['asn']], ['8.8.8.8', 'US', 'AS15169']);
    assert.equal(res.headers['cache-control'], 'private, max-age=86400');
    assert.equal(res.headers['x-cache'], undefined);
  });

  it('in process, an IPv6 peer gets its own record', async () => {
    const res = await inject(service.app.server, {
      path: '/ip',
      remoteAddress: '2606:4700:4700::1111',
    });
    assert.equal(dataOf(JSON.parse(res.body))['asn'], 'AS13335');
  });

  it('in process, a dual-stack IPv4 peer is unwrapped', async () => {
    const res = await inject(service.app.server, { path: '/ip', remoteAddress: '::ffff:1.1.1.1' });
    assert.equal(dataOf(JSON.parse(res.body))['ip'], '1.1.1.1');
  });
});

describe('400 INVALID_IP', () => {
  const table: { path: string; why: string }[] = [
    { path: '/ip/010.1.1.1', why: 'leading zero' },
    { path: '/ip/1.2.3', why: 'three octets' },
    { path: '/ip/256.0.0.1', why: 'octet over 255' },
    { path: '/ip/fe80::1%25eth0', why: 'zone id' },
    { path: '/ip/%zz', why: 'undecodable escape' },
    { path: '/ip/%25', why: 'a lone percent' },
    { path: '/ip/%00', why: 'NUL' },
    { path: '/ip/1.2.3.4%2F32', why: 'a prefix' },
    { path: '/ip/%201.2.3.4', why: 'leading space' },
    { path: '/ip/example.com', why: 'a name' },
    { path: '/ip/1%3A2%3A3', why: 'three groups' },
    { path: `/ip/${'a'.repeat(1000)}`, why: '1000 characters' },
    { path: `/ip/${'%41'.repeat(400)}`, why: 'many escapes' },
  ];
  for (const { path, why } of table) {
    it(`${path.slice(0, 40)} (${why})`, async () => {
      const res = await rawRequest(
        service.port,
        `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 400);
      const body = JSON.parse(res.body) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'INVALID_IP');
      assert.ok(
        body.error.message.length > 0 && body.error.message.length < 200,
        body.error.message,
      );
      assert.equal(res.headers['cache-control'], 'no-store');
    });
  }
});

describe('404 and 405', () => {
  for (const path of [
    '/nope',
    '/ip/8.8.8.8/unknown',
    '/IP/8.8.8.8',
    '/ip//8.8.8.8',
    '/.env',
    '/favicon.ico',
  ]) {
    it(`GET ${path} → 404 NOT_FOUND envelope`, async () => {
      const res = await get(service.baseUrl, path);
      assert.equal(res.status, 404);
      assert.equal(errorCode(res.body), 'NOT_FOUND');
      assert.equal(typeof (res.body as { error: { message: unknown } }).error.message, 'string');
    });
  }

  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    for (const path of ['/ip/8.8.8.8', '/ip', '/cidr?range=10.0.0.0/8', '/healthz']) {
      it(`${method} ${path} → 405 METHOD_NOT_ALLOWED with Allow: GET, HEAD`, async () => {
        const res = await get(service.baseUrl, path, { method });
        assert.equal(res.status, 405);
        assert.equal(errorCode(res.body), 'METHOD_NOT_ALLOWED');
        assert.equal(res.headers.get('allow'), 'GET, HEAD');
      });
    }
  }

  it('POST with a body to a GET route → 405, connection still usable', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8', {
      method: 'POST',
      body: JSON.stringify({ x: 'y'.repeat(10_000) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 405);
    assert.equal((await get(service.baseUrl, '/healthz')).status, 200);
  });
});

describe('HEAD and OPTIONS', () => {
  it('HEAD /ip/8.8.8.8 → 200, headers of the GET, no body', async () => {
    const res = await rawRequest(
      service.port,
      'HEAD /ip/8.8.8.8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    const getRes = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(res.status, 200);
    assert.equal(res.body, '');
    assert.equal(res.headers['content-length'], String(Buffer.byteLength(getRes.text)));
    assert.match(res.headers['content-type'] ?? '', /application\/json/);
    for (const name of ['cache-control', 'x-data-attribution', 'ratelimit-limit']) {
      assert.equal(res.headers[name], getRes.headers.get(name) ?? undefined, name);
    }
    // an answer from in-memory data: no server cache, so no X-Cache
    assert.equal(res.headers['x-cache'], undefined);
  });

  it('HEAD of an error → status of the error, no body', async () => {
    const res = await rawRequest(
      service.port,
      'HEAD /ip/nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    assert.equal(res.status, 400);
    assert.equal(res.body, '');
  });

  it('OPTIONS preflight of a known route → 204 with the CORS headers', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.match(res.headers.get('access-control-allow-methods') ?? '', /GET/);
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /X-Request-Id/i);
    assert.ok(res.headers.get('x-request-id'));
  });

  it('OPTIONS of an unknown route → 404 envelope', async () => {
    const res = await get(service.baseUrl, '/nope', { method: 'OPTIONS' });
    assert.equal(res.status, 404);
    assert.equal(errorCode(res.body), 'NOT_FOUND');
  });
});

describe('CORS and X-Request-Id on every answer', () => {
  for (const path of [
    '/ip/8.8.8.8',
    '/cidr?range=10.0.0.0/8',
    '/ip/bad',
    '/nope',
    '/healthz',
    '/openapi.json',
  ]) {
    it(`${path}: Access-Control-Allow-Origin: * and an X-Request-Id`, async () => {
      const res = await get(service.baseUrl, path);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.match(res.headers.get('x-request-id') ?? '', /^\S{3,128}$/);
    });
  }

  it('a browser request (Origin) also sees the exposed headers', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8', {
      headers: { origin: 'https://app.example' },
    });
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const name of [
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
      'retry-after',
      'x-cache',
      'x-request-id',
    ]) {
      assert.ok(exposed.includes(name), name);
    }
  });

  it('a sane X-Request-Id is echoed', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8', {
      headers: { 'x-request-id': 'trace-42.a_b:c' },
    });
    assert.equal(res.headers.get('x-request-id'), 'trace-42.a_b:c');
  });

  it('an X-Request-Id is echoed on errors too', async () => {
    const res = await get(service.baseUrl, '/nope', { headers: { 'x-request-id': 'err-7' } });
    assert.equal(res.headers.get('x-request-id'), 'err-7');
  });

  for (const [why, id] of [
    ['500 characters', 'a'.repeat(500)],
    ['spaces', 'has some spaces'],
    ['quotes', '"quoted"'],
    ['empty', ''],
  ] as const) {
    it(`an insane X-Request-Id (${why}) is replaced by a generated one`, async () => {
      const res = await get(service.baseUrl, '/healthz', { headers: { 'x-request-id': id } });
      const got = res.headers.get('x-request-id') ?? '';
      assert.notEqual(got, id);
      assert.match(got, /^[A-Za-z0-9._:@/+=-]{1,128}$/);
    });
  }

  it('generated ids differ from request to request', async () => {
    const ids = await Promise.all(
      Array.from({ length: 5 }, async () =>
        (await get(service.baseUrl, '/healthz')).headers.get('x-request-id'),
      ),
    );
    assert.equal(new Set(ids).size, 5);
  });
});

describe('operations endpoints', () => {
  it('GET /healthz → 200 {data:{status:"ok"}}, not rate limited', async () => {
    const res = await get(service.baseUrl, '/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: { status: 'ok' } });
    assert.equal(res.headers.get('ratelimit-limit'), null);
  });

  it('GET /readyz → 200 ready with the data sets', async () => {
    const res = await get(service.baseUrl, '/readyz');
    assert.equal(res.status, 200);
    const data = dataOf<{ status: string; dataSets: { kind: string; source: string }[] }>(res.body);
    assert.equal(data.status, 'ready');
    assert.deepEqual(data.dataSets.map((d) => `${d.kind}:${d.source}`).sort(), [
      'asn:embedded',
      'geoip:embedded',
    ]);
  });

  it('GET / lists the endpoints and the DB-IP attribution link', async () => {
    const res = await get(service.baseUrl, '/');
    assert.equal(res.status, 200);
    assert.ok(res.text.includes('https://db-ip.com'));
    const data = dataOf<{
      endpoints: { method: string; path: string }[];
      dataSources: { attribution: { url: string } | null; licence: string }[];
    }>(res.body);
    const endpoints = data.endpoints.map((e) => `${e.method} ${e.path}`);
    for (const route of [
      'GET /ip',
      'GET /ip/:ip',
      'GET /cidr',
      'GET /healthz',
      'GET /openapi.json',
    ]) {
      assert.ok(endpoints.includes(route), route);
    }
    assert.ok(
      data.dataSources.some(
        (d) => d.attribution?.url === 'https://db-ip.com' && d.licence === 'CC BY 4.0',
      ),
    );
  });

  it('GeoIP answers carry X-Data-Attribution naming DB-IP; CIDR answers and errors do not', async () => {
    for (const path of ['/ip/8.8.8.8', '/ip/10.0.0.1', '/ip']) {
      const res = await get(service.baseUrl, path);
      assert.match(
        res.headers.get('x-data-attribution') ?? '',
        /DB-IP.*https:\/\/db-ip\.com/,
        path,
      );
    }
    for (const path of ['/cidr?range=10.0.0.0/8', '/ip/999.1.1.1']) {
      assert.equal(
        (await get(service.baseUrl, path)).headers.get('x-data-attribution'),
        null,
        path,
      );
    }
  });
});
