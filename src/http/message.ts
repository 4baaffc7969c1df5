// The two sides of an exchange as the pipeline sees them, whichever reader
// read the request: node:http (IncomingMessage, ServerResponse) or the fast
// path (src/http/fast-path.ts), whose plain requests cost no streams.
import type { Buffer } from 'node:buffer';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/** A header's value as node:http takes it. */
export type HeaderValue = string | number;

/**
 * What the pipeline reads of a request: node:http's IncomingMessage, or a
 * plain request the fast path read (src/http/fast-path.ts).
 */
export interface RequestHead {
  readonly method?: string | undefined;
  readonly url?: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly socket: Socket;
  /** the whole request has arrived (its body, if any, read) */
  readonly complete: boolean;
}

/** What writes an answer: node:http's ServerResponse, or the fast path's. */
export interface Responder {
  writeHead(status: number, headers: HeaderValue[]): unknown;
  /**
   * The head from header lines already made (`name: value\r\n` each, checked
   * for line breaks), for a writer that sends text anyway (the fast path);
   * `framed`: the lines carry a Content-Length
   */
  writeHeadLines?(status: number, lines: string, framed: boolean): unknown;
  end(body?: string | Buffer, encoding?: BufferEncoding): unknown;
  destroy(): unknown;
}
