// The lookup cache seen through HTTP. It sits in front of the routes that ask
// an upstream (DNS, reverse DNS, blacklist, whois): X-Cache says HIT or MISS,
// a hit is the miss's body byte for byte, max-age counts down with the
// injected clock, an entry expires, and failures are never kept. Answers
// computed from in-memory data (GeoIP, VPN, CIDR) never touch it: no X-Cache,
// and the full Cache-Control lifetime of docs/api.md ("Headers") on every answer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MemoryCacheStore } from '../../src/cache/cache-store.js';
import { TestClock } from '../helpers/clock.js';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { errorCode, get, startService, type TestService } from '../helpers/service.js';

const HOUR = 3600;
const DAY = 86_400;

/** Every name lives an hour (the DNS route's cap), so max-age is the route's lifetime. */
const ZONE = {
  'hit.example.test': { records: [{ type: 'A' as const, data: '192.0.2.1', ttl: HOUR }] },
  'expiry.example.test': { records: [{ type: 'A' as const, data: '192.0.2.2', ttl: HOUR }] },
  'head.example.test': { records: [{ type: 'A' as const, data: '192.0.2.3', ttl: HOUR }] },
  'burst.example.test': { records: [{ type: 'A' as const, data: '192.0.2.4', ttl: HOUR }] },
  'off.example.test': { records: [{ type: 'A' as const, data: '192.0.2.5', ttl: HOUR }] },
  'broken.example.test': { behaviour: 'servfail' as const },
  '50.2.0.192.in-addr.arpa': {
    records: [{ type: 'PTR' as const, data: 'host.example.test', ttl: HOUR }],
  },
};

let dns: DnsTestServer;
before(async () => {
  dns = await startDnsServer(ZONE);
});
after(() => dns.close());

/** The environment that sends the service's DNS questions to the loopback server. */
function dnsEnv(): Record<string, string> {
  return { DNS_SERVERS: `127.0.0.1:${dns.port}`, DNS_TIMEOUT_MS: '200' };
}

/** How many questions about `name` (any case) reached the DNS server. */
function asked(name: string): number {
  return dns.queries.filter((q) => q.name.toLowerCase() === name).length;
}

describe('the lookup cache over HTTP (a network route, the loopback DNS server)', () => {
  const clock = new TestClock();
  let service: TestService;
  before(async () => {
    service = await startService({
      env: { RATE_LIMIT_MAX: '100000', ...dnsEnv() },
      overrides: { now: clock.now },
    });
  });
  after(() => service.close());

  it('first GET → MISS, then HIT with the identical body, max-age counting down', async () => {
    const first = await get(service.baseUrl, '/dns/hit.example.test');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-cache'), 'MISS');
    assert.equal(first.headers.get('cache-control'), `public, max-age=${HOUR}`);
    assert.equal(asked('hit.example.test'), 1);

    clock.advance(10_000);
    const second = await get(service.baseUrl, '/dns/hit.example.test');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(second.text, first.text);
    assert.equal(second.headers.get('cache-control'), `public, max-age=${HOUR - 10}`);

    clock.advance(5_000);
    const third = await get(service.baseUrl, '/dns/hit.example.test');
    assert.equal(third.headers.get('x-cache'), 'HIT');
    assert.equal(third.text, first.text);
    assert.equal(third.headers.get('cache-control'), `public, max-age=${HOUR - 15}`);
    assert.equal(third.headers.get('content-length'), String(Buffer.byteLength(first.text)));
    assert.equal(asked('hit.example.test'), 1, 'the hits did not ask DNS again');
  });

  it('an entry expires with its lifetime on the injected clock, then DNS is asked again', async () => {
    const path = '/dns/expiry.example.test';
    assert.equal((await get(service.baseUrl, path)).headers.get('x-cache'), 'MISS');
    clock.advance(HOUR * 1000 - 1000);
    const late = await get(service.baseUrl, path);
    assert.equal(late.headers.get('x-cache'), 'HIT');
    assert.equal(late.headers.get('cache-control'), 'public, max-age=1');
    assert.equal(asked('expiry.example.test'), 1);
    clock.advance(1000);
    const expired = await get(service.baseUrl, path);
    assert.equal(expired.status, 200);
    assert.equal(expired.headers.get('x-cache'), 'MISS');
    assert.equal(expired.headers.get('cache-control'), `public, max-age=${HOUR}`);
    assert.equal(asked('expiry.example.test'), 2);
  });

  it('HEAD fills the entry GET then reads, with the same Content-Length', async () => {
    const head = await get(service.baseUrl, '/dns/head.example.test', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('x-cache'), 'MISS');
    const got = await get(service.baseUrl, '/dns/head.example.test');
    assert.equal(got.headers.get('x-cache'), 'HIT');
    assert.equal(head.headers.get('content-length'), String(Buffer.byteLength(got.text)));
    assert.equal(asked('head.example.test'), 1);
  });

  it('::ffff:192.0.2.50 and 192.0.2.50 share one reverse-DNS entry', async () => {
    const mapped = await get(service.baseUrl, '/dns/::ffff:192.0.2.50/reverse');
    assert.equal(mapped.status, 200);
    assert.equal(mapped.headers.get('x-cache'), 'MISS');
    const plain = await get(service.baseUrl, '/dns/192.0.2.50/reverse');
    assert.equal(plain.headers.get('x-cache'), 'HIT');
    assert.equal(plain.text, mapped.text);
    assert.equal(asked('50.2.0.192.in-addr.arpa'), 1);
  });

  it('parallel misses of one key share one upstream question', async () => {
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => get(service.baseUrl, '/dns/burst.example.test')),
    );
    assert.deepEqual(new Set(replies.map((r) => r.status)), new Set([200]));
    assert.equal(new Set(replies.map((r) => r.text)).size, 1, 'one body for all');
    assert.equal(asked('burst.example.test'), 1);
  });

  // an answer of the upstream that is an error (NXDOMAIN) counts as a failure too
  const failures = [
    { name: 'broken.example.test', status: 502, code: 'UPSTREAM_ERROR' },
    { name: 'nowhere.example.test', status: 404, code: 'NXDOMAIN' },
  ];
  for (const { name, status, code } of failures) {
    it(`${status} ${code} is never cached: no-store, no X-Cache, DNS asked each time`, async () => {
      for (let i = 1; i <= 2; i++) {
        const before = asked(name);
        const res = await get(service.baseUrl, `/dns/${name}`);
        assert.equal(res.status, status);
        assert.equal(errorCode(res.body), code);
        assert.equal(res.headers.get('cache-control'), 'no-store');
        assert.equal(res.headers.get('x-cache'), null);
        assert.ok(asked(name) > before, `request ${i} asked DNS`);
      }
    });
  }

  it('refused input is never cached either: no-store, no X-Cache', async () => {
    for (const path of ['/dns/bad..test', '/dns/example.test?type=SPF', '/whois/999.1.1.1']) {
      for (let i = 0; i < 2; i++) {
        const res = await get(service.baseUrl, path);
        assert.equal(res.status, 400, path);
        assert.equal(res.headers.get('cache-control'), 'no-store', path);
        assert.equal(res.headers.get('x-cache'), null, path);
      }
    }
  });
});

describe('answers from in-memory data skip the lookup cache', () => {
  const clock = new TestClock();
  // the service's own store, to see that nothing is put in it
  const store = new MemoryCacheStore(1000, clock.now);
  let service: TestService;
  before(async () => {
    service = await startService({
      env: { RATE_LIMIT_MAX: '100000' },
      overrides: { now: clock.now, cacheStore: store },
    });
  });
  after(() => service.close());

  // docs/api.md's lifetimes, the whole of them on every answer: nothing counts down
  const table = [
    { path: '/ip/8.8.8.8', cacheControl: `public, max-age=${DAY}` },
    { path: '/ip/2606:4700:4700::1111', cacheControl: `public, max-age=${DAY}` },
    // a bogon is an answer like any other
    { path: '/ip/10.0.0.1', cacheControl: `public, max-age=${DAY}` },
    // the caller's own record depends on who asks: private
    { path: '/ip', cacheControl: `private, max-age=${DAY}` },
    { path: '/ip/8.8.8.8/vpn', cacheControl: `public, max-age=${6 * HOUR}` },
    { path: '/ip/192.168.1.1/vpn', cacheControl: `public, max-age=${6 * HOUR}` },
    // pure arithmetic: not worth keeping anywhere
    { path: '/cidr?range=192.168.0.0/16', cacheControl: 'no-store' },
  ];
  for (const { path, cacheControl } of table) {
    it(`${path} → Cache-Control: ${cacheControl} every time, no X-Cache`, async () => {
      const first = await get(service.baseUrl, path);
      for (const method of ['GET', 'HEAD', 'GET']) {
        clock.advance(10_000);
        const again = await get(service.baseUrl, path, { method });
        assert.equal(again.status, 200, method);
        assert.equal(again.headers.get('cache-control'), cacheControl, method);
        assert.equal(again.headers.get('x-cache'), null, method);
        assert.equal(
          again.headers.get('content-length'),
          String(Buffer.byteLength(first.text)),
          method,
        );
        assert.equal(again.text, method === 'HEAD' ? '' : first.text);
      }
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('cache-control'), cacheControl);
      assert.equal(first.headers.get('x-cache'), null);
    });
  }

  it('leaves the lookup cache empty', async () => {
    for (const { path } of table) await get(service.baseUrl, path);
    assert.equal(store.size, 0);
  });

  it('errors of these routes carry no-store and no X-Cache', async () => {
    for (const path of ['/ip/999.1.1.1', '/ip/1.2.3/vpn', '/cidr?range=10.0.0.0/33']) {
      const res = await get(service.baseUrl, path);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get('cache-control'), 'no-store', path);
      assert.equal(res.headers.get('x-cache'), null, path);
    }
  });
});

describe('CACHE_MAX_ENTRIES=0', () => {
  it('disables the lookup cache: every answer is a MISS and asks DNS', async (t) => {
    const service = await startService({
      env: { CACHE_MAX_ENTRIES: '0', RATE_LIMIT_MAX: '100000', ...dnsEnv() },
    });
    t.after(() => service.close());
    for (let i = 1; i <= 3; i++) {
      const res = await get(service.baseUrl, '/dns/off.example.test');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('x-cache'), 'MISS');
      assert.equal(res.headers.get('cache-control'), `public, max-age=${HOUR}`);
      assert.equal(asked('off.example.test'), i);
    }
  });

  it('changes nothing for GeoIP: the full lifetime, no X-Cache', async (t) => {
    const service = await startService({ env: { CACHE_MAX_ENTRIES: '0' } });
    t.after(() => service.close());
    const res = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), `public, max-age=${DAY}`);
    assert.equal(res.headers.get('x-cache'), null);
  });
});
