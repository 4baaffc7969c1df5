// What tracing code sees of the requests the fast path serves. First the
// diagnostics_channel messages node:http publishes for each request
// (`http.server.request.start`, `http.server.response.finish`, with
// request, response, socket and server): the fast path publishes the same,
// with objects that read as node:http's do (method, url, headers;
// statusCode). Then the real OpenTelemetry Node SDK with its HTTP
// instrumentation, which wraps http.Server's emit to see 'request': one
// server span per request whichever way it came (the fast path hands such a
// server's connections to node:http: see docs/design.md).
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import type { FastPathServer } from '../../src/http/fast-path.js';
import { play } from '../helpers/raw-play.js';
import { startService, type TestService } from '../helpers/service.js';

const PLAIN = 'GET /ip/8.8.8.8 HTTP/1.1\r\nHost: a\r\n\r\n';
const BODY = '["8.8.8.8"]';
const POST = `POST /batch HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${BODY}`;

interface Published {
  request: { method?: string; url?: string; headers: Record<string, unknown> };
  response: { statusCode: number };
  server: unknown;
}

describe("node:http's diagnostics_channel messages from the fast path", () => {
  let services: TestService[] = [];
  before(async () => {
    services = [
      await startService({ env: { RATE_LIMIT_MAX: '1000' } }),
      await startService({ env: { RATE_LIMIT_MAX: '1000', FAST_PATH: 'false' } }),
    ];
  });
  after(async () => {
    for (const service of services) await service.close();
  });

  it('one request.start and one response.finish per request, on both paths, with readable objects', async () => {
    for (const service of services) {
      const started: Published[] = [];
      const finished: Published[] = [];
      const onStart = (message: unknown): void => void started.push(message as Published);
      const onFinish = (message: unknown): void => void finished.push(message as Published);
      subscribe('http.server.request.start', onStart);
      subscribe('http.server.response.finish', onFinish);
      try {
        const outcome = await play(service.port, [PLAIN + PLAIN, POST], { expect: 3 });
        assert.deepEqual(outcome.statuses, [200, 200, 200]);
      } finally {
        unsubscribe('http.server.request.start', onStart);
        unsubscribe('http.server.response.finish', onFinish);
      }
      const fastPath = service.config.fastPath ? 'fast path' : 'FAST_PATH=false';
      assert.equal(started.length, 3, fastPath);
      assert.equal(finished.length, 3, fastPath);
      assert.deepEqual(
        started.map((m) => [m.request.method, m.request.url, m.request.headers['host']]),
        [
          ['GET', '/ip/8.8.8.8', 'a'],
          ['GET', '/ip/8.8.8.8', 'a'],
          ['POST', '/batch', 'a'],
        ],
        fastPath,
      );
      assert.deepEqual(
        finished.map((m) => m.response.statusCode),
        [200, 200, 200],
      );
      for (const message of [...started, ...finished]) {
        assert.equal(message.server, service.app.server, fastPath);
      }
    }
    // the plain ones were the fast path's
    assert.ok((services[0]!.app.server as FastPathServer).stats.plainRequests >= 2);
  });
});

describe('OpenTelemetry: the Node SDK and its HTTP instrumentation', () => {
  it('one server span per request, with method, route target and status, fast path on and off', async (t) => {
    const { NodeTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
      await import('@opentelemetry/sdk-trace-node');
    const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
    const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
    const { SpanKind } = await import('@opentelemetry/api');
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    provider.register();
    const unregister = registerInstrumentations({
      instrumentations: [new HttpInstrumentation()],
      tracerProvider: provider,
    });
    t.after(async () => {
      unregister();
      await provider.shutdown();
    });
    // the instrumentation patches node:http when it is required (as an
    // application that loads it first, with --require, has it patched)
    createRequire(import.meta.url)('node:http');
    for (const fastPath of ['true', 'false']) {
      const service = await startService({
        env: { RATE_LIMIT_MAX: '1000', FAST_PATH: fastPath },
      });
      try {
        exporter.reset();
        const outcome = await play(service.port, [PLAIN + PLAIN, POST], { expect: 3 });
        assert.deepEqual(outcome.statuses, [200, 200, 200]);
        // a span ends when its response does; the exporter has it within a turn
        await new Promise((r) => setTimeout(r, 50));
        const spans = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
        assert.equal(spans.length, 3, `FAST_PATH=${fastPath}: ${spans.length} server spans`);
        const attributes = spans.map((s) => s.attributes);
        assert.deepEqual(
          attributes.map((a) => [
            a['http.request.method'] ?? a['http.method'],
            a['url.path'] ?? a['http.target'],
            a['http.response.status_code'] ?? a['http.status_code'],
          ]),
          [
            ['GET', '/ip/8.8.8.8', 200],
            ['GET', '/ip/8.8.8.8', 200],
            ['POST', '/batch', 200],
          ],
          `FAST_PATH=${fastPath}`,
        );
        if (fastPath === 'true') {
          const stats = (service.app.server as FastPathServer).stats;
          assert.ok(
            stats.handOffReasons.traced >= 1,
            "the traced server's connections went to node:http",
          );
        }
      } finally {
        await service.close();
      }
    }
  });
});
