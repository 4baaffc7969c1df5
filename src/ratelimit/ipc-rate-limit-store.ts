// Rate-limit counters kept by the cluster primary, so that WORKERS=n without
// Redis still means "RATE_LIMIT_MAX per client per machine". Each worker asks
// the primary to count a hit over the IPC channel node:cluster already opens;
// the primary counts every worker's hits in ONE MemoryRateLimitStore on its
// single thread, so a parallel burst spread over the workers is exact.
//
// A primary that does not answer in time (wedged, or the channel is closing)
// must never hang a request: after the per-call timeout the hit is counted by
// the worker's own in-process store. A reply that arrives later is dropped;
// the primary has counted that hit too, which errs on the side of limiting.
import type { Worker } from 'node:cluster';
import type { MemoryRateLimitStore } from './memory-rate-limit-store.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';

const REQUEST = 'ipintel:ratelimit';
const REPLY = 'ipintel:ratelimit:reply';
export const IPC_TIMEOUT_MS = 250;

export interface RateLimitRequest {
  type: typeof REQUEST;
  id: number;
  key: string;
  windowMs: number;
}

export interface RateLimitReply {
  type: typeof REPLY;
  id: number;
  count: number;
  resetAt: number;
}

/** The worker's end of the IPC channel: process.send and process.on('message') by default. */
export interface IpcPort {
  /** false when there is no channel; a send that fails later calls onError */
  send(message: RateLimitRequest, onError: () => void): boolean;
  onMessage(listener: (message: unknown) => void): void;
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
  };
}

interface Pending {
  resolve: (hit: RateLimitHit) => void;
  timer: NodeJS.Timeout;
}

export class IpcRateLimitStore implements RateLimitStore {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly fallback: MemoryRateLimitStore,
    private readonly port: IpcPort = processPort(),
    private readonly timeoutMs: number = IPC_TIMEOUT_MS,
  ) {
    port.onMessage((message) => this.receive(message));
  }

  hit(key: string, windowMs: number): Promise<RateLimitHit> {
    return new Promise((resolve) => {
      const id = this.nextId++;
      const fallBack = (): void => {
        const entry = this.pending.get(id);
        if (entry === undefined) return; // answered (or already fell back)
        this.pending.delete(id);
        clearTimeout(entry.timer);
        resolve(this.counted(key, windowMs));
      };
      // not unref'd: the request waits on this hit, and the timer is short
      const timer = setTimeout(fallBack, this.timeoutMs);
      this.pending.set(id, { resolve, timer });
      let sent: boolean;
      try {
        sent = this.port.send({ type: REQUEST, id, key, windowMs }, fallBack);
      } catch {
        sent = false;
      }
      if (!sent) fallBack(); // no channel: nobody would answer
    });
  }

  /** Requests waiting for the primary (for tests and diagnostics). */
  get inFlight(): number {
    return this.pending.size;
  }

  private receive(message: unknown): void {
    if (!isReply(message)) return;
    const entry = this.pending.get(message.id);
    if (entry === undefined) return; // timed out: already counted locally
    this.pending.delete(message.id);
    clearTimeout(entry.timer);
    entry.resolve({ count: message.count, resetAt: message.resetAt });
  }

  /** A copy of the local count: the live window changes under a caller that awaits. */
  private counted(key: string, windowMs: number): RateLimitHit {
    const { count, resetAt } = this.fallback.hit(key, windowMs);
    return { count, resetAt };
  }
}

/**
 * In the primary: answers one worker's rate-limit requests from the store all
 * workers share. The hit is counted synchronously on receipt, so the order in
 * which requests reach the primary is the order in which they are counted.
 */
export function serveRateLimits(worker: Worker, store: MemoryRateLimitStore): void {
  worker.on('message', (message: unknown) => {
    if (!isRequest(message)) return;
    const { count, resetAt } = store.hit(message.key, message.windowMs);
    if (!worker.isConnected()) return; // it is going away; nobody is waiting
    const reply: RateLimitReply = { type: REPLY, id: message.id, count, resetAt };
    // the callback turns a failed send (worker exiting) into nothing instead
    // of an 'error' event that would crash the primary
    worker.send(reply, undefined, () => undefined);
  });
}

function isRequest(message: unknown): message is RateLimitRequest {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Partial<RateLimitRequest>;
  return (
    m.type === REQUEST &&
    typeof m.id === 'number' &&
    typeof m.key === 'string' &&
    typeof m.windowMs === 'number' &&
    Number.isFinite(m.windowMs) &&
    m.windowMs > 0
  );
}

function isReply(message: unknown): message is RateLimitReply {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Partial<RateLimitReply>;
  return (
    m.type === REPLY &&
    typeof m.id === 'number' &&
    typeof m.count === 'number' &&
    typeof m.resetAt === 'number'
  );
}
