// Leases over IPC without a cluster: an in-memory channel (messages delivered
// on a later turn, as IPC does) joins workers' IpcLeaseAuthority to the
// primary's serveLeases and its one ledger. The limit holds across workers,
// refusals come only when the allowance is spent, unused units come back, and
// a primary that does not answer (or no channel) means counting in process.
import assert from 'node:assert/strict';
import type { Worker } from 'node:cluster';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { decide } from '../../src/http/rate-limit.js';
import {
  IpcLeaseAuthority,
  leaseBook,
  serveLeases,
  type IpcPort,
  type LeaseBook,
} from '../../src/ratelimit/ipc-lease-authority.js';
import { grantSize } from '../../src/ratelimit/lease.js';
import { LeasedRateLimitStore } from '../../src/ratelimit/leased-rate-limit-store.js';
import { MemoryRateLimitStore } from '../../src/ratelimit/memory-rate-limit-store.js';
import type { RateLimitHit } from '../../src/ratelimit/rate-limit-store.js';
import { setTimeout as sleep } from 'node:timers/promises';

const LIMIT = 60;

/**
 * One worker's channel to the primary: `answering` false makes the primary
 * silent; `slowMs` delays what the worker sends (a worker slow to give back).
 */
function channel(book: LeaseBook, id: number, answering = true, slowMs = 0): IpcPort {
  const toWorker = new EventEmitter();
  const toPrimary = new EventEmitter();
  const worker = Object.assign(toPrimary, {
    id,
    isConnected: () => true,
    send: (message: unknown) => {
      if (answering) setImmediate(() => toWorker.emit('message', message));
      return true;
    },
  }) as unknown as Worker;
  serveLeases(worker, book);
  return {
    send: (message) => {
      const deliver = () => toPrimary.emit('message', message);
      if (slowMs > 0) setTimeout(deliver, slowMs);
      else setImmediate(deliver);
      return true;
    },
    onMessage: (listener) => void toWorker.on('message', listener),
    connected: () => true,
  };
}

function workers(count: number, leaseMs = 1_000, answering = true) {
  const book = leaseBook(new MemoryRateLimitStore(), 2 * count);
  return Array.from({ length: count }, (_, id) => {
    const memory = new MemoryRateLimitStore();
    // the primary's answer bound: when it answers, a hang guard only (an
    // in-process answer takes a tick, and a missed bound would count in
    // process and change what the test sees); when it is silent, the bound
    // under test
    const answerMs = answering ? 10_000 : 100;
    const authority = new IpcLeaseAuthority(channel(book, id + 1, answering), answerMs);
    return { store: new LeasedRateLimitStore(authority, memory, { leaseMs }), memory, authority };
  });
}

const allowed = (hits: RateLimitHit[]) => hits.filter((h) => decide(h, LIMIT, Date.now()).allowed);

describe('grantSize', () => {
  it('grants a share of what is left, at least the need, never past the limit', () => {
    assert.equal(grantSize(60, 0, 1, 4), 15);
    assert.equal(grantSize(60, 40, 1, 4), 5);
    assert.equal(grantSize(60, 45, 1, 4), 1, 'less than share² left: only the need');
    assert.equal(grantSize(60, 45, 3, 4), 3);
    assert.equal(grantSize(60, 58, 5, 4), 2);
    assert.equal(grantSize(60, 60, 1, 4), 0);
    assert.equal(grantSize(60, 10, 0, 4), 0);
    assert.equal(grantSize(60, 0, 1, 1e15), 1, 'no share: exactly the need');
  });
});

describe('leases over IPC', () => {
  it(`two workers: 200 parallel hits, exactly ${LIMIT} allowed, each at its own place`, async () => {
    const [a, b] = workers(2);
    const hits = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => (i % 2 ? a! : b!).store.hit('k', LIMIT, 60_000)),
    );
    assert.deepEqual(
      allowed(hits)
        .map((h) => h.count)
        .sort((x, y) => x - y),
      Array.from({ length: LIMIT }, (_, i) => i + 1),
    );
    assert.equal(a!.memory.size + b!.memory.size, 0, 'nothing counted in process');
  });

  it('a refusal is answered from memory while it lasts', async () => {
    const [a] = workers(1);
    await Promise.all(
      Array.from({ length: LIMIT + 1 }, async () => a!.store.hit('r', LIMIT, 60_000)),
    );
    const refused = a!.store.hit('r', LIMIT, 60_000);
    assert.ok(!(refused instanceof Promise));
    assert.equal(refused.count, LIMIT + 1);
  });

  it('a shortfall waits once for the units a quiet worker holds: exactly the limit in one burst', async () => {
    // leases of a second: one wait is a second, and "at once" (a millisecond
    // or two) has a second's room on a loaded machine
    const leaseMs = 1_000;
    const [a, b] = workers(2, leaseMs);
    await a!.store.hit('q', LIMIT, 60_000); // a holds a share (15 of 60), 14 to spare
    const started = performance.now();
    const first = await Promise.all(
      Array.from({ length: LIMIT }, async () => b!.store.hit('q', LIMIT, 60_000)),
    );
    const waited = performance.now() - started;
    assert.equal(allowed(first).length, LIMIT - 1, "b's burst got the 14 units a did not use");
    assert.ok(
      waited >= leaseMs && waited < 10 * leaseMs,
      `one wait for a's lease to lapse (${waited} ms)`,
    );
    const refusedAt = performance.now();
    assert.equal(allowed([await b!.store.hit('q', LIMIT, 60_000)]).length, 0);
    assert.ok(performance.now() - refusedAt < leaseMs, 'then refused at once');
  });

  it('a worker slow to give back: the short worker waits for its units past their lapse', async () => {
    const leaseMs = 100;
    const book = leaseBook(new MemoryRateLimitStore(), 4);
    const store = (id: number, slowMs: number) =>
      new LeasedRateLimitStore(
        new IpcLeaseAuthority(channel(book, id, true, slowMs), 1_000),
        new MemoryRateLimitStore(),
        { leaseMs },
      );
    // a's give-back reaches the primary 150 ms after its sweep: a lease and a half late
    const [a, b] = [store(1, 150), store(2, 0)];
    await a.hit('late', LIMIT, 60_000); // a holds a share (15 of 60), 14 to spare
    const burst = await Promise.all(
      Array.from({ length: LIMIT }, async () => b.hit('late', LIMIT, 60_000)),
    );
    assert.equal(allowed(burst).length, LIMIT - 1, "b's burst got the 14 units a gave back late");
    await Promise.all([a.close(), b.close()]);
  });

  it('a worker that needed all its units holds none to spare: a shortfall is final at once', async () => {
    // a wait would be a lease, a second: "at once" has that much room
    const leaseMs = 1_000;
    const [a, b] = workers(2, leaseMs);
    // near the end of the allowance grants are only the need, so nobody holds spare units
    await Promise.all(
      Array.from({ length: LIMIT - 2 }, async () => a!.store.hit('f', LIMIT, 60_000)),
    );
    await Promise.all([a!.store.hit('f', LIMIT, 60_000), a!.store.hit('f', LIMIT, 60_000)]);
    const started = performance.now();
    assert.equal(allowed([await b!.store.hit('f', LIMIT, 60_000)]).length, 0);
    assert.ok(performance.now() - started < leaseMs, 'refused without waiting');
  });

  it('past maxLeases the oldest lease is given back, so its units return to the allowance', async () => {
    const book = leaseBook(new MemoryRateLimitStore(), 4);
    const authority = new IpcLeaseAuthority(channel(book, 1), 100);
    const store = new LeasedRateLimitStore(authority, new MemoryRateLimitStore(), {
      maxLeases: 2,
    });
    for (const key of ['e1', 'e2', 'e3']) await store.hit(key, LIMIT, 60_000); // 15 units each
    assert.equal(store.held, 2);
    await sleep(50); // the give-back's trip to the primary
    // e1 gave back its 14 unused units: the ledger counts its one used unit and this one
    assert.equal(book.ledger.lease('e1', LIMIT, 60_000, 1, 1e15).count, 2, 'e1 was given back');
    assert.equal(book.ledger.lease('e2', LIMIT, 60_000, 1, 1e15).count, 16, 'e2 keeps its lease');
  });

  it('each limit is the caller’s: two buckets with their own limits share the store', async () => {
    const [a, b] = workers(2);
    const tight = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => (i % 2 ? a! : b!).store.hit('key:x', 5, 60_000)),
    );
    assert.equal(tight.filter((h) => h.count <= 5).length, 5);
    const loose = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        (i % 2 ? a! : b!).store.hit('1.2.3.4', 500, 60_000),
      ),
    );
    assert.equal(loose.filter((h) => h.count <= 500).length, 20);
  });

  it('a primary that does not answer: counted in process after the bound', async () => {
    const [a] = workers(1, 1_000, false);
    const started = Date.now();
    const hits = await Promise.all(
      Array.from({ length: 3 }, async () => a!.store.hit('s', LIMIT, 60_000)),
    );
    assert.deepEqual(
      hits.map((h) => h.count),
      [1, 2, 3],
    );
    assert.ok(Date.now() - started >= 90);
    assert.equal(a!.memory.size, 1);
    assert.equal(a!.authority.inFlight, 0);
  });

  it('no channel: counted in process at once, synchronously', () => {
    const port: IpcPort = {
      send: () => false,
      onMessage: () => undefined,
      connected: () => false,
    };
    const memory = new MemoryRateLimitStore();
    const store = new LeasedRateLimitStore(new IpcLeaseAuthority(port), memory);
    assert.deepEqual(
      [store.hit('n', LIMIT, 60_000), store.hit('n', LIMIT, 60_000)].map((h) =>
        h instanceof Promise ? 'promise' : h.count,
      ),
      [1, 2],
    );
  });
});
