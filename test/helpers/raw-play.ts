// Raw byte streams played against an HTTP server on loopback, and what came
// back as a comparison sees it: how many answers, which of them are refusals
// of the parser (400, 408, 413, 431 written by a 'clientError' listener or by
// node:http itself), and whether the server closed the connection. A stream
// can follow a request whose answer takes SLOW_MS (a whois lookup against
// slowRdap()), so that its bytes arrive while an answer is on its way.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

/** How long the slow answer takes (the RDAP upstream's delay). */
export const SLOW_MS = 150;
/** A request whose answer takes SLOW_MS: a whois lookup against slowRdap() (CACHE_MAX_ENTRIES=0). */
export const SLOW_GET = 'GET /whois/23.0.2.10 HTTP/1.1\r\nHost: a\r\n\r\n';

const RDAP_BODY = readFileSync(new URL('../fixtures/rdap/arin_23.0.2.10.json', import.meta.url));

/** An RDAP server on loopback that answers every query with one record after SLOW_MS. */
export async function slowRdap(): Promise<{ url: string; close(): void }> {
  const server = createServer((_req, res) => {
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/rdap+json' }).end(RDAP_BODY),
      SLOW_MS,
    );
  });
  await listen(server);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.close();
      server.closeAllConnections();
    },
  };
}

export function listen(server: Server): Promise<void> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
}

/** What a stream got back. */
export interface Outcome {
  /** 'answer' or 'refusal', one per answer, in order */
  answers: ('answer' | 'refusal')[];
  /** the server closed the connection */
  closed: boolean;
  /** the statuses, for the failure message */
  statuses: number[];
}

export interface PlayOptions {
  /** bytes written first, on their own, whose answer takes SLOW_MS (SLOW_GET) */
  slowFirst?: boolean;
  /** time between parts */
  gapMs?: number;
  /** the client ends its side after the last part */
  halfClose?: boolean;
  /** answers to wait for (or the close) before a quiet spell ends the stream */
  expect?: number;
  /** how long the connection must be quiet, once all is sent and the answers waited for are in, for the outcome to be read */
  quietMs?: number;
}

/** Writes `parts` to the server at `port` and reads what comes back until the close or a quiet spell. */
export function play(port: number, parts: string[], options: PlayOptions = {}): Promise<Outcome> {
  const {
    slowFirst = false,
    gapMs = 15,
    halfClose = false,
    expect = slowFirst ? 1 : 0,
    quietMs = 150,
  } = options;
  return new Promise((resolve) => {
    let raw = '';
    let done = false;
    let sentAll = false;
    let lastByte = performance.now();
    const started = performance.now();
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearInterval(watch);
      socket.destroy();
      const answers = splitAnswers(raw);
      resolve({
        answers: answers.map((a) => (isRefusal(a) ? 'refusal' : 'answer')),
        statuses: answers.map((a) => a.status),
        closed,
      });
    };
    const socket = connect({ host: '127.0.0.1', port, noDelay: true }, () => {
      void (async () => {
        const all = slowFirst ? [SLOW_GET, ...parts] : parts;
        for (const part of all) {
          if (socket.destroyed) break;
          socket.write(Buffer.from(part, 'latin1'));
          await new Promise((r) => setTimeout(r, gapMs));
        }
        if (halfClose && !socket.destroyed) socket.end();
        sentAll = true;
        lastByte = performance.now();
      })();
    });
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      raw += chunk;
      lastByte = performance.now();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish(true));
    // with a slow answer first, nothing is read as the outcome before it came
    let due = expect === 0;
    const watch = setInterval(() => {
      const now = performance.now();
      due ||= splitAnswers(raw).length >= expect;
      if (sentAll && due && now - lastByte >= quietMs) finish(false);
      if (now - started > 5_000 + quietMs) finish(false);
    }, 20);
  });
}

interface Answer {
  status: number;
  head: string;
  body: string;
}

/** A parser refusal: written by a 'clientError' listener (node's has no body, the service's names the error). */
function isRefusal(answer: Answer): boolean {
  if (![400, 408, 413, 431].includes(answer.status)) return false;
  return (
    answer.body === '' ||
    /Malformed HTTP request|headers are too large|did not arrive in time/.test(answer.body)
  );
}

/** The answers in a connection's bytes: framed by Content-Length, chunked, or (a refusal) by nothing. */
export function splitAnswers(raw: string): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const head = raw.slice(at, end);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? NaN);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    let bodyEnd = end + 4;
    if (length !== null) bodyEnd += Number(length[1]);
    else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const last = raw.indexOf('\r\n0\r\n\r\n', end);
      const first = raw.startsWith('0\r\n\r\n', end + 4) ? end + 4 : -1;
      if (first !== -1) bodyEnd = first + 5;
      else if (last !== -1) bodyEnd = last + 7;
      else break;
    }
    if (bodyEnd > raw.length) break;
    answers.push({ status, head, body: raw.slice(end + 4, bodyEnd) });
    at = bodyEnd;
  }
  return answers;
}
