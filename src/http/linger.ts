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

/** Sockets whose answer is out while their request body is still read and discarded. */
const lingering = new WeakSet<Socket>();

/**
 * True while `socket` lingers: a parser error or a request timeout on it now
 * (a broken or slow rest of the body) must close it, not write a second answer.
 */
export function isLingering(socket: Socket): boolean {
  return lingering.has(socket);
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
 */
export function sendLingering(
  req: IncomingMessage,
  res: ServerResponse,
  body: string | Buffer | undefined,
  bounds: LingerBounds = DEFAULT_BOUNDS,
): void {
  if (body !== undefined) res.write(body);
  const socket = req.socket;
  lingering.add(socket);
  let discarded = 0;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    req.off('data', discard);
    req.off('end', close);
    req.off('error', close);
    socket.off('close', close);
    lingering.delete(socket);
    res.end();
  };
  const discard = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > bounds.maxBytes) close();
  };
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
