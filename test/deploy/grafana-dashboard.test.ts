// deploy/grafana/: the dashboard is valid JSON whose every query names only
// metrics a running service exports on /metrics (after a little traffic of
// each kind), so no panel stays empty for a name that does not exist; and
// it shows what an operator needs: rate, latency, errors, rate-limited share,
// cache hits, upstream errors, data age, feed age and workers. The alert
// rules are held to the same names (plus Prometheus' own `up`).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { startDnsServer, type DnsTestServer } from '../helpers/dns-server.js';
import { get, startService, type TestService } from '../helpers/service.js';

interface Panel {
  title: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'deploy', 'grafana', 'ipintel-dashboard.json'), 'utf8'),
) as { panels: Panel[]; templating: { list: { query?: unknown }[] } };
const rules = readFileSync(join(PROJECT_ROOT, 'deploy', 'prometheus', 'ipintel-rules.yml'), 'utf8');

/** The metric names a PromQL expression reads (the service's, prom-client's and Prometheus' up). */
function metricsOf(expr: string): string[] {
  return [...expr.matchAll(/\b((?:ipintel|process|nodejs)_[a-z0-9_]+|up(?=\{))/g)].map(
    (m) => m[1]!,
  );
}

/** Every sample name /metrics can carry: the families it declares (# TYPE), histograms' parts too. */
function exported(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram')
      for (const part of ['_bucket', '_sum', '_count']) names.add(name! + part);
    if (type === 'summary') for (const part of ['_sum', '_count']) names.add(name! + part);
  }
  return names;
}

describe('Grafana dashboard and alert rules', () => {
  let dns: DnsTestServer;
  let service: TestService;
  let names: Set<string>;
  before(async () => {
    dns = await startDnsServer({
      'example.test': { records: [{ type: 'A', data: '192.0.2.10', ttl: 300 }] },
    });
    service = await startService({
      env: { RATE_LIMIT_MAX: '4', DNS_SERVERS: `127.0.0.1:${dns.port}` },
    });
    await get(service.baseUrl, '/ip/8.8.8.8');
    await get(service.baseUrl, '/dns/example.test');
    await get(service.baseUrl, '/dns/missing.example.test');
    for (let i = 0; i < 3; i++) await get(service.baseUrl, '/ip/1.1.1.1'); // the last one is 429
    names = exported((await get(service.baseUrl, '/metrics')).text);
  });
  after(async () => {
    await service.close();
    await dns.close();
  });

  it('every dashboard query reads at least one metric, and only exported ones', () => {
    const queries = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => [p.title, t.expr]),
    );
    assert.ok(queries.length >= 10);
    for (const [title, expr] of queries) {
      const used = metricsOf(expr!);
      assert.ok(used.length > 0, `${title}: ${expr} reads no metric`);
      for (const name of used) assert.ok(names.has(name), `${title}: ${name} is not exported`);
    }
    const variables = JSON.stringify(dashboard.templating.list.map((v) => v.query ?? ''));
    for (const name of metricsOf(variables.replace(/label_values\(/g, ' '))) {
      assert.ok(names.has(name), `variable: ${name}`);
    }
  });

  it('every alert rule reads exported metrics (or Prometheus’ up)', () => {
    const exprs = [...rules.matchAll(/expr: (?:\|\n((?:\s{10}.*\n)+)|(.*))/g)].map(
      (m) => m[1] ?? m[2]!,
    );
    assert.equal(exprs.length, 7);
    for (const expr of exprs) {
      const used = metricsOf(expr);
      assert.ok(used.length > 0, expr);
      for (const name of used) assert.ok(name === 'up' || names.has(name), `${name} in ${expr}`);
    }
  });

  it('shows rate, latency, errors, rate-limited share, cache, upstream errors, ages and workers', () => {
    const all = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)).join('\n');
    for (const needed of [
      /rate\(ipintel_http_requests_total/,
      /ipintel_http_request_duration_seconds_bucket/,
      /status=~"5\.\."/,
      /ipintel_rate_limited_total/,
      /ipintel_cache_requests_total\{[^}]*result="hit"/,
      /ipintel_upstream_errors_total/,
      /ipintel_data_set_age_seconds\{[^}]*kind!~"feed:\.\*"/,
      /ipintel_data_set_age_seconds\{[^}]*kind=~"feed:\.\*"/,
      /ipintel_workers/,
    ]) {
      assert.match(all, needed);
    }
  });
});
