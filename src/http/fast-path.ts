// The fast path: plain GET and HEAD requests read and answered without
// node:http's per-request machinery. For each request node:http builds an
// IncomingMessage (a Readable stream) and a ServerResponse (a Writable),
// checks every header twice and walks its state machines: on this project's
// benchmark that is ~4.5 µs of the ~11 µs a bare node:http server spends on
// a request, and the same 4.5 µs of every GeoIP or VPN answer here. Most
// requests an API like this one gets are a request line, a few headers and
// nothing else; those are read here, from the connection's bytes, and
// answered through the same pipeline (src/app.ts) by a small writer.
//
// Anything else goes to node:http, with the connection: a request with a
// body or a framing header, HTTP/1.0, `Connection: close`, `Upgrade`,
// `Expect`, a repeated header, a byte outside the plain grammar, a head that
// has not arrived whole. The fast path then takes its listeners off the
// socket, gives back the bytes it has not answered, and node:http's own
// connection handler takes over as if the connection had just arrived; every
// refusal (400, 431, 408) and every body is node's. Only a head that is
// plain through and through is read here, so nothing node:http would refuse
// is answered here.
import { Buffer } from 'node:buffer';
import { Server as HttpServer, STATUS_CODES, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { LineResponder, RequestHead, Responder } from './message.js';

/** node:http's default limit on a request head (--max-http-header-size): a larger one is node's to refuse */
const MAX_HEAD_BYTES = 16 * 1024;
/** header lines of a plain request at most: more go to node:http (which keeps only maxHeadersCount) */
const MAX_HEADER_LINES = 100;
/** unanswered bytes held while an answer is on its way (pipelined requests); past this the socket pauses */
const MAX_WAITING_BYTES = 64 * 1024;
/** plain heads read and waiting for the answers before them; past this the socket pauses */
const MAX_WAITING_HEADS = 1024;

/** origin-form request target: "/" then visible ASCII (RFC 9112 §3.2.1); anything else is node's */
const TARGET = /^\/[!-~]*$/;
/** header lines, each `token ":" value CRLF` with no control character but HTAB (RFC 9110 §5.5) */
const HEADER_LINES = /^(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*\r\n)*$/;

/** A plain request's head, read from the start of a connection's bytes. */
export interface PlainHead {
  method: 'GET' | 'HEAD';
  /** the request target as sent */
  url: string;
  /** lower-case names, values without surrounding whitespace, each name at most once */
  headers: Record<string, string>;
  /** the head's length in bytes (characters of the latin1 text), blank line included */
  length: number;
}

/**
 * The plain request at the start of `text` (a connection's bytes as latin1),
 * or null when there is none: not there whole yet, or not plain (see the
 * module's comment). Null hands the connection to node:http.
 */
export function readPlainHead(text: string): PlainHead | null {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1 || end + 4 > MAX_HEAD_BYTES) return null;
  let method: 'GET' | 'HEAD';
  let targetAt: number;
  if (text.startsWith('GET /')) {
    method = 'GET';
    targetAt = 4;
  } else if (text.startsWith('HEAD /')) {
    method = 'HEAD';
    targetAt = 5;
  } else {
    return null;
  }
  const lineEnd = text.indexOf('\r\n');
  if (lineEnd - 9 <= targetAt || !text.startsWith(' HTTP/1.1', lineEnd - 9)) return null;
  const url = text.slice(targetAt, lineEnd - 9);
  if (!TARGET.test(url)) return null;
  const block = text.slice(lineEnd + 2, end + 2);
  if (!HEADER_LINES.test(block)) return null;
  const headers: Record<string, string> = {};
  let lines = 0;
  for (let at = 0; at < block.length;) {
    if (++lines > MAX_HEADER_LINES) return null;
    const colon = block.indexOf(':', at);
    const eol = block.indexOf('\r\n', colon);
    const name = block.slice(at, colon).toLowerCase();
    // a repeated header has rules of its own in node:http (joined, or the first kept)
    if (headers[name] !== undefined || name === '__proto__') return null;
    let from = colon + 1;
    let to = eol;
    while (from < to && isBlank(block.charCodeAt(from))) from++;
    while (to > from && isBlank(block.charCodeAt(to - 1))) to--;
    headers[name] = block.slice(from, to);
    at = eol + 2;
  }
  const connection = headers['connection'];
  if (
    headers['host'] === undefined ||
    headers['content-length'] !== undefined ||
    headers['transfer-encoding'] !== undefined ||
    headers['upgrade'] !== undefined ||
    headers['expect'] !== undefined ||
    (connection !== undefined && connection.toLowerCase() !== 'keep-alive')
  ) {
    return null;
  }
  return { method, url, headers, length: end + 4 };
}

function isBlank(code: number): boolean {
  return code === 32 || code === 9;
}

/** A plain request as the pipeline reads it (the fields of IncomingMessage it uses). */
class PlainRequest implements RequestHead {
  /** a plain request has no body: it is whole once its head is */
  readonly complete = true;
  constructor(
    readonly method: string,
    readonly url: string,
    readonly headers: Record<string, string>,
    readonly socket: Socket,
  ) {}
}

/**
 * The Date header's value (RFC 9110 §6.6.1), made at most once a second: as
 * node:http does, a timer clears it when the second ends, so a request reads
 * no clock for it.
 */
let dateText: string | null = null;
function httpDate(): string {
  if (dateText === null) {
    const now = Date.now();
    dateText = new Date(now).toUTCString();
    setTimeout(() => (dateText = null), 1000 - (now % 1000)).unref();
  }
  return dateText;
}

/** The answer to one plain request: its head as text, then the whole answer in one write. */
class PlainResponse implements LineResponder {
  private head = '';

  constructor(private readonly connection: FastConnection) {}

  writeHeadLines(status: number, lines: string, framed: boolean): void {
    // every answer the pipeline writes has a length; one without would need
    // chunked framing (204 and 304 have no body at all)
    const length = framed || status === 204 || status === 304 ? '' : 'content-length: 0\r\n';
    this.head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'unknown'}\r\n${lines}${length}Date: ${httpDate()}\r\n${this.connection.connectionHeader()}\r\n`;
  }

  end(body?: string | Buffer, encoding?: BufferEncoding): void {
    const socket = this.connection.socket;
    if (!socket.destroyed) {
      if (body === undefined) socket.write(this.head, 'latin1');
      // the head is ASCII: one string in the body's encoding, one write
      else if (typeof body === 'string') socket.write(this.head + body, encoding ?? 'utf8');
      else {
        socket.cork();
        socket.write(this.head, 'latin1');
        socket.write(body);
        socket.uncork();
      }
    }
    this.connection.answered();
  }

  destroy(): void {
    this.connection.socket.destroy();
  }
}

/** node:http's own answer to a silent connection when the server has no 'clientError' listener */
const NODE_REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** Serves a request, as node:http's request listener would. */
export type Serve = (req: RequestHead, res: Responder) => void;

interface Lane {
  serve: Serve;
  /** `Connection: keep-alive` and `Keep-Alive` as node:http writes them */
  keepAlive: string;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  closing: boolean;
  open: Set<FastConnection>;
  /** Date.now() as of the last sweep (or connection): what deadlines are set from */
  clock: number;
  /** requests the fast path read, and connections it passed to node:http (see FastPathServer.stats) */
  stats: { plainRequests: number; handedOff: number };
  handOff(connection: FastConnection, rest: string): void;
  /** a connection that sent no request in time: node:http's 408 (its 'clientError' listener) */
  tooSlow(socket: Socket): void;
}

/** One connection while its requests are plain. */
class FastConnection {
  /** bytes read and not yet read as plain heads, as latin1 */
  private text = '';
  /** plain heads read and not yet served, in order (pipelined behind an answer on its way) */
  private readonly heads: PlainHead[] = [];
  /** reading waits for the client to read what was written (see next) */
  private awaitingDrain = false;
  /** requests read whose answer is not written yet */
  private pending = 0;
  private served = 0;
  /**
   * when the connection is cut if nothing happens (lane.clock's time): a
   * socket timeout would re-arm a timer at every read and write, ~0.2 µs a
   * request; the lane's sweep reads this instead (see FastPathServer)
   */
  private deadline: number;
  private leaving = false;
  /** the client has sent all it will (half-close): the connection ends after the last answer */
  private ended = false;

  constructor(
    readonly socket: Socket,
    private readonly lane: Lane,
  ) {
    socket.setNoDelay(true);
    // until the first request: node:http's headers timeout; then its keep-alive one
    this.deadline = lane.clock + lane.headersTimeoutMs;
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
    socket.on('end', this.onEnd);
  }

  readonly onEnd = (): void => {
    this.ended = true;
    if (this.pending === 0 && this.heads.length === 0) this.socket.end();
  };

  readonly onData = (chunk: Buffer): void => {
    if (this.served !== 0) this.deadline = this.lane.clock + this.lane.keepAliveTimeoutMs;
    this.text = this.text === '' ? chunk.toString('latin1') : this.text + chunk.toString('latin1');
    this.read();
  };

  /**
   * Reads the heads that have arrived. With nothing on its way, the bytes go
   * to node:http whole unless every head in them is plain and whole: a
   * request that is not plain, with whatever came with it (the plain ones
   * before it, a client's half-close after it), reaches node:http with
   * nothing answered here. Behind answers on their way, plain heads queue
   * and the rest waits for them (then goes to node:http; see next).
   */
  private read(): void {
    const idle = this.pending === 0 && this.heads.length === 0;
    let text = this.text;
    while (text !== '') {
      const head = readPlainHead(text);
      if (head === null) break;
      this.heads.push(head);
      text = text.length === head.length ? '' : text.slice(head.length);
    }
    if (idle && text !== '') {
      // all of this.text to node:http, the plain heads read from it too
      this.heads.length = 0;
      this.leave();
      return;
    }
    this.text = text;
    if (this.heads.length > MAX_WAITING_HEADS || text.length > MAX_WAITING_BYTES) {
      this.socket.pause();
    }
    this.next();
  }

  /** The lane's sweep: cuts the connection when its deadline has passed. */
  expire(now: number): void {
    if (now < this.deadline) return;
    if (this.pending !== 0 && this.served === 0) {
      // the first answer is being made (an upstream has its own timeouts): it
      // gets the keep-alive time too; an answer that takes longer is lost
      this.deadline = now + this.lane.keepAliveTimeoutMs;
      return;
    }
    if (this.pending === 0 && this.served === 0) this.lane.tooSlow(this.socket);
    else this.socket.destroy();
  }

  /** The client read what was written: reading resumes (see next). */
  readonly onDrain = (): void => {
    this.awaitingDrain = false;
    this.socket.resume();
    this.next();
  };

  readonly onError = (): void => {
    this.socket.destroy();
  };

  readonly onClose = (): void => {
    this.lane.open.delete(this);
  };

  /** The connection header of an answer: keep-alive, or close when the server is closing. */
  connectionHeader(): string {
    return this.lane.closing ? 'Connection: close\r\n' : this.lane.keepAlive;
  }

  /** An answer was written: the next request, if one is waiting, or the end of the connection. */
  answered(): void {
    this.pending--;
    this.served++;
    this.deadline = this.lane.clock + this.lane.keepAliveTimeoutMs;
    if (this.pending !== 0) return;
    if (this.lane.closing || (this.ended && this.heads.length === 0 && this.text === '')) {
      this.socket.end();
      return;
    }
    if (this.socket.destroyed) return;
    if (this.socket.isPaused() && !this.awaitingDrain && this.heads.length <= MAX_WAITING_HEADS) {
      this.socket.resume();
    }
    this.next();
  }

  /** Drops the connection if nothing is on its way (server shutdown). */
  closeIfIdle(): void {
    if (this.pending === 0 && this.heads.length === 0) this.socket.destroy();
  }

  /**
   * Serves the plain heads read, one at a time (an answer is written before
   * the next request is served, so answers keep their order); once they are
   * answered, bytes left that are not a plain head go to node:http.
   */
  private next(): void {
    while (this.pending === 0 && !this.leaving && !this.awaitingDrain) {
      if (this.heads.length === 0) {
        if (this.text !== '') this.leave();
        return;
      }
      // a client that sends requests and does not read the answers: reading
      // and answering wait until it has (node:http does the same)
      if (this.socket.writableNeedDrain) {
        this.awaitingDrain = true;
        this.socket.pause();
        this.socket.once('drain', this.onDrain);
        return;
      }
      const head = this.heads.shift()!;
      this.pending++;
      this.lane.stats.plainRequests++;
      this.lane.serve(
        new PlainRequest(head.method, head.url, head.headers, this.socket),
        new PlainResponse(this),
      );
    }
  }

  /** Hands the connection, and the bytes not answered, to node:http. */
  private leave(): void {
    this.leaving = true;
    const socket = this.socket;
    socket.off('data', this.onData);
    socket.off('error', this.onError);
    socket.off('close', this.onClose);
    socket.off('drain', this.onDrain);
    socket.off('end', this.onEnd);
    this.lane.open.delete(this);
    const rest = this.text;
    this.text = '';
    this.lane.handOff(this, rest);
  }
}

/**
 * node:http's server with the fast path in front of its connection handler.
 * Shutdown sees both: closing the server (which closes idle connections)
 * closes the fast path's idle ones too, and answers still on their way say
 * `Connection: close` and end their connection.
 */
export class FastPathServer extends HttpServer {
  private readonly lane: Lane | null;
  /** what the fast path did: requests it read, connections it passed to node:http */
  readonly stats = { plainRequests: 0, handedOff: 0 };

  constructor(options: ServerOptions, serve: Serve) {
    super(options, serve);
    const listeners = this.listeners('connection');
    // node:http's connection handler, as its Server constructor adds it; were
    // that ever to change, every connection simply stays node's
    if (listeners.length !== 1) {
      this.lane = null;
      return;
    }
    const nodeConnection = listeners[0] as (socket: Socket) => void;
    this.removeListener('connection', nodeConnection);
    const lane: Lane = {
      serve,
      keepAlive:
        this.keepAliveTimeout > 0
          ? `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(this.keepAliveTimeout / 1000)}\r\n`
          : 'Connection: keep-alive\r\n',
      // node:http's own, as the options gave them
      keepAliveTimeoutMs: this.keepAliveTimeout,
      headersTimeoutMs: this.headersTimeout,
      closing: false,
      open: new Set(),
      clock: Date.now(),
      stats: this.stats,
      handOff: (connection, rest) => {
        this.stats.handedOff++;
        // node:http reads these bytes first, as if they had just arrived
        if (rest !== '') connection.socket.unshift(Buffer.from(rest, 'latin1'));
        nodeConnection.call(this, connection.socket);
      },
      tooSlow: (socket) => {
        const error = Object.assign(new Error('Request timeout'), {
          code: 'ERR_HTTP_REQUEST_TIMEOUT',
        });
        if (this.listenerCount('clientError') > 0) this.emit('clientError', error, socket);
        // no listener: what node:http itself writes then (its socketOnError)
        else socket.end(NODE_REQUEST_TIMEOUT, () => socket.destroy());
      },
    };
    this.lane = lane;
    this.on('connection', (socket: Socket) => {
      lane.clock = Date.now();
      lane.open.add(new FastConnection(socket, lane));
    });
    // the deadlines are checked as node:http checks its headers timeout: on
    // an interval (connectionsCheckingInterval), while the server listens
    const everyMs = options.connectionsCheckingInterval ?? 1_000;
    let sweep: NodeJS.Timeout | null = null;
    this.on('listening', () => {
      sweep ??= setInterval(() => {
        const now = (lane.clock = Date.now());
        for (const connection of lane.open) connection.expire(now);
      }, everyMs).unref();
    });
    this.on('close', () => {
      if (sweep !== null) clearInterval(sweep);
      sweep = null;
    });
  }

  override close(callback?: (error?: Error) => void): this {
    if (this.lane !== null) this.lane.closing = true;
    return super.close(callback);
  }

  override closeIdleConnections(): void {
    super.closeIdleConnections();
    if (this.lane !== null) for (const connection of this.lane.open) connection.closeIfIdle();
  }

  override closeAllConnections(): void {
    super.closeAllConnections();
    if (this.lane !== null) for (const connection of this.lane.open) connection.socket.destroy();
  }
}
