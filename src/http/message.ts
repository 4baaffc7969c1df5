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

/** What ends an answer whose head is written (src/http/write-batch.ts). */
export interface Ending {
  end(body?: string | Buffer, encoding?: BufferEncoding): unknown;
  destroy(): unknown;
}

/** node:http's ServerResponse, as the pipeline writes it: the head as a flat list of headers. */
export interface NodeResponder extends Ending {
  writeHead(status: number, headers: HeaderValue[]): unknown;
  writeHeadLines?: undefined;
}

/**
 * The fast path's writer: the head from header lines already made (`name:
 * value\r\n` each, checked for line breaks); `framed`: the lines carry a
 * Content-Length.
 */
export interface LineResponder extends Ending {
  writeHeadLines(status: number, lines: string, framed: boolean): unknown;
}

/** What writes an answer: node:http's ServerResponse, or the fast path's. */
export type Responder = NodeResponder | LineResponder;
