// One log line per request, in pino's JSON line format and through pino's
// destination, but formatted by hand and written in batches: the generic
// logger costs ~6 µs a line, and one write per event-loop turn still cost
// ~15 % of a cache hit under load (each write is a trip through libuv's
// thread pool). Lines wait at most `maxDelayMs`, or until `maxBytes` gather.
import { hostname } from 'node:os';
import { OutputBuffer } from '../data/output-buffer.js';

export interface AccessEntry {
  /** written as it is: a request id of respond.ts (nothing JSON must escape) */
  reqId: string;
  /** an HTTP method token, written as it is */
  method: string;
  url: string;
  status: number;
  ip: string;
  ms: number;
  /** the name of the API key the request came with (ASCII, nothing to escape; never the key) */
  key?: string | null;
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
  /**
   * The lines waiting, as bytes in one buffer used again after each flush.
   * Each line is made as one string and copied in at once, so it dies young:
   * kept as strings until the flush, lines stayed alive across young
   * collections and were promoted, to die in the old generation (~47 KB a
   * collection). Written field by field into the buffer instead, a line cost
   * ~1.5 µs of a loaded server's request (a JS loop a byte); as one template
   * and one native copy, ~1 µs (measured side by side, /vpn under load).
   */
  private readonly out: OutputBuffer;
  private timer: NodeJS.Timeout | null = null;
  /** `,"pid":…,"hostname":…` */
  private readonly base: string;
  /** the last line's time, and the line's start up to it: made once a millisecond */
  private stampMs = -1;
  private stamp = '';

  constructor(
    private readonly sink: LineSink,
    private readonly now: () => number = Date.now,
    private readonly batch: BatchOptions = { maxDelayMs: 50, maxBytes: 32 * 1024 },
  ) {
    this.base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
    this.out = new OutputBuffer(batch.maxBytes + 4096);
  }

  record(e: AccessEntry): void {
    // reqId (generated, or checked against [A-Za-z0-9._:@/+=-]), the method
    // (an HTTP token: the parser refuses others), the canonical address and
    // a key's name are ASCII with nothing to escape; the URL may need both
    const now = this.now();
    if (now !== this.stampMs) {
      this.stampMs = now;
      this.stamp = `${PREFIX}${now}${this.base}`;
    }
    const key = e.key ?? null;
    this.out.writeText(
      `${this.stamp},"reqId":"${e.reqId}","method":"${e.method}","url":${jsonString(e.url)},"status":${e.status},"ip":"${e.ip}"${key === null ? '' : `,"key":"${key}"`},"ms":${millisecondsText(e.ms)},"msg":"request"}\n`,
    );
    if (this.out.at >= this.batch.maxBytes) this.flush();
    else if (this.timer === null) {
      this.timer = setTimeout(this.flush, this.batch.maxDelayMs);
      // a pending log line does not keep the process alive; shutdown flushes it
      this.timer.unref();
    }
  }

  readonly flush = (): void => {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.out.at === 0) return;
    // one string a batch, for the destination pino writes through (a UTF-8 SonicBoom)
    const chunk = this.out.written().toString('utf8');
    this.out.at = 0;
    this.sink.write(chunk);
  };
}

const PREFIX = '{"level":30,"time":';

/**
 * A duration in milliseconds with at most two decimals (as the pipeline
 * rounds it), as String(ms) writes it, from small integers (whose text V8
 * keeps in a cache) rather than through the conversion of a fraction.
 */
export function millisecondsText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (!(ms >= 0) || hundredths > 0x7fffffff || hundredths / 100 !== ms) return String(ms);
  const fraction = hundredths % 100;
  const whole = (hundredths - fraction) / 100;
  if (fraction === 0) return `${whole}`;
  if (fraction % 10 === 0) return `${whole}.${fraction / 10}`;
  return fraction < 10 ? `${whole}.0${fraction}` : `${whole}.${fraction}`;
}

// what JSON must escape in a string: the quote, the backslash, control characters
// (and lone surrogates, which JSON.stringify escapes too)
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify for a string, without its cost when nothing needs escaping (nearly always). */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
