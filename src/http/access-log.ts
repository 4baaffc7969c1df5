// One log line per request, in pino's JSON line format and through pino's
// destination, but formatted by hand and written in batches: the generic
// logger costs ~6 µs a line, and one write per event-loop turn still cost
// ~15 % of a cache hit under load (each write is a trip through libuv's
// thread pool). Lines wait at most `maxDelayMs`, or until `maxBytes` gather.
import { hostname } from 'node:os';

export interface AccessEntry {
  /** written as it is: a request id of respond.ts (nothing JSON must escape) */
  reqId: string;
  /** an HTTP method token, written as it is */
  method: string;
  url: string;
  status: number;
  ip: string;
  ms: number;
}

export interface AccessLog {
  record(entry: AccessEntry): void;
  /** writes what is waiting (at shutdown) */
  flush(): void;
}

export interface LineSink {
  write(chunk: string): unknown;
}

export const silentAccessLog: AccessLog = { record: () => undefined, flush: () => undefined };

export interface BatchOptions {
  maxDelayMs: number;
  maxBytes: number;
}

export class BatchedAccessLog implements AccessLog {
  private lines: string[] = [];
  private bytes = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly prefix = `{"level":30,"time":`;
  private readonly base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

  constructor(
    private readonly sink: LineSink,
    private readonly now: () => number = Date.now,
    private readonly batch: BatchOptions = { maxDelayMs: 50, maxBytes: 32 * 1024 },
  ) {}

  record(e: AccessEntry): void {
    // reqId (generated, or checked against [A-Za-z0-9._:@/+=-]), the method
    // (an HTTP token: the parser refuses others) and the canonical address
    // need no escaping; the URL may
    const line = `${this.prefix}${this.now()}${this.base},"reqId":"${e.reqId}","method":"${e.method}","url":${jsonString(e.url)},"status":${e.status},"ip":"${e.ip}","ms":${e.ms},"msg":"request"}\n`;
    this.lines.push(line);
    this.bytes += line.length;
    if (this.bytes >= this.batch.maxBytes) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(this.flush, this.batch.maxDelayMs);
      // a pending log line does not keep the process alive; shutdown flushes it
      this.timer.unref();
    }
  }

  readonly flush = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const chunk = this.lines.join('');
    this.lines = [];
    this.bytes = 0;
    this.sink.write(chunk);
  };
}

// what JSON must escape in a string: the quote, the backslash, control characters
// (and lone surrogates, which JSON.stringify escapes too)
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify for a string, without its cost when nothing needs escaping (nearly always). */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
