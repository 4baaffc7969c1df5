// One Redis connection shared by the cache and the rate limiter, with the
// rules that keep a sick Redis from hurting requests: every call is bounded by
// a timeout, nothing waits in a queue while the connection is down (calls fail
// at once and the stores fall back), commands are never replayed after a
// reconnect (a replayed INCR would count a request twice), and up/down is
// tracked so the app can log once per incident and report it on /readyz and in
// metrics. ioredis reconnects on its own; the first answer after an outage
// marks Redis up again, so the stores go back to it without intervention.
//
// This module owns the connection only: the stores that use it take a
// RedisLink, and src/main.ts puts them together. ioredis itself is loaded by
// openRedisLink, so a deployment without REDIS_URL never pays for it (~0.1 s
// of start-up); the type import below is erased at compile time.
import type { Redis } from 'ioredis';
import { timeoutAfterIo } from '../kit/timeout-after-io.js';

export type RedisState = 'up' | 'down';

/** Called on each change of state; `error` says why Redis went down. */
export type RedisStateListener = (state: RedisState, error?: Error) => void;

/** A Redis call did not answer within its bound. */
export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/** The connection is not ready (connecting, reconnecting or closed): the call was not sent. */
export class RedisUnavailableError extends Error {
  constructor(status: string) {
    super(`Redis is not connected (${status})`);
    this.name = 'RedisUnavailableError';
  }
}

export const DEFAULT_REDIS_TIMEOUT_MS = 100;
/** Reconnect back-off ceiling: a returning Redis is picked up within about this long. */
const RECONNECT_MAX_DELAY_MS = 1_000;
/** While down on a live connection (Redis stalled), how often a PING checks on it. */
const PROBE_INTERVAL_MS = 500;

export interface RedisLinkOptions {
  /** bound on every call, in milliseconds (default 100) */
  timeoutMs?: number;
  onStateChange?: RedisStateListener;
}

/**
 * The connection and its health. The stores never talk to the client
 * directly: they go through `run`, which applies the bound and keeps the
 * state. The state starts 'down' (not connected yet); the first change
 * reported is the first real one ('up' on connecting, or 'down' with the
 * error when the first connection fails), and after that only changes are
 * reported, so a listener that logs logs once per incident.
 */
export class RedisLink {
  readonly client: Redis;
  readonly timeoutMs: number;
  private current: RedisState = 'down';
  private reported: RedisState | null = null;
  private closed = false;
  private probe: NodeJS.Timeout | undefined;
  private readonly listener: RedisStateListener | undefined;

  /** Connecting starts at once. `RedisClient` is ioredis's class: openRedisLink loads it. */
  constructor(RedisClient: typeof Redis, url: string, options: RedisLinkOptions = {}) {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`Redis timeout must be a positive number of ms, got ${timeoutMs}`);
    }
    this.timeoutMs = timeoutMs;
    this.listener = options.onStateChange;
    // built into a const, then assigned: `this.client = new RedisClient(…)`
    // (the field's type as context for ioredis's overloaded constructor) cost
    // 3–5 s of every type-check and lint
    const clientOptions = {
      // Fail instead of queueing while disconnected: the stores have a fallback,
      // and a queue would grow without bound during an outage.
      enableOfflineQueue: false,
      // Commands caught by a dropped connection are rejected at once, and never
      // sent again after the reconnect (their callers have moved on already).
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // No commandTimeout: `run` bounds every call itself, and ioredis's own
      // timer would fire after a stall of this process before the reply that
      // came meanwhile is read (src/kit/timeout-after-io.ts).
      // A Redis that accepts commands but stops answering (stalled, paused) has
      // its connection dropped after a while, so calls fail fast instead of each
      // waiting out the timeout and piling up unanswered in the socket.
      socketTimeout: Math.max(1_000, timeoutMs * 10),
      connectTimeout: Math.max(1_000, timeoutMs * 10),
      retryStrategy: (attempt: number) => Math.min(attempt * 100, RECONNECT_MAX_DELAY_MS),
      lazyConnect: false,
      // Not enableAutoPipelining: in ioredis 6 a batch that fails (a timed-out
      // or dropped connection) can throw from a nextTick ("results[i] is not
      // iterable", seen in bench:scale's simulation), which would end the
      // process. The lease calls are one per turn anyway.
    };
    const client = new RedisClient(url, clientOptions);
    this.client = client;
    this.client.on('ready', () => this.mark('up'));
    // Without an 'error' listener ioredis prints every connection failure.
    this.client.on('error', (error: Error) => this.mark('down', error));
    this.client.on('close', () => this.mark('down', new Error('Redis connection closed')));
  }

  get state(): RedisState {
    return this.current;
  }

  /**
   * Runs one Redis operation within the bound. Rejects with
   * RedisUnavailableError without sending anything while not connected, with
   * RedisTimeoutError past the bound, or with Redis's own error. Callers fall
   * back on any rejection.
   */
  async run<T>(op: (client: Redis) => Promise<T>): Promise<T> {
    const status = this.client.status;
    if (status !== 'ready') throw new RedisUnavailableError(status);
    let cancelTimeout = (): void => undefined;
    const timeout = new Promise<never>((_, reject) => {
      cancelTimeout = timeoutAfterIo(this.timeoutMs, () =>
        reject(new RedisTimeoutError(this.timeoutMs)),
      );
    });
    try {
      const result = await Promise.race([op(this.client), timeout]);
      this.mark('up');
      return result;
    } catch (error) {
      // A reply error (wrong type, OOM, script error) comes from a Redis that
      // is there and answering: the call fails, the state does not change.
      if (!isReplyError(error)) {
        this.mark('down', error instanceof Error ? error : new Error(String(error)));
      }
      throw error;
    } finally {
      cancelTimeout();
    }
  }

  /** Closes the connection (QUIT when connected, bounded) and stops reconnecting. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.probe);
    if (this.client.status === 'ready') {
      try {
        await this.run((client) => client.quit());
      } catch {
        // disconnect() below ends it regardless
      }
    }
    this.client.disconnect();
  }

  private mark(state: RedisState, error?: Error): void {
    this.current = state;
    if (this.closed) return;
    this.watch(state);
    if (this.reported === state) return;
    this.reported = state;
    if (state === 'down' && error !== undefined) this.listener?.(state, error);
    else this.listener?.(state);
  }

  /**
   * A dropped connection comes back through ioredis's reconnect ('ready'); a
   * stalled one stays open, and with no traffic nothing would notice that it
   * answers again, so /readyz would say down forever. A PING now and then
   * settles it (failures are ignored: the state already says down).
   */
  private watch(state: RedisState): void {
    if (state === 'up') {
      clearInterval(this.probe);
      this.probe = undefined;
    } else if (this.probe === undefined) {
      this.probe = setInterval(() => {
        if (this.client.status === 'ready') this.run((client) => client.ping()).catch(() => {});
      }, PROBE_INTERVAL_MS);
      this.probe.unref();
    }
  }
}

function isReplyError(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError';
}

/** A link to `url` (redis:// or rediss://), connecting in the background. */
export async function openRedisLink(
  url: string,
  options: RedisLinkOptions = {},
): Promise<RedisLink> {
  const { Redis } = await import('../later/ioredis.js');
  return new RedisLink(Redis, url, options);
}
