// Slow clients (slowloris: a request head sent one byte a second) are cut off
// by HEADERS_TIMEOUT_MS with a 408, and while they hang on, other clients are
// answered as fast as ever.
import { strict as assert } from 'node:assert';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startService, type TestService } from '../helpers/service.js';
import { timed } from '../helpers/wait.js';

const HEADERS_TIMEOUT_MS = 1_000;
const SLOW_CLIENTS = 50;

interface SlowOutcome {
  /** ms from connect to the server closing the connection */
  closedAfterMs: number;
  /** what the server wrote before closing */
  answer: string;
}

/** Sends a request head one byte a second, never finishing it. */
function slowClient(port: number): Promise<SlowOutcome> {
  const head = 'GET /ip/8.8.8.8 HTTP/1.1\r\nHost: slow.example\r\nX-Padding: ';
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(port, '127.0.0.1', () => {
      const drip = (): void => {
        socket.write(head[sent % head.length] ?? 'x');
        sent++;
        timer = setTimeout(drip, 1_000);
      };
      drip();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined); // a reset after the 408 is still a cut-off
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ closedAfterMs: performance.now() - started, answer });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error('the slow client was never cut off'));
    }, 15_000).unref();
  });
}

describe('slow clients', () => {
  let service: TestService;
  before(async () => {
    service = await startService({
      env: {
        HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        REQUEST_TIMEOUT_MS: '2000',
        RATE_LIMIT_MAX: '100000',
      },
    });
  });
  after(() => service.close());

  it('the server carries the configured timeouts and connection bound', () => {
    const server = service.app.server;
    assert.equal(server.headersTimeout, HEADERS_TIMEOUT_MS);
    assert.equal(server.requestTimeout, 2_000);
    assert.equal(server.keepAliveTimeout, 65_000);
    assert.equal(server.maxConnections, 10_000);
  });

  it('a head sent one byte a second is cut off with 408, and others are not delayed', async () => {
    const slow = Array.from({ length: SLOW_CLIENTS }, () => slowClient(service.port));
    // while they drip, ordinary clients ask one after another
    const latencies: number[] = [];
    const deadline = performance.now() + HEADERS_TIMEOUT_MS;
    while (performance.now() < deadline) {
      const { result, ms } = await timed(() => fetch(`${service.baseUrl}/ip/8.8.8.8`));
      assert.equal(result.status, 200);
      await result.arrayBuffer();
      latencies.push(ms);
    }
    const outcomes = await Promise.all(slow);
    for (const { closedAfterMs, answer } of outcomes) {
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /"code":"REQUEST_TIMEOUT"/);
      // Node checks every HEADERS_TIMEOUT_MS / 4: cut off soon after the timeout
      assert.ok(
        closedAfterMs >= HEADERS_TIMEOUT_MS * 0.9 && closedAfterMs < HEADERS_TIMEOUT_MS * 4,
        `closed after ${Math.round(closedAfterMs)} ms`,
      );
    }
    latencies.sort((a, b) => a - b);
    const median = latencies[Math.floor(latencies.length / 2)] ?? Infinity;
    assert.ok(latencies.length >= 5, `only ${latencies.length} requests answered in 1 s`);
    assert.ok(median < 100, `median latency ${median} ms beside ${SLOW_CLIENTS} slow clients`);
  });
});
