// What a connection gets when node:http's parser refuses its bytes (400,
// 431) or it sends no whole request in time (408): node:http hands the
// socket to the server's 'clientError' listener, and its own default is to
// write the refusal at once — unless an answer has begun — then to destroy
// the socket. Two things about that default are wrong for this service:
//
// - Requests read before the refused bytes may still be answered (a slow
//   lookup, pipelined GETs behind it): a refusal written ahead of them is
//   read by the client as the answer to its first request, and destroying
//   the socket loses the answers that were under way. Here they are written
//   first, in order, then the refusal, then the connection closes. The fast
//   path does the same (it hands bytes to node:http once the answers before
//   them are out), so both paths give the same answers (docs/design.md).
// - The request the parser broke (its body's framing is bad) has no answer:
//   the refusal is its answer. An early answer made for it (405, 413, 429 on a
//   body still arriving: ./linger.ts) is dropped if it is not written yet;
//   if it is, or node:http answered it itself (400 for a missing Host), the
//   connection ends after that answer, with no second one for one request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { abandonAnswer, lingeringOn } from './linger.js';

/** Sockets being refused: the parser reports an error per chunk that follows, answered once. */
const refusing = new WeakSet<Socket>();

/** The response node:http has given the socket to (its answers go out one at a time, in order). */
function answerOnSocket(socket: Socket): ServerResponse | null {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * Writes `refusal` (a whole HTTP answer with `Connection: close`) on
 * `socket` once the answers to the requests before the refused bytes are out,
 * then ends the connection (see above).
 */
export function refuseAfterAnswers(socket: Socket, refusal: string): void {
  if (refusing.has(socket)) return;
  refusing.add(socket);
  // nothing more is read: the parser has stopped, and what comes is discarded
  socket.on('data', () => undefined);
  const next = (): void => {
    if (socket.destroyed) return;
    if (!socket.writable) return void socket.destroy();
    const current = answerOnSocket(socket);
    const req = current === null ? null : (current.req as IncomingMessage | undefined);
    if (current === null || req === undefined || req === null) {
      socket.end(refusal);
      return;
    }
    if (!req.complete) {
      // the request the parser broke
      const early = lingeringOn(socket);
      if (early !== undefined && !early.written) {
        early.abandon();
        abandonAnswer(current);
      } else if (current.headersSent || early !== undefined) {
        // its answer is out: the connection ends after it
        if (early !== undefined) early.end();
        else socket.end();
        return;
      } else {
        abandonAnswer(current);
      }
      socket.end(refusal);
      return;
    }
    // an answer under way to a whole request: it goes first (node:http then
    // gives the socket to the next one, in its 'finish' listener before this)
    const after = (): void => {
      socket.off('close', gone);
      process.nextTick(next);
    };
    const gone = (): void => {
      current.off('finish', after);
    };
    current.once('finish', after);
    socket.once('close', gone);
  };
  next();
}
