// The access line: pino's JSON line format written by hand, batched per
// event-loop turn; every line must parse whatever the request carried.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatchedAccessLog, jsonString, millisecondsText } from '../../src/http/access-log.js';

describe('jsonString', () => {
  for (const text of [
    '/ip/8.8.8.8',
    'a"b',
    'back\\slash',
    'tab\there',
    'nul\u0000',
    'del\u007f',
    'é ü 漢字',
    '😀',
    'lone \ud800 surrogate',
    '',
  ]) {
    it(`${JSON.stringify(text)} round-trips and matches JSON.stringify`, () => {
      assert.equal(JSON.parse(jsonString(text)), text);
      assert.equal(jsonString(text), JSON.stringify(text));
    });
  }
});

describe('millisecondsText', () => {
  it('is what String() writes, for durations rounded to hundredths as the pipeline does', () => {
    const values = [0, 0.01, 0.07, 0.1, 0.5, 1, 1.05, 9.99, 10, 12.3, 100.01, 86_400_000.25];
    for (let i = 0; i < 200_000; i++) values.push(Math.round(Math.random() * 10 ** (i % 9)) / 100);
    for (const ms of values) {
      assert.equal(millisecondsText(ms), String(ms), `for ${ms}`);
    }
  });

  it('falls back to String() for what is not in hundredths (or not a duration)', () => {
    for (const ms of [1.234, -1, 1e300, Number.NaN, 0.001, 21_474_836.48, 1e12 + 0.5]) {
      assert.equal(millisecondsText(ms), String(ms));
    }
  });
});

describe('BatchedAccessLog', () => {
  it('writes the lines of a short while as one chunk, one JSON line per request', async () => {
    const chunks: string[] = [];
    const log = new BatchedAccessLog(
      { write: (chunk) => chunks.push(chunk) },
      () => 1_700_000_000_000,
      { maxDelayMs: 20, maxBytes: 1_000_000 },
    );
    log.record({
      reqId: 'r1',
      method: 'GET',
      url: '/ip/8.8.8.8',
      status: 200,
      ip: '127.0.0.1',
      ms: 0.12,
    });
    log.record({ reqId: 'r2', method: 'GET', url: '/x?q="\\\n', status: 404, ip: '::1', ms: 1 });
    // beyond ASCII: the string path (escaped by JSON.stringify, then UTF-8)
    log.record({ reqId: 'r3', method: 'GET', url: '/x?q=Zürich"', status: 404, ip: '::1', ms: 1 });
    assert.equal(chunks.length, 0, 'nothing is written at once');
    await sleep(60);
    assert.equal(chunks.length, 1);
    const lines = (chunks[0] ?? '')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.equal(lines.length, 3);
    assert.equal(lines[2]?.['url'], '/x?q=Zürich"');
    assert.deepEqual(
      { ...lines[1], pid: 0, hostname: '' },
      {
        level: 30,
        time: 1_700_000_000_000,
        pid: 0,
        hostname: '',
        reqId: 'r2',
        method: 'GET',
        url: '/x?q="\\\n',
        status: 404,
        ip: '::1',
        ms: 1,
        msg: 'request',
      },
    );
    assert.equal(lines[0]?.['pid'], process.pid);
  });

  it('writes at once when maxBytes gather, and flush() writes what waits', () => {
    const chunks: string[] = [];
    const log = new BatchedAccessLog({ write: (chunk) => chunks.push(chunk) }, Date.now, {
      maxDelayMs: 60_000,
      maxBytes: 300,
    });
    const entry = { reqId: 'r', method: 'GET', url: '/healthz', status: 200, ip: '::1', ms: 0 };
    log.record(entry);
    assert.equal(chunks.length, 0);
    log.record(entry);
    assert.equal(chunks.length, 1, 'two ~170-byte lines pass 300 bytes');
    log.record(entry);
    log.flush();
    assert.equal(chunks.length, 2);
    assert.equal(chunks[1]?.split('\n').length, 2);
    log.flush();
    assert.equal(chunks.length, 2, 'nothing left to write');
  });
});
