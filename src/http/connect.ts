// CONNECT asks a server to become a tunnel (RFC 9110 §9.3.6). Node hands such
// a request to a 'connect' listener with the bare socket and, when there is
// none, closes the connection without a word. ipintel is no proxy: a CONNECT
// goes through the pipeline like any other refused method (rate limit, 405
// with Allow, access log), answered on a response made for its socket, and
// the connection closes after the answer.
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused tunnel's socket is read (and what arrives thrown away) before it is cut. */
const CONNECT_CLOSE_MS = 5_000;

/** Answers a CONNECT request by `serve`, then closes its connection. */
export function answerConnect(
  req: IncomingMessage,
  socket: Socket,
  serve: (req: IncomingMessage, res: ServerResponse) => void,
): void {
  const res = new ServerResponse(req);
  // the socket left Node's HTTP parser: no second request can follow on it
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  // bytes the client sends for the tunnel are read and dropped, so that
  // closing does not reset the connection under an unread answer
  socket.resume();
  const cut = setTimeout(() => socket.destroy(), CONNECT_CLOSE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
  socket.once('error', () => socket.destroy());
  res.once('finish', () => {
    res.detachSocket(socket);
    socket.end();
  });
  serve(req, res);
}
