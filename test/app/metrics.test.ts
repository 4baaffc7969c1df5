// GET /metrics: Prometheus text with the request, cache, rate-limit and
// data-age series; never rate limited. The cache series count the lookup
// cache, which only the network routes use (here DNS, on a loopback server).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDnsServer } from '../helpers/dns-server.js';
import { get, startService } from '../helpers/service.js';
import { createMetrics } from '../../src/observe/metrics.js';
import type { FastPathServer } from '../../src/http/fast-path.js';

function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(series));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('GET /metrics', () => {
  it("counts the fast path's requests and its hand-offs to node:http by reason", async (t) => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '1000' } });
    t.after(() => service.close());
    await get(service.baseUrl, '/ip/8.8.8.8'); // plain: the fast path's
    await get(service.baseUrl, '/ip/8.8.8.8');
    await get(service.baseUrl, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '["8.8.8.8"]',
    }); // a body: node:http's
    const stats = (service.app.server as FastPathServer).stats;
    const text = (await get(service.baseUrl, '/metrics')).text;
    // the scrape itself is a plain request, counted before it is answered
    assert.equal(sample(text, 'ipintel_fast_path_requests_total'), stats.plainRequests);
    assert.ok(stats.plainRequests >= 3, `${stats.plainRequests} plain requests`);
    assert.equal(
      sample(text, 'ipintel_fast_path_handoffs_total{reason="not-plain"}'),
      stats.handOffReasons['not-plain'],
    );
    assert.ok(stats.handOffReasons['not-plain'] >= 1);
    assert.equal(sample(text, 'ipintel_fast_path_handoffs_total{reason="traced"}'), 0);
  });

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

describe('createMetrics: the gauges read at scrape time, and prom-client loaded late', () => {
  it('renders the data-set ages, the last update per kind and the dependencies as they are at the scrape', async () => {
    const metrics = createMetrics(() => 10_000_000);
    metrics.dataSetAges(() => [
      { name: 'City', kind: 'geoip', at: 9_000_000 },
      { name: 'Undated', kind: 'asn', at: null },
    ]);
    metrics.dataUpdates(() => [
      { kind: 'geoip', outcome: 'unchanged', checkedAt: 9_500_000, succeededAt: 9_000_000 },
      { kind: 'asn', outcome: 'failed', checkedAt: 9_600_000, succeededAt: null },
    ]);
    let redis = 'up';
    metrics.dependencies(() => ({ redis }));
    const text = await metrics.render();
    assert.equal(sample(text, 'ipintel_data_set_age_seconds{name="City",kind="geoip"}'), 1000);
    assert.doesNotMatch(text, /ipintel_data_set_age_seconds\{name="Undated"/);
    const outcome = 'ipintel_data_update_last_outcome';
    assert.equal(sample(text, `${outcome}{kind="geoip",outcome="unchanged"}`), 1);
    assert.equal(sample(text, `${outcome}{kind="geoip",outcome="updated"}`), 0);
    assert.equal(sample(text, `${outcome}{kind="asn",outcome="failed"}`), 1);
    const times = 'ipintel_data_update_timestamp_seconds';
    assert.equal(sample(text, `${times}{kind="geoip",event="checked"}`), 9500);
    assert.equal(sample(text, `${times}{kind="geoip",event="succeeded"}`), 9000);
    assert.doesNotMatch(
      text,
      /ipintel_data_update_timestamp_seconds\{kind="asn",event="succeeded"/,
    );
    assert.equal(sample(text, 'ipintel_dependency_up{name="redis"}'), 1);
    redis = 'down';
    assert.equal(sample(await metrics.render(), 'ipintel_dependency_up{name="redis"}'), 0);
  });

  it('prom-client failing to load fails that scrape; the next one loads it again, and the counts made meanwhile are all there', async () => {
    let attempts = 0;
    const metrics = createMetrics(Date.now, async () => {
      attempts++;
      if (attempts === 1) throw new Error('cannot load prom-client');
      return import('../../src/later/prom-client.js');
    });
    metrics.prepare(); // the background load fails: nothing is thrown
    metrics.rateLimited();
    await assert.rejects(metrics.render(), /cannot load prom-client/);
    metrics.rateLimited();
    const text = await metrics.render();
    assert.equal(attempts, 2);
    assert.equal(sample(text, 'ipintel_rate_limited_total'), 2);
  });
});
