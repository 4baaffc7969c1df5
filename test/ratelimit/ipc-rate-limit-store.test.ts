// IpcRateLimitStore without a cluster: a fake IPC port stands for the channel
// to the primary. Replies are matched by id; a primary that does not answer in
// time, or no channel at all, falls back to the worker's own memory store; a
// late reply is dropped. serveRateLimits counts every worker in one store.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import {
  IpcRateLimitStore,
  serveRateLimits,
  type IpcPort,
  type RateLimitRequest,
} from '../../src/ratelimit/ipc-rate-limit-store.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';

/** A port whose sent requests the test answers (or not) by hand. */
function fakePort(connected = true): IpcPort & {
  sent: RateLimitRequest[];
  deliver(message: unknown): void;
} {
  const listeners: ((message: unknown) => void)[] = [];
  const sent: RateLimitRequest[] = [];
  return {
    sent,
    send: (message) => {
      if (!connected) return false;
      sent.push(message);
      return true;
    },
    onMessage: (listener) => void listeners.push(listener),
    deliver: (message) => listeners.forEach((l) => l(message)),
  };
}

describe('IpcRateLimitStore', () => {
  it("resolves with the primary's count, matched by id", async () => {
    const port = fakePort();
    const store = new IpcRateLimitStore(new MemoryRateLimitStore(), port, 1_000);
    const first = store.hit('1.2.3.4', 60_000);
    const second = store.hit('1.2.3.4', 60_000);
    const [a, b] = port.sent;
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a.type, 'ipintel:ratelimit');
    assert.deepEqual([a.key, a.windowMs], ['1.2.3.4', 60_000]);
    assert.notEqual(a.id, b.id);
    // answered out of order, and one message for somebody else is ignored
    port.deliver({ type: 'other', id: a.id });
    port.deliver({ type: 'ipintel:ratelimit:reply', id: b.id, count: 8, resetAt: 2_000 });
    port.deliver({ type: 'ipintel:ratelimit:reply', id: a.id, count: 7, resetAt: 1_000 });
    assert.deepEqual(await first, { count: 7, resetAt: 1_000 });
    assert.deepEqual(await second, { count: 8, resetAt: 2_000 });
    assert.equal(store.inFlight, 0);
  });

  it('falls back to the local store when the primary does not answer in time', async () => {
    const port = fakePort();
    const fallback = new MemoryRateLimitStore();
    const store = new IpcRateLimitStore(fallback, port, 30);
    const started = performance.now();
    const hit = await store.hit('k', 60_000);
    assert.ok(performance.now() - started >= 25);
    assert.equal(hit.count, 1);
    assert.equal(fallback.size, 1);
    assert.equal(store.inFlight, 0);
    // the late reply changes nothing and throws nothing
    const id = port.sent[0]?.id;
    port.deliver({ type: 'ipintel:ratelimit:reply', id, count: 99, resetAt: 0 });
    assert.equal((await store.hit('k', 60_000)).count, 2);
  });

  it('counts locally at once when there is no channel', async () => {
    const store = new IpcRateLimitStore(new MemoryRateLimitStore(), fakePort(false), 10_000);
    const started = performance.now();
    assert.equal((await store.hit('k', 1_000)).count, 1);
    assert.ok(performance.now() - started < 1_000);
  });
});

describe('serveRateLimits', () => {
  it('counts the hits of every worker in one store and answers each by id', () => {
    const counters = new MemoryRateLimitStore();
    const replies: unknown[][] = [[], []];
    const workers = replies.map((out) => {
      const worker = new EventEmitter() as EventEmitter & {
        isConnected(): boolean;
        send(message: unknown): boolean;
      };
      worker.isConnected = () => true;
      worker.send = (message) => out.push(message) > 0;
      serveRateLimits(worker as unknown as Worker, counters);
      return worker;
    });
    workers[0]?.emit('message', { type: 'ipintel:ratelimit', id: 1, key: 'c', windowMs: 1_000 });
    workers[1]?.emit('message', { type: 'ipintel:ratelimit', id: 1, key: 'c', windowMs: 1_000 });
    workers[1]?.emit('message', { type: 'ipintel:ratelimit', id: 2, key: 'c', windowMs: -1 });
    workers[1]?.emit('message', 'not for us');
    assert.deepEqual(
      replies.map((r) => r.map((m) => (m as { id: number; count: number }).count)),
      [[1], [2]],
    );
    assert.equal((replies[1]?.[0] as { type: string }).type, 'ipintel:ratelimit:reply');
  });
});
