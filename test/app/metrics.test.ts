// GET /metrics: Prometheus text with the request, cache, rate-limit and
// data-age series; never rate limited. The cache series count the lookup
// cache, which only the network routes use (here DNS, on a loopback server).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDnsServer } from '../helpers/dns-server.js';
import { get, startService } from '../helpers/service.js';

function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it('counts requests per route and status, cache hits and misses, and rate-limit refusals', async (t) => {
    const dns = await startDnsServer({
      'example.test': { records: [{ type: 'A', data: '192.0.2.10', ttl: 300 }] },
    });
    t.after(() => dns.close());
    const service = await startService({
      env: { RATE_LIMIT_MAX: '5', DNS_SERVERS: `127.0.0.1:${dns.port}` },
    });
    t.after(() => service.close());
    await get(service.baseUrl, '/ip/8.8.8.8'); // computed: no cache series
    await get(service.baseUrl, '/ip/8.8.8.8');
    await get(service.baseUrl, '/dns/example.test'); // miss
    await get(service.baseUrl, '/dns/example.test'); // hit
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
    assert.equal(
      sample(text, 'ipintel_http_requests_total{route="/dns/:domain",method="GET",status="200"}'),
      2,
    );
    assert.equal(sample(text, 'ipintel_cache_requests_total{endpoint="dns",result="miss"}'), 1);
    assert.equal(sample(text, 'ipintel_cache_requests_total{endpoint="dns",result="hit"}'), 1);
    // GeoIP answers are computed from the tables: they never ask the lookup cache
    assert.doesNotMatch(text, /ipintel_cache_requests_total\{endpoint="geoip"/);
    assert.equal(sample(text, 'ipintel_rate_limited_total'), 1);
    const age = sample(text, 'ipintel_data_set_age_seconds{name="DB-IP Lite City');
    assert.ok(age !== null && age > 0, 'the embedded data set has an age');
    // the ASN source carries no build date: its age counts from its compilation
    const asnAge = sample(text, 'ipintel_data_set_age_seconds{name="RouteViews + DB-IP ASN');
    assert.ok(asnAge !== null && asnAge >= 0, 'the embedded ASN data set has an age');
    assert.match(
      text,
      /ipintel_http_request_duration_seconds_bucket\{le="0.001",route="\/ip\/:ip"/,
    );
    // the DNS miss asked the upstream once, and it answered
    assert.equal(
      sample(text, 'ipintel_upstream_duration_seconds_count{kind="dns",outcome="ok"}'),
      1,
    );
    assert.doesNotMatch(text, /^ipintel_upstream_errors_total\{/m);
    // Node's own metrics (prom-client's defaults) are there too. The CPU counters
    // count from when prom-client was loaded (here: this first scrape), so they
    // may still read 0 on a kernel that accounts CPU time by ticks; the memory
    // gauges are read at the scrape
    assert.ok((sample(text, 'process_cpu_user_seconds_total') ?? -1) >= 0);
    assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 10_000_000);
    assert.ok((sample(text, 'nodejs_heap_size_used_bytes') ?? 0) > 1_000_000);
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
