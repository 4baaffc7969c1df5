// GET /metrics: Prometheus text with the request, cache, rate-limit and
// data-age series; never rate limited.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { get, startService } from '../helpers/service.js';

function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('counts requests per route and status, cache hits and misses, and rate-limit refusals', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '3' } });
    t.after(() => service.close());
    await get(service.baseUrl, '/ip/8.8.8.8'); // miss
    await get(service.baseUrl, '/ip/8.8.8.8'); // hit
    await get(service.baseUrl, '/nope'); // 404, unmatched
    await get(service.baseUrl, '/ip/1.1.1.1'); // 429
    const res = await get(service.baseUrl, '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    assert.equal(
      sample(text, 'ipintel_http_requests_total{route="/ip/:ip",method="GET",status="200"}'),
      2,
    );
    assert.equal(
      sample(text, 'ipintel_http_requests_total{route="unmatched",method="GET",status="404"}'),
      1,
    );
    assert.equal(
      sample(text, 'ipintel_http_requests_total{route="/ip/:ip",method="GET",status="429"}'),
      1,
    );
    assert.equal(sample(text, 'ipintel_cache_requests_total{endpoint="geoip",result="miss"}'), 1);
    assert.equal(sample(text, 'ipintel_cache_requests_total{endpoint="geoip",result="hit"}'), 1);
    assert.equal(sample(text, 'ipintel_rate_limited_total'), 1);
    const age = sample(text, 'ipintel_data_set_age_seconds{name="DB-IP Lite City');
    assert.ok(age !== null && age > 0, 'the embedded data set has an age');
    assert.match(
      text,
      /ipintel_http_request_duration_seconds_bucket\{le="0.001",route="\/ip\/:ip"/,
    );
  });

  it('is not rate limited', async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '1' } });
    t.after(() => service.close());
    for (let i = 0; i < 5; i++) {
      const res = await get(service.baseUrl, '/metrics');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), null);
    }
  });
});
