// The lookup cache seen through HTTP: X-Cache, Cache-Control lifetimes of
// SPEC.md, byte-identical hits, expiry against an injected clock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TestClock } from '../helpers/clock.js';
import { get, startService, type TestService } from '../helpers/service.js';

const DAY = 86_400;

describe('cache over HTTP', () => {
  const clock = new TestClock();
  let service: TestService;
  before(async () => {
    service = await startService({
      env: { RATE_LIMIT_MAX: '100000' },
      overrides: { now: clock.now },
    });
  });
  after(() => service.close());

  it('first /ip/8.8.8.8 → MISS, second → HIT with the identical body', async () => {
    const first = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(first.headers.get('x-cache'), 'MISS');
    assert.equal(first.headers.get('cache-control'), `public, max-age=${DAY}`);
    clock.advance(10_000);
    const second = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.equal(second.text, first.text);
    const maxAge = Number(/max-age=(\d+)/.exec(second.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(maxAge <= DAY, `${maxAge}`);
    assert.equal(maxAge, DAY - 10);
    assert.match(second.headers.get('cache-control') ?? '', /^public, /);
    // from the third request on, the URL's checked input is remembered: same answer
    clock.advance(5_000);
    const third = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(third.headers.get('x-cache'), 'HIT');
    assert.equal(third.text, first.text);
    assert.equal(third.headers.get('cache-control'), `public, max-age=${DAY - 15}`);
    assert.equal(third.headers.get('content-length'), String(Buffer.byteLength(first.text)));
  });

  it('a remembered URL still expires with its cache entry', async () => {
    for (let i = 0; i < 3; i++) await get(service.baseUrl, '/ip/149.112.112.112');
    clock.advance(DAY * 1000);
    const expired = await get(service.baseUrl, '/ip/149.112.112.112');
    assert.equal(expired.headers.get('x-cache'), 'MISS');
    assert.equal(expired.headers.get('cache-control'), `public, max-age=${DAY}`);
    assert.equal((JSON.parse(expired.text) as { data: { ip: string } }).data.ip, '149.112.112.112');
  });

  it('::ffff:1.1.1.1 and 1.1.1.1 share one entry', async () => {
    assert.equal((await get(service.baseUrl, '/ip/::ffff:1.1.1.1')).headers.get('x-cache'), 'MISS');
    assert.equal((await get(service.baseUrl, '/ip/1.1.1.1')).headers.get('x-cache'), 'HIT');
  });

  it('GET /ip is cached privately', async () => {
    const first = await get(service.baseUrl, '/ip');
    assert.match(first.headers.get('cache-control') ?? '', /^private, max-age=\d+$/);
    assert.ok(['HIT', 'MISS'].includes(first.headers.get('x-cache') ?? ''));
    const second = await get(service.baseUrl, '/ip');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.match(second.headers.get('cache-control') ?? '', /^private, /);
  });

  it('/cidr → Cache-Control: no-store and no X-Cache', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await get(service.baseUrl, '/cidr?range=192.168.0.0/16');
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-cache'), null);
    }
  });

  it('errors are never cached: no-store, no X-Cache', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await get(service.baseUrl, '/ip/999.1.1.1');
      assert.equal(res.status, 400);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-cache'), null);
    }
  });

  it('an entry expires after 24 hours of the injected clock', async () => {
    assert.equal((await get(service.baseUrl, '/ip/9.9.9.9')).headers.get('x-cache'), 'MISS');
    clock.advance(DAY * 1000 - 1000);
    const late = await get(service.baseUrl, '/ip/9.9.9.9');
    assert.equal(late.headers.get('x-cache'), 'HIT');
    assert.equal(late.headers.get('cache-control'), 'public, max-age=1');
    clock.advance(1000);
    const expired = await get(service.baseUrl, '/ip/9.9.9.9');
    assert.equal(expired.headers.get('x-cache'), 'MISS');
    assert.equal(expired.headers.get('cache-control'), `public, max-age=${DAY}`);
  });

  it('HEAD fills and reads the same entry as GET', async () => {
    assert.equal(
      (await get(service.baseUrl, '/ip/4.4.4.4', { method: 'HEAD' })).headers.get('x-cache'),
      'MISS',
    );
    assert.equal((await get(service.baseUrl, '/ip/4.4.4.4')).headers.get('x-cache'), 'HIT');
  });
});

describe('CACHE_MAX_ENTRIES=0', () => {
  it('disables the cache: every answer is a MISS', async (t) => {
    const service = await startService({ env: { CACHE_MAX_ENTRIES: '0' } });
    t.after(() => service.close());
    for (let i = 0; i < 3; i++) {
      assert.equal((await get(service.baseUrl, '/ip/8.8.8.8')).headers.get('x-cache'), 'MISS');
    }
  });
});
