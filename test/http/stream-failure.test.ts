// A streamed answer (GET /ranges is one) whose maker fails partway: the
// client gets a chunked body without its end (an error, never a list that
// looks whole) and the failure is logged with the request's id; a client
// that goes away partway is not logged as a failure.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { buildApp, type App } from '../../src/app.js';
import { LookupCache } from '../../src/cache/lookup-cache.js';
import { MemoryCacheStore } from '../../src/cache/cache-store.js';
import { loadConfig } from '../../src/config.js';
import { silentAccessLog } from '../../src/http/access-log.js';
import { defineHandler, route } from '../../src/http/route.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';
import { z } from 'zod';

const logged: Record<string, unknown>[] = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  }),
);

let endless = 0;
const streamed = (chunks: () => AsyncIterable<string>) =>
  defineHandler({
    summary: 'a streamed test answer',
    tags: ['test'],
    response: z.string(),
    errors: [],
    raw: true,
    // node:http answers it (as GET /ranges), never the fast path
    streamed: true,
    handle: () => ({ body: null, stream: chunks(), contentType: 'text/plain' }),
  });

async function* breaksAfterOne(): AsyncIterable<string> {
  yield 'first line\n';
  await nextTurn();
  throw new Error('the maker broke');
}

async function* neverEnds(): AsyncIterable<string> {
  for (;;) {
    endless++;
    yield `${'x'.repeat(1000)}\n`;
    await nextTurn();
  }
}

let app: App;
let port = 0;

before(async () => {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  app = buildApp(config, {
    log,
    accessLog: silentAccessLog,
    now: Date.now,
    cache: new LookupCache(new MemoryCacheStore(0)),
    rateLimitStore: new MemoryRateLimitStore(),
    routes: [
      route('GET', '/broken', streamed(breaksAfterOne), { limited: false }),
      route('GET', '/endless', streamed(neverEnds), { limited: false }),
    ],
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  port = (app.server.address() as AddressInfo).port;
});

after(() => {
  app.server.closeAllConnections();
  app.server.close();
});

/** GET `path`: the body received and how the response ended. */
function get(path: string, abortAfterBytes = Infinity) {
  return new Promise<{ status: number; body: string; complete: boolean }>((resolve) => {
    const req = request({ port, path, host: '127.0.0.1' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
        if (body.length >= abortAfterBytes) req.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete }));
    });
    req.on('error', () => undefined);
    req.end();
  });
}

/**
 * The log's line `msg`: written as the pipeline ends, which is before the
 * client sees the connection close; a few turns of the event loop at most.
 */
async function loggedLine(msg: string): Promise<Record<string, unknown>> {
  for (let turns = 0; turns < 1000; turns++) {
    const line = logged.find((l) => l['msg'] === msg);
    if (line !== undefined) return line;
    await nextTurn();
  }
  assert.fail(`no "${msg}" in the log: ${JSON.stringify(logged)}`);
}

describe('a streamed answer', () => {
  it('whose maker fails partway: the client gets an unfinished body, the failure is logged with the request id', async () => {
    const answer = await get('/broken');
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'first line\n');
    assert.equal(answer.complete, false, 'the chunked body has no end: the client knows it is cut');
    const line = await loggedLine('streamed answer failed partway');
    assert.equal((line['err'] as { message: string }).message, 'the maker broke');
    assert.equal(typeof line['reqId'], 'string');
  });

  it('whose client goes away partway: the maker stops, and nothing is logged as a failure', async () => {
    const failures = logged.length;
    const answer = await get('/endless', 5000);
    assert.equal(answer.complete, false);
    const madeBy = endless;
    // the pipeline ends with the client gone: the generator is returned, no more chunks made
    for (let turns = 0; turns < 50; turns++) await nextTurn();
    assert.ok(endless - madeBy <= 64, `chunks made after the client left: ${endless - madeBy}`);
    const sinceThen = logged
      .slice(failures)
      .filter((l) => l['msg'] === 'streamed answer failed partway');
    assert.deepEqual(sinceThen, []);
  });
});
