// FastCounter / FastHistogram: plain-number series rendered by prom-client's
// registry in the Prometheus text format.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { FastCounter, FastHistogram } from '../src/observe/request-stats.js';

describe('request stats', () => {
  it('a counter keeps one series per label set', async () => {
    const registry = new Registry();
    const counter = new FastCounter('demo_total', 'Demo counter');
    counter.register(registry);
    for (let i = 0; i < 3; i++) counter.series({ route: '/a', status: '200' }).value++;
    const kept = counter.series({ route: '/b', status: '404' });
    kept.value++;
    assert.equal(counter.series({ route: '/b', status: '404' }), kept, 'one series per label set');
    const text = await registry.metrics();
    assert.match(text, /^# HELP demo_total Demo counter$/m);
    assert.match(text, /^# TYPE demo_total counter$/m);
    assert.match(text, /^demo_total\{route="\/a",status="200"\} 3$/m);
    assert.match(text, /^demo_total\{route="\/b",status="404"\} 1$/m);
  });

  it('a counter without labels renders its one series without braces', async () => {
    const registry = new Registry();
    const counter = new FastCounter('plain_total', 'Plain counter');
    counter.register(registry);
    counter.series({}).value += 2;
    assert.match(await registry.metrics(), /^plain_total 2$/m);
  });

  it('a histogram renders cumulative buckets, +Inf, sum and count', async () => {
    const registry = new Registry();
    const histogram = new FastHistogram('demo_seconds', 'Demo latency', [0.01, 0.1, 1]);
    histogram.register(registry);
    const series = histogram.series({ route: '/a' });
    for (const value of [0.005, 0.01, 0.05, 0.5, 3]) series.observe(value);
    const text = await registry.metrics();
    assert.match(text, /^# TYPE demo_seconds histogram$/m);
    assert.match(text, /^demo_seconds_bucket\{le="0.01",route="\/a"\} 2$/m);
    assert.match(text, /^demo_seconds_bucket\{le="0.1",route="\/a"\} 3$/m);
    assert.match(text, /^demo_seconds_bucket\{le="1",route="\/a"\} 4$/m);
    assert.match(text, /^demo_seconds_bucket\{le="\+Inf",route="\/a"\} 5$/m);
    assert.match(text, /^demo_seconds_sum\{route="\/a"\} 3.565$/m);
    assert.match(text, /^demo_seconds_count\{route="\/a"\} 5$/m);
  });
});
