// /metrics under WORKERS (src/observe/cluster-metrics.ts): the primary sums the
// workers' metrics with prom-client's aggregation, and every wait is bounded.
// The IPC channels are in-process emitters; the metrics are real registries.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { clusterMetrics, serveClusterMetrics } from '../../src/observe/cluster-metrics.js';
import { AppError } from '../../src/kit/errors.js';
import { aggregateMetrics, createMetrics, type Metrics } from '../../src/observe/metrics.js';

/**
 * Bounds that only a hang reaches: the test then fails by what it gets, never
 * by a clock a busy machine may outrun (a 200 ms gathering bound missed the
 * workers' answers with both cores loaded)
 */
const HANG_MS = 60_000;

/**
 * A primary and `count` workers (each answering, or silent), wired by
 * emitters; the primary gathers for `gatherMs` at most, a worker waits
 * `answerMs` at most for the primary's sum.
 */
function cluster(
  count: number,
  silent: ReadonlySet<number> = new Set(),
  gatherMs = HANG_MS,
  answerMs = HANG_MS,
) {
  const primary = new EventEmitter();
  const workers: Worker[] = [];
  const locals: Metrics[] = [];
  const views: Metrics[] = [];
  for (let i = 0; i < count; i++) {
    const toWorker = new EventEmitter();
    const worker = {
      id: i + 1,
      isConnected: () => true,
      send: (message: unknown) => {
        setImmediate(() => toWorker.emit('message', message));
        return true;
      },
    } as unknown as Worker;
    workers.push(worker);
    const local = createMetrics();
    locals.push(local);
    views.push(
      clusterMetrics(
        local,
        {
          send: (message) => {
            if (!silent.has(i)) setImmediate(() => primary.emit('message', worker, message));
            return true;
          },
          onMessage: (listener) => void toWorker.on('message', listener),
        },
        answerMs,
      ),
    );
  }
  serveClusterMetrics(
    (listener) => void primary.on('message', listener),
    () => workers,
    (parts) => aggregateMetrics(parts),
    gatherMs,
  );
  return { locals, views };
}

const count = (text: string, route: string) =>
  Number(
    new RegExp(
      `^ipintel_http_requests_total\\{route="${route}",method="GET",status="200"\\} (\\d+)$`,
      'm',
    ).exec(text)?.[1] ?? NaN,
  );

describe('cluster metrics', () => {
  it('a scrape of any worker counts every worker', async () => {
    const { locals, views } = cluster(3);
    locals.forEach((m, i) => {
      for (let n = 0; n <= i; n++) m.observeRequest('/ip/:ip', 'GET', 200, 0.001);
    });
    locals[0]!.dependencies(() => ({ redis: 'up' }));
    locals[1]!.dependencies(() => ({ redis: 'down' }));
    locals[2]!.dependencies(() => ({ redis: 'up' }));
    for (const view of views) {
      const text = await view.render();
      assert.equal(count(text, '/ip/:ip'), 6, 'requests summed: 1 + 2 + 3');
      assert.match(
        text,
        /^ipintel_dependency_up\{name="redis"\} 0$/m,
        'down when any worker sees it down',
      );
      assert.match(
        text,
        /^ipintel_http_request_duration_seconds_count\{route="\/ip\/:ip",status="200"\} 6$/m,
      );
    }
  });

  it('a worker that does not answer misses the scrape; the others are summed within the bound', async () => {
    // the primary gathers for 150 ms; the worker would wait for its sum far
    // longer (and then answer 503): an answer at all is the gathering bound's
    const { locals, views } = cluster(2, new Set([1]), 150, HANG_MS);
    locals[0]!.observeRequest('/cidr', 'GET', 200, 0.001);
    locals[1]!.observeRequest('/cidr', 'GET', 200, 0.001);
    const text = await views[0]!.render();
    assert.equal(count(text, '/cidr'), 1);
  });

  it('a primary that does not answer: 503 after the bound, never a hang', async () => {
    const local = createMetrics();
    const view = clusterMetrics(local, { send: () => true, onMessage: () => undefined }, 100);
    await assert.rejects(view.render(), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      return true;
    });
    const noChannel = clusterMetrics(local, { send: () => false, onMessage: () => undefined }, 100);
    await assert.rejects(noChannel.render(), /no channel/);
  });
});
