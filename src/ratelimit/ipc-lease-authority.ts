// Leases over the IPC channel node:cluster opens between a worker and the
// primary: the worker's LeasedRateLimitStore asks with one message per turn
// of its event loop (every key that needs units, and the units it gives
// back); the primary grants from ONE MemoryRateLimitStore on its single
// thread, so the units it hands out over all workers never pass a limit.
//
// A primary that does not answer in time (wedged, or the channel closing)
// must never hang a request: after the bound the call rejects and the worker
// counts those requests in process. A reply that arrives later is dropped:
// its units are lost for the window, and the requests counted in process may
// pass the shared limit, so the bound is long enough for a loaded machine.
import type { Worker } from 'node:cluster';
import type { LeaseAsk, LeaseAuthority, LeaseGrant } from './lease.js';
import { LeaseHolds } from './lease-holds.js';
import { timeoutAfterIo } from '../kit/timeout-after-io.js';
import type { MemoryRateLimitStore } from './memory-rate-limit-store.js';

const REQUEST = 'ipintel:lease';
const REPLY = 'ipintel:lease:reply';
/**
 * The bound on a lease call. Not shorter: under node:cluster's round-robin
 * scheduling the primary sends each new connection to a worker as a handle
 * over this same channel, and node queues every later message to that worker
 * until it acknowledges the handle. A worker that stalled (a long GC, a
 * starved CPU: 600 ms seen on a loaded 2-core machine) gets its reply only a
 * round trip after it resumes, and a reply taken for silence counts requests
 * in process, past the shared limit. A primary that is really stuck hands out
 * no new connections either, so a longer bound costs little.
 */
export const IPC_TIMEOUT_MS = 1_000;

export interface LeaseRequest {
  type: typeof REQUEST;
  /** 0: give-backs only, no reply */
  id: number;
  asks: LeaseAsk[];
}

export interface LeaseReply {
  type: typeof REPLY;
  id: number;
  grants: (LeaseGrant | null)[];
}

/** The worker's end of the IPC channel: process.send and process.on('message') by default. */
export interface IpcPort {
  /** false when there is no channel; a send that fails later calls onError */
  send(message: LeaseRequest, onError: () => void): boolean;
  onMessage(listener: (message: unknown) => void): void;
  connected(): boolean;
}

/** The current process's IPC channel; send returns false when it has none (not forked). */
export function processPort(): IpcPort {
  return {
    send: (message, onError) => {
      if (process.send === undefined || !process.connected) return false;
      // process.send's own false only means "queued behind a backlog": still sent
      process.send(message, undefined, undefined, (error: Error | null) => {
        if (error !== null) onError();
      });
      return true;
    },
    onMessage: (listener) => {
      process.on('message', listener);
    },
    connected: () => process.send !== undefined && process.connected,
  };
}

interface Pending {
  resolve: (grants: (LeaseGrant | null)[]) => void;
  reject: (error: Error) => void;
  cancelTimeout: () => void;
}

export class IpcLeaseAuthority implements LeaseAuthority {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly port: IpcPort = processPort(),
    private readonly timeoutMs: number = IPC_TIMEOUT_MS,
  ) {
    port.onMessage((message) => this.receive(message));
  }

  available(): boolean {
    return this.port.connected();
  }

  take(asks: readonly LeaseAsk[]): Promise<(LeaseGrant | null)[]> {
    const answered = asks.some((ask) => ask.need > 0);
    return new Promise((resolve, reject) => {
      const id = answered ? this.nextId++ : 0;
      const fail = (): void => {
        const entry = this.pending.get(id);
        if (answered && entry === undefined) return; // answered (or already failed)
        this.pending.delete(id);
        entry?.cancelTimeout();
        reject(new Error('the cluster primary did not answer'));
      };
      if (answered) {
        // after the I/O already received: a reply that came while this
        // worker stalled is not taken for a silent primary (which would count
        // these requests in process, past the shared limit)
        const cancelTimeout = timeoutAfterIo(this.timeoutMs, fail);
        this.pending.set(id, { resolve, reject, cancelTimeout });
      }
      let sent: boolean;
      try {
        sent = this.port.send({ type: REQUEST, id, asks: [...asks] }, fail);
      } catch {
        sent = false;
      }
      if (!sent) fail();
      else if (!answered) resolve(asks.map(() => null));
    });
  }

  /** Calls waiting for the primary (for tests and diagnostics). */
  get inFlight(): number {
    return this.pending.size;
  }

  private receive(message: unknown): void {
    if (!isReply(message)) return;
    const entry = this.pending.get(message.id);
    if (entry === undefined) return; // timed out: counted in process already
    this.pending.delete(message.id);
    entry.cancelTimeout();
    entry.resolve(message.grants);
  }
}

/** What the primary keeps for every worker: the ledger, and who holds spare units. */
export interface LeaseBook {
  ledger: MemoryRateLimitStore;
  holds: LeaseHolds;
  /** a grant is 1/share of what is left (2 × workers: each can hold a share twice over) */
  share: number;
}

export function leaseBook(ledger: MemoryRateLimitStore, share: number, now = Date.now): LeaseBook {
  return { ledger, holds: new LeaseHolds(now), share };
}

/** One ask of worker `holder`, settled synchronously against the book. */
export function settleAsk(book: LeaseBook, holder: number, ask: LeaseAsk): LeaseGrant | null {
  const { ledger, holds } = book;
  if (ask.returned > 0) ledger.giveBack(ask.key, ask.window, ask.returned);
  if (ask.need === 0) {
    // a give-back (of 0 units too): that lease's spare units are not to be waited for
    holds.release(ask.key, ask.window, holder);
    return null;
  }
  const grant = ledger.lease(ask.key, ask.limit, ask.windowMs, ask.need, book.share);
  holds.record(ask.key, grant.window, holder, grant.units > ask.need ? ask.holdMs : 0);
  if (grant.units < ask.need) grant.retryInMs = holds.othersOpenFor(ask.key, grant.window, holder);
  return grant;
}

/**
 * In the primary: answers one worker's lease calls from the book all workers
 * share. Each ask is settled synchronously on receipt, so calls are counted
 * in the order they reach the primary.
 */
export function serveLeases(worker: Worker, book: LeaseBook): void {
  worker.on('message', (message: unknown) => {
    if (!isRequest(message)) return;
    const grants = message.asks.map((ask) => settleAsk(book, worker.id, ask));
    if (message.id === 0 || !worker.isConnected()) return; // nobody is waiting
    const reply: LeaseReply = { type: REPLY, id: message.id, grants };
    // the callback turns a failed send (worker exiting) into nothing instead
    // of an 'error' event that would crash the primary
    worker.send(reply, undefined, () => undefined);
  });
}

function isAsk(value: unknown): value is LeaseAsk {
  if (typeof value !== 'object' || value === null) return false;
  const a = value as Partial<LeaseAsk>;
  return (
    typeof a.key === 'string' &&
    typeof a.window === 'string' &&
    [a.limit, a.windowMs, a.need, a.returned, a.holdMs].every(
      (n) => typeof n === 'number' && Number.isFinite(n) && n >= 0,
    ) &&
    (a.need === 0 || (a.windowMs ?? 0) > 0)
  );
}

function isRequest(message: unknown): message is LeaseRequest {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Partial<LeaseRequest>;
  return (
    m.type === REQUEST && typeof m.id === 'number' && Array.isArray(m.asks) && m.asks.every(isAsk)
  );
}

function isReply(message: unknown): message is LeaseReply {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Partial<LeaseReply>;
  return m.type === REPLY && typeof m.id === 'number' && Array.isArray(m.grants);
}
