// App.call: a GET route run from inside the process (the MCP tools) by its
// path pattern and raw params. It answers the record itself, the very record
// the REST route serialises, with the same validation and errors, and the
// network routes share the lookup cache with HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError } from '../../src/kit/errors.js';
import type { RequestContext } from '../../src/http/route.js';
import { parseIp } from '../../src/net/ip.js';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';

let dns: DnsTestServer;
let service: TestService;
before(async () => {
  dns = await startDnsServer({
    'first-call.example.test': { records: [{ type: 'A', data: '192.0.2.60', ttl: 300 }] },
    'first-http.example.test': {
      records: [{ type: 'MX', data: { preference: 5, exchange: 'mx.test' } }],
    },
  });
  service = await startService({
    env: { RATE_LIMIT_MAX: '100000', DNS_SERVERS: `127.0.0.1:${dns.port}` },
  });
});
after(async () => {
  await service.close();
  await dns.close();
});

function context(clientIp = '127.0.0.1'): RequestContext {
  const ip = parseIp(clientIp);
  assert.ok(ip);
  return { clientIp: ip, requestId: 'call-test', headers: {} };
}

function asked(name: string): number {
  return dns.queries.filter((q) => q.name.toLowerCase() === name).length;
}

describe('App.call answers the record the REST route serialises', () => {
  const table: {
    route: string;
    raw: { params?: Record<string, string>; query?: Record<string, string> };
    path: string;
  }[] = [
    { route: '/ip/:ip', raw: { params: { ip: '8.8.8.8' } }, path: '/ip/8.8.8.8' },
    { route: '/ip/:ip', raw: { params: { ip: '2606:4700::1111' } }, path: '/ip/2606:4700::1111' },
    { route: '/ip/:ip', raw: { params: { ip: '10.1.2.3' } }, path: '/ip/10.1.2.3' },
    // the caller's own record: REST sees 127.0.0.1 over loopback, so does the context
    { route: '/ip', raw: {}, path: '/ip' },
    { route: '/ip/:ip/vpn', raw: { params: { ip: '8.8.8.8' } }, path: '/ip/8.8.8.8/vpn' },
    { route: '/cidr', raw: { query: { range: '10.1.2.3/8' } }, path: '/cidr?range=10.1.2.3/8' },
  ];
  for (const { route, raw, path } of table) {
    it(`${route} ${JSON.stringify(raw)} equals GET ${path}`, async () => {
      const record = await service.app.call(route, raw, context());
      const rest = await get(service.baseUrl, path);
      assert.equal(rest.status, 200);
      assert.deepEqual(record, dataOf(rest.body));
    });
  }

  it('GET /ip answers for the context’s client', async () => {
    const record = await service.app.call('/ip', {}, context('8.8.8.8'));
    assert.deepEqual(record, dataOf((await get(service.baseUrl, '/ip/8.8.8.8')).body));
  });
});

describe('App.call shares the lookup cache with HTTP', () => {
  it('a call fills the entry an HTTP request then hits', async () => {
    const record = await service.app.call(
      '/dns/:domain',
      { params: { domain: 'first-call.example.test' } },
      context(),
    );
    assert.equal(asked('first-call.example.test'), 1);
    const rest = await get(service.baseUrl, '/dns/first-call.example.test');
    assert.equal(rest.headers.get('x-cache'), 'HIT');
    assert.deepEqual(dataOf(rest.body), record);
    assert.equal(asked('first-call.example.test'), 1);
  });

  it('an HTTP request fills the entry a call then reads', async () => {
    const rest = await get(service.baseUrl, '/dns/first-http.example.test?type=mx');
    assert.equal(rest.headers.get('x-cache'), 'MISS');
    const record = await service.app.call(
      '/dns/:domain',
      { params: { domain: 'FIRST-HTTP.example.test.' }, query: { type: 'MX' } },
      context(),
    );
    assert.deepEqual(record, dataOf(rest.body));
    assert.equal(asked('first-http.example.test'), 1);
  });
});

describe('App.call refuses what the REST route refuses', () => {
  const table: {
    name: string;
    route: string;
    raw: { params?: Record<string, string>; query?: Record<string, string> };
    code: string;
  }[] = [
    {
      name: 'a bad address',
      route: '/ip/:ip',
      raw: { params: { ip: '1.2.3' } },
      code: 'INVALID_IP',
    },
    {
      // "/ip/" must not fold into "/ip", the caller's own record
      name: 'an empty address',
      route: '/ip/:ip',
      raw: { params: { ip: '' } },
      code: 'INVALID_IP',
    },
    { name: 'no params at all', route: '/ip/:ip/vpn', raw: {}, code: 'INVALID_IP' },
    {
      name: 'an IPv6 blacklist check',
      route: '/blacklist/:ip',
      raw: { params: { ip: '2001:db8::1' } },
      code: 'IPV4_ONLY',
    },
    {
      name: 'an empty domain',
      route: '/dns/:domain',
      raw: { params: { domain: '' } },
      code: 'INVALID_DOMAIN',
    },
    {
      name: 'a bad record type',
      route: '/dns/:domain',
      raw: { params: { domain: 'example.test' }, query: { type: 'SPF' } },
      code: 'INVALID_TYPE',
    },
    {
      name: 'a bad range',
      route: '/cidr',
      raw: { query: { range: '10.0.0.0/33' } },
      code: 'INVALID_RANGE',
    },
    { name: 'no range', route: '/cidr', raw: {}, code: 'INVALID_RANGE' },
    // by pattern, not by URL
    { name: 'a URL instead of a pattern', route: '/ip/8.8.8.8', raw: {}, code: 'NOT_FOUND' },
    { name: 'an unknown route', route: '/nope', raw: {}, code: 'NOT_FOUND' },
    // raw routes (their own body, outside the envelope) are not lookups
    { name: 'a raw route', route: '/metrics', raw: {}, code: 'NOT_FOUND' },
    { name: 'a POST route', route: '/mcp', raw: {}, code: 'NOT_FOUND' },
  ];
  for (const { name, route, raw, code } of table) {
    it(`${name} → AppError ${code}`, async () => {
      await assert.rejects(service.app.call(route, raw, context()), (error: unknown) => {
        assert.ok(error instanceof AppError, String(error));
        assert.equal(error.code, code);
        return true;
      });
    });
  }
});
