// Lingering close (what Apache's lingering_close and nginx's lingering_time
// do): an answer sent while the request body is still arriving (413, 415,
// 429, 405 on a POST to a GET route) would otherwise be followed by Node
// closing the socket at once; the kernel then resets the connection on the
// client's next write, and a client that is still sending (Node's
// http.request, most HTTP libraries) sees `write EPIPE` / ECONNRESET instead
// of the status. So the answer goes out whole, with `Connection: close`
// (RFC 9112 §9.6), and the response is only ended — which makes Node close
// the connection — once the rest of the body has been read and thrown away,
// or a bound is reached: LINGER_MAX_BYTES more bytes or LINGER_MAX_MS.
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { RequestHead } from './message.js';

/** Bytes of a refused body read and discarded before the connection is closed anyway. */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;
/** Time a refused body is read and discarded before the connection is closed anyway. */
const LINGER_MAX_MS = 10_000;

export interface LingerBounds {
  maxBytes: number;
  maxMs: number;
}

const DEFAULT_BOUNDS: LingerBounds = { maxBytes: LINGER_MAX_BYTES, maxMs: LINGER_MAX_MS };

/** An early answer of a request whose body is still arriving, while it lingers. */
interface Lingering {
  /** the answer has gone to the socket (it is written a turn after it is made: see sendLingering) */
  written: boolean;
  /** stops lingering: the answer is ended (and the connection with it) */
  end(): void;
  /** stops lingering before the answer is written: nothing of it will be */
  abandon(): void;
}

/** Sockets whose answer is out (or about to be) while their request body is read and discarded. */
const lingering = new WeakMap<Socket, Lingering>();

/**
 * The early answer lingering on `socket`, if any: a parser error or a request
 * timeout on it now (a broken or slow rest of the body) must not be followed
 * by a second answer (see ./client-error.ts).
 */
export function lingeringOn(socket: Socket): Lingering | undefined {
  return lingering.get(socket);
}

/** Responses whose request the parser broke (./client-error.ts): nothing is written to them. */
const abandoned = new WeakSet<ServerResponse>();

export function abandonAnswer(res: ServerResponse): void {
  abandoned.add(res);
}

/**
 * True while the request's body is still on its way: the parser has not seen
 * its end (RFC 9112 §6: a Content-Length or chunked framing announced one).
 */
export function bodyStillArriving(req: RequestHead): boolean {
  if (req.complete) return false;
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Writes `body` as the whole answer without ending the response, discards
 * the rest of the request body, and ends the response (closing the
 * connection, which the caller's `Connection: close` announced) when the body
 * has ended, a bound is reached, or the client went away.
 *
 * The answer is written after this turn of the event loop: node:http reads
 * the request's head and whatever came with it in one go, and when the rest
 * of those bytes breaks the framing (a bad chunk size, a bare LF, data after
 * the end) its parser refuses them before the turn ends. The request is then
 * not one that has an answer: the refusal (400) takes the place of this one,
 * as node:http's own server would write it (./client-error.ts abandons this
 * answer), instead of an early answer cut by the close that follows.
 */
export function sendLingering(
  req: IncomingMessage,
  res: ServerResponse,
  body: string | Buffer | undefined,
  bounds: LingerBounds = DEFAULT_BOUNDS,
): void {
  const socket = req.socket;
  // refused after its head: the refusal is its answer
  if (abandoned.has(res)) return;
  let discarded = 0;
  let closed = false;
  const stop = (): void => {
    closed = true;
    clearTimeout(timer);
    req.off('data', discard);
    req.off('end', close);
    req.off('error', close);
    socket.off('close', close);
    lingering.delete(socket);
  };
  /** the body ended (or a bound came) before the answer was written: the write ends it */
  let ending = false;
  const close = (): void => {
    if (closed) return;
    if (!state.written) {
      ending = true;
      return;
    }
    stop();
    res.end();
  };
  const state: Lingering = {
    written: false,
    end: close,
    abandon: () => {
      if (!closed) stop();
    },
  };
  const discard = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) close();
  };
  lingering.set(socket, state);
  setImmediate(() => {
    if (closed) return;
    if (socket.destroyed) return stop();
    state.written = true;
    if (body !== undefined) res.write(body);
    if (ending) close();
  });
  const timer = setTimeout(close, bounds.maxMs);
  // a bound, not a reason to live: the socket keeps the process up while it
  // lingers, and a process on its way out (a test file's end) need not wait
  // for it (an in-process connection that never closes held one for 10 s)
  timer.unref();
  req.on('data', discard);
  req.once('end', close);
  req.once('error', close);
  socket.once('close', close);
  req.resume();
}
