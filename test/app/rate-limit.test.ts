// RATE_LIMIT_MAX per client per window, over real sockets: headers on every
// limited answer, 429 with Retry-After and the envelope beyond the limit,
// exact under a parallel burst, operations endpoints exempt.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, it } from 'node:test';
import { TestClock } from '../helpers/clock.js';
import { inject } from '../helpers/inject.js';
import { errorCode, get, startService } from '../helpers/service.js';

/** One request on its own connection (no pooling limit), status only. */
function status(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('rate limiting over HTTP (RATE_LIMIT_MAX=60)', () => {
  it('60 requests pass with counting headers; the 61st is 429 RATE_LIMITED with Retry-After', async (t) => {
    const clock = new TestClock();
    const service = await startService({
      env: { RATE_LIMIT_MAX: '60' },
      overrides: { now: clock.now },
    });
    t.after(() => service.close());
    for (let i = 1; i <= 60; i++) {
      const res = await get(service.baseUrl, i % 2 ? '/ip/8.8.8.8' : '/cidr?range=10.0.0.0/8');
      assert.equal(res.status, 200, `request ${i}`);
      assert.equal(res.headers.get('ratelimit-limit'), '60');
      assert.equal(res.headers.get('ratelimit-remaining'), String(60 - i));
      assert.equal(res.headers.get('ratelimit-reset'), '60');
      assert.equal(res.headers.get('retry-after'), null);
    }
    clock.advance(15_500);
    const res = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(res.status, 429);
    assert.equal(errorCode(res.body), 'RATE_LIMITED');
    assert.match((res.body as { error: { message: string } }).error.message, /60/);
    assert.equal(res.headers.get('retry-after'), '45');
    assert.equal(res.headers.get('ratelimit-limit'), '60');
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
    assert.equal(res.headers.get('ratelimit-reset'), '45');
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    // every kind of route is refused, and errors of other kinds are too
    assert.equal((await get(service.baseUrl, '/cidr?range=1.2.3.4/32')).status, 429);
    assert.equal((await get(service.baseUrl, '/nope')).status, 429);
    assert.equal((await get(service.baseUrl, '/ip/not-an-ip')).status, 429);
    // operations endpoints are not limited
    const health = await get(service.baseUrl, '/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.headers.get('ratelimit-limit'), null);
    assert.equal((await get(service.baseUrl, '/readyz')).status, 200);
    // the window closes: counting starts again
    clock.advance(45_000);
    const again = await get(service.baseUrl, '/ip/8.8.8.8');
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('ratelimit-remaining'), '59');
  });

  it('a burst of 100 parallel requests lets exactly 60 through', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '60' } });
    t.after(() => service.close());
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => status(service.port, `/ip/8.8.${i % 4}.8`)),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses.filter((s) => s === 429).length, 40);
  });

  it('errors count against the limit and carry the RateLimit headers', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '3' } });
    t.after(() => service.close());
    for (const path of ['/nope', '/ip/bad', '/cidr']) {
      const res = await get(service.baseUrl, path);
      assert.ok([400, 404].includes(res.status));
      assert.ok(res.headers.get('ratelimit-remaining') !== null, path);
    }
    assert.equal((await get(service.baseUrl, '/ip/8.8.8.8')).status, 429);
  });

  it('clients are counted apart; IPv6 clients per /64 (in process)', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '2' } });
    t.after(() => service.close());
    const hit = async (remoteAddress: string) =>
      (await inject(service.app.server, { path: '/ip/8.8.8.8', remoteAddress })).status;
    assert.deepEqual(
      [await hit('198.51.100.1'), await hit('198.51.100.1'), await hit('198.51.100.1')],
      [200, 200, 429],
    );
    assert.equal(await hit('198.51.100.2'), 200);
    assert.deepEqual(
      [
        await hit('2001:db8:1:1::1'),
        await hit('2001:db8:1:1::2'),
        await hit('2001:db8:1:1:ffff::9'),
      ],
      [200, 200, 429],
    );
    assert.equal(await hit('2001:db8:1:2::1'), 200);
  });

  it('OPTIONS preflights are not counted', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '1' } });
    t.after(() => service.close());
    for (let i = 0; i < 3; i++) {
      assert.equal((await get(service.baseUrl, '/ip/8.8.8.8', { method: 'OPTIONS' })).status, 204);
    }
    assert.equal((await get(service.baseUrl, '/ip/8.8.8.8')).status, 200);
  });
});

describe('readiness', () => {
  it('/readyz → 503 SERVICE_UNAVAILABLE while isReady() is false, 200 once it is true', async (t) => {
    let ready = false;
    const service = await startService({ overrides: { isReady: () => ready } });
    t.after(() => service.close());
    const res = await get(service.baseUrl, '/readyz');
    assert.equal(res.status, 503);
    assert.equal(errorCode(res.body), 'SERVICE_UNAVAILABLE');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal((await get(service.baseUrl, '/healthz')).status, 200);
    ready = true;
    assert.equal((await get(service.baseUrl, '/readyz')).status, 200);
  });
});
