// A worker that stalls (a long GC, a starved CPU) past the bound of its lease
// call while the primary's reply is already waiting to be read: the reply is
// taken, not the timeout. Taking the timeout counted the request in process,
// past the shared limit (21 answers of 20 seen under load in
// test/app/shared-limit-exact.test.ts). The primary's reply comes to the
// worker over a real MessageChannel, so it waits in the event loop's I/O as
// an IPC reply does; the primary answers at once, as a primary that is not
// the one stalled does.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { decide } from '../../src/http/rate-limit.js';
import {
  IpcLeaseAuthority,
  leaseBook,
  serveLeases,
  type IpcPort,
} from '../../src/ratelimit/ipc-lease-authority.js';
import { LeasedRateLimitStore } from '../../src/ratelimit/leased-rate-limit-store.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';

const BOUND_MS = 50;
const LIMIT = 5;

/**
 * Holds the event loop for `ms`, as a stalled process does. Called in the
 * check phase (from an immediate), the next thing the loop does after it is
 * run the timers that fell due, and only then poll for the reply.
 */
function stall(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

/** A worker's port to a primary that answers at once; its replies arrive as I/O. */
function primaryOverIo() {
  const book = leaseBook(new MemoryRateLimitStore(), 4);
  const { port1: toWorker, port2: fromPrimary } = new MessageChannel();
  const worker = Object.assign(new EventEmitter(), {
    id: 1,
    isConnected: () => true,
    send: (message: unknown) => (fromPrimary.postMessage(message), true),
  });
  serveLeases(worker as unknown as Worker, book);
  const port: IpcPort = {
    send: (message) => worker.emit('message', message),
    onMessage: (listener) => void toWorker.on('message', listener),
    connected: () => true,
  };
  return { book, port, close: () => (toWorker.close(), fromPrimary.close()) };
}

describe('a worker stalled past the bound of its lease call', () => {
  it('takes the reply that came meanwhile', async () => {
    const primary = primaryOverIo();
    try {
      const authority = new IpcLeaseAuthority(primary.port, BOUND_MS);
      const ask = { key: 'k', limit: LIMIT, windowMs: 60_000, need: 1 };
      await new Promise(setImmediate); // the call goes out in the check phase
      const call = authority.take([{ ...ask, returned: 0, window: '', holdMs: 0 }]);
      stall(3 * BOUND_MS);
      const [grant] = await call;
      assert.equal(grant?.units, 1);
      assert.equal(authority.inFlight, 0);
    } finally {
      primary.close();
    }
  });

  it('a request past the limit is refused, not counted in process', async () => {
    const primary = primaryOverIo();
    const memory = new MemoryRateLimitStore();
    // no lease kept: every request asks the primary
    const store = new LeasedRateLimitStore(new IpcLeaseAuthority(primary.port, BOUND_MS), memory, {
      leaseMs: 0,
    });
    try {
      for (let i = 1; i <= LIMIT; i++) assert.equal((await store.hit('k', LIMIT, 60_000)).count, i);
      const late = store.hit('k', LIMIT, 60_000);
      // once the store's call has gone out this turn (immediates run in order)
      setImmediate(() => stall(3 * BOUND_MS));
      const hit = await late;
      assert.equal(decide(hit, LIMIT, Date.now()).allowed, false, `count ${hit.count}`);
      assert.equal(memory.size, 0, 'nothing counted in process');
    } finally {
      await store.close();
      primary.close();
    }
  });
});
