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
import { channel } from 'node:diagnostics_channel';
import { EventEmitter } from 'node:events';
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
 * module's comment), or its target starts with one of `nodePaths` (the
 * streamed routes': streamedPaths in src/http/route.ts). Null hands the
 * connection to node:http.
 */
export function readPlainHead(text: string, nodePaths: readonly string[] = []): PlainHead | null {
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
  // a streamed route's (GET /export/…) is node:http's: an answer here is written in one piece
  for (const path of nodePaths) if (url.startsWith(path)) return null;
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
    // llhttp reads Proxy-Connection as it reads Connection (`close` ends the
    // connection after this request): node:http's to decide
    headers['proxy-connection'] !== undefined ||
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

/**
 * The answer to one plain request: its head as text, then the whole answer in
 * one write. Tracing code reads it as it reads a ServerResponse's first
 * fields (statusCode, req, socket, headersSent, finished).
 */
class PlainResponse implements LineResponder {
  private head = '';
  statusCode = 200;
  headersSent = false;
  finished = false;

  constructor(
    private readonly connection: FastConnection,
    readonly req: PlainRequest,
  ) {}

  get socket(): Socket {
    return this.connection.socket;
  }

  writeHeadLines(status: number, lines: string, framed: boolean): void {
    this.statusCode = status;
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
    this.headersSent = true;
    this.finished = true;
    this.connection.answered(this);
  }

  destroy(): void {
    this.connection.socket.destroy();
  }
}

/** node:http's own answer to a silent connection when the server has no 'clientError' listener */
const NODE_REQUEST_TIMEOUT = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/**
 * What node:http publishes for each request (Node 20's `http.server.request.start`
 * and `http.server.response.finish`, `{request, response, socket, server}`):
 * the fast path publishes the same for the requests it serves, so that an APM
 * subscribed to them sees every request.
 */
const requestStart = channel('http.server.request.start');
const responseFinish = channel('http.server.response.finish');

/** Serves a request, as node:http's request listener would. */
export type Serve = (req: RequestHead, res: Responder) => void;

/** Why a connection went to node:http (the `reason` of the fast path's counters in /metrics). */
export type HandOffReason = 'not-plain' | 'partial' | 'traced';

/** What the fast path did: requests it served, connections it passed to node:http and why. */
export interface FastPathStats {
  plainRequests: number;
  handedOff: number;
  handOffReasons: Record<HandOffReason, number>;
}

interface Lane {
  server: HttpServer;
  serve: Serve;
  /** where the targets node:http answers begin (the streamed routes') */
  nodePaths: readonly string[];
  /** `Connection: keep-alive` and `Keep-Alive` as node:http writes them */
  keepAlive: string;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  /**
   * how far `clock` can lag behind the time (one sweep): a deadline set from
   * it gets this much more, so that no connection closes before the
   * `Keep-Alive: timeout` it was told
   */
  clockLagMs: number;
  closing: boolean;
  open: Set<FastConnection>;
  /** Date.now() as of the last sweep (or connection): what deadlines are set from */
  clock: number;
  stats: FastPathStats;
  handOff(connection: FastConnection, rest: string, ended: boolean, reason: HandOffReason): void;
  /** a connection that sent no request in time: node:http's 408 (its 'clientError' listener) */
  tooSlow(socket: Socket): void;
}

/** The end of a request head (RFC 9112 §2.1: the empty line after the header lines). */
const HEAD_END = '\r\n\r\n';

/** One connection while its requests are plain. */
class FastConnection {
  /** bytes read and not yet read as plain heads, as latin1; starts at a request */
  private text = '';
  /**
   * bytes that came after `text` while it held no whole head (or one that is
   * not plain) behind answers on their way: kept as they came and joined once
   * a head ends in them (or they go to node:http), so that a head dripping in
   * behind a slow answer costs one scan of each byte, not one of the whole
   * buffer per chunk
   */
  private held: string[] = [];
  private heldBytes = 0;
  /** the last three bytes of `text` and `held`: a head's end can straddle two chunks */
  private tail = '';
  /** `text` starts with a whole head that is not plain: all that follows is node:http's */
  private blocked = false;
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
    if (this.pending === 0 && this.heads.length === 0 && this.text === '') this.socket.end();
  };

  readonly onData = (chunk: Buffer): void => {
    if (this.served !== 0) this.deadline = this.lane.clock + this.keepAliveMs();
    const piece = chunk.toString('latin1');
    if (this.text === '') {
      this.text = piece;
      this.read();
      return;
    }
    // behind answers on their way: bytes that end no head are only kept
    const tail = this.tail;
    this.tail = (tail + piece).slice(-3);
    if (this.blocked || !(tail + piece).includes(HEAD_END)) {
      this.held.push(piece);
      this.heldBytes += piece.length;
      if (this.text.length + this.heldBytes > MAX_WAITING_BYTES) this.socket.pause();
      return;
    }
    this.text = this.unread() + piece;
    this.read();
  };

  /** `text` and `held` as one string, `held` emptied. */
  private unread(): string {
    if (this.held.length === 0) return this.text;
    const text = this.text + this.held.join('');
    this.held = [];
    this.heldBytes = 0;
    return text;
  }

  /** the keep-alive deadline's length from lane.clock (see Lane.clockLagMs) */
  private keepAliveMs(): number {
    return this.lane.keepAliveTimeoutMs + this.lane.clockLagMs;
  }

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
      const head = readPlainHead(text, this.lane.nodePaths);
      if (head === null) break;
      this.heads.push(head);
      text = text.length === head.length ? '' : text.slice(head.length);
    }
    if (idle && text !== '') {
      // all of this.text to node:http, the plain heads read from it too
      this.heads.length = 0;
      this.leave(this.text.includes(HEAD_END) ? 'not-plain' : 'partial');
      return;
    }
    this.text = text;
    this.tail = text.slice(-3);
    // what is left is a head not yet whole, or one node:http is to read
    this.blocked = text.length > MAX_HEAD_BYTES || text.includes(HEAD_END);
    if (this.heads.length > MAX_WAITING_HEADS || text.length > MAX_WAITING_BYTES) {
      this.socket.pause();
    }
    this.next();
  }

  /** The lane's sweep: cuts the connection when its deadline has passed. */
  expire(now: number): void {
    if (now < this.deadline) return;
    // node:http never cuts a connection whose request is being answered (an
    // upstream has its own timeouts); the keep-alive time counts from the answer
    if (this.pending !== 0) return;
    if (this.served === 0) this.lane.tooSlow(this.socket);
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
  answered(response: PlainResponse): void {
    this.pending--;
    this.served++;
    this.deadline = this.lane.clock + this.keepAliveMs();
    if (responseFinish.hasSubscribers) {
      responseFinish.publish({
        request: response.req,
        response,
        socket: this.socket,
        server: this.lane.server,
      });
    }
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
        if (this.text !== '') this.leave(this.blocked ? 'not-plain' : 'partial');
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
      const request = new PlainRequest(head.method, head.url, head.headers, this.socket);
      const response = new PlainResponse(this, request);
      if (requestStart.hasSubscribers) {
        requestStart.publish({ request, response, socket: this.socket, server: this.lane.server });
      }
      this.lane.serve(request, response);
    }
  }

  /** Hands the connection, and the bytes not answered, to node:http. */
  leave(reason: HandOffReason): void {
    this.leaving = true;
    const socket = this.socket;
    socket.off('data', this.onData);
    socket.off('error', this.onError);
    socket.off('close', this.onClose);
    socket.off('drain', this.onDrain);
    socket.off('end', this.onEnd);
    this.lane.open.delete(this);
    const rest = this.unread();
    this.text = '';
    this.lane.handOff(this, rest, this.ended, reason);
  }
}

/** Whether `server`'s events go through a wrapped `emit` (a tracer's: OpenTelemetry's HTTP instrumentation wraps http.Server.prototype.emit to see 'request'). */
function emitIsWrapped(server: HttpServer): boolean {
  return server.emit !== EventEmitter.prototype.emit;
}

/**
 * node:http's server with the fast path in front of its connection handler.
 * Shutdown sees both: closing the server (which closes idle connections)
 * closes the fast path's idle ones too, and answers still on their way say
 * `Connection: close` and end their connection.
 */
export class FastPathServer extends HttpServer {
  private readonly lane: Lane | null;
  /** what the fast path did: requests it read, connections it passed to node:http and why */
  readonly stats: FastPathStats = {
    plainRequests: 0,
    handedOff: 0,
    handOffReasons: { 'not-plain': 0, partial: 0, traced: 0 },
  };

  /**
   * `fastPath: false`: every connection is node:http's from the start
   * (FAST_PATH=false); `nodePaths`: where the targets begin that node:http
   * answers however plain their request (the streamed routes').
   */
  constructor(
    options: ServerOptions,
    serve: Serve,
    fastPath = true,
    nodePaths: readonly string[] = [],
  ) {
    super(options, serve);
    const listeners = this.listeners('connection');
    // node:http's connection handler, as its Server constructor adds it; were
    // that ever to change, every connection simply stays node's
    if (!fastPath || listeners.length !== 1) {
      this.lane = null;
      return;
    }
    const nodeConnection = listeners[0] as (socket: Socket) => void;
    this.removeListener('connection', nodeConnection);
    // the deadlines are checked as node:http checks its headers timeout: on
    // an interval (connectionsCheckingInterval), while the server listens
    const everyMs = options.connectionsCheckingInterval ?? 1_000;
    const stats = this.stats;
    const lane: Lane = {
      server: this,
      serve,
      nodePaths,
      keepAlive:
        this.keepAliveTimeout > 0
          ? `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(this.keepAliveTimeout / 1000)}\r\n`
          : 'Connection: keep-alive\r\n',
      // node:http's own, as the options gave them
      keepAliveTimeoutMs: this.keepAliveTimeout,
      headersTimeoutMs: this.headersTimeout,
      clockLagMs: everyMs,
      closing: false,
      open: new Set(),
      clock: Date.now(),
      stats,
      handOff: (connection, rest, ended, reason) => {
        stats.handedOff++;
        stats.handOffReasons[reason]++;
        const socket = connection.socket;
        // what the socket has read and not emitted yet (paused for back-pressure) comes after `rest`
        let buffered: Buffer | null;
        while ((buffered = socket.read() as Buffer | null) !== null) {
          rest += buffered.toString('latin1');
        }
        const before = new Set([...socket.listeners('data'), ...socket.listeners('end')]);
        nodeConnection.call(this, socket);
        if (socket.isPaused()) socket.resume();
        // node:http's parser reads these bytes first, as if they had just
        // arrived, and then the client's half-close if it came: handed to its
        // listeners directly (a socket that has ended cannot take bytes back
        // with unshift: node:http would lose the requests in them)
        const nodeData = socket.listeners('data').find((f) => !before.has(f));
        const nodeEnd = socket.listeners('end').find((f) => !before.has(f));
        if (rest !== '' && !socket.destroyed) {
          if (nodeData !== undefined) nodeData.call(socket, Buffer.from(rest, 'latin1'));
          else socket.unshift(Buffer.from(rest, 'latin1'));
        }
        if (ended && !socket.destroyed && nodeEnd !== undefined) nodeEnd.call(socket);
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
      const connection = new FastConnection(socket, lane);
      // a tracer that wraps the server's emit to see 'request' (OpenTelemetry's
      // HTTP instrumentation) sees only node:http's requests: with one in
      // place, every connection is node:http's (see docs/design.md)
      if (emitIsWrapped(this)) connection.leave('traced');
      else lane.open.add(connection);
    });
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
