// One log line per request, in pino's JSON line format and through pino's
// destination, but formatted by hand and written in batches: the generic
// logger costs ~6 µs a line, and one write per event-loop turn still cost
// ~15 % of a cache hit under load (each write is a trip through libuv's
// thread pool). Lines wait at most `maxDelayMs`, or until `maxBytes` gather.
import { Buffer } from 'node:buffer';
import { hostname } from 'node:os';
import { copyBytes, writeAscii, writeJsonText } from '../data/byte-writer.js';
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
   * The lines waiting, as bytes: written field by field into one buffer used
   * again after each flush. Kept as strings, each line was a dozen pieces of
   * concatenation that stayed alive in the batch across young collections and
   * were promoted, to die in the old generation (~47 KB a collection).
   */
  private readonly out: OutputBuffer;
  private timer: NodeJS.Timeout | null = null;
  private readonly base: Buffer;
  /** the last line's time, and its digits */
  private stampMs = -1;
  private readonly stamp = Buffer.alloc(24);
  private stampLength = 0;

  constructor(
    private readonly sink: LineSink,
    private readonly now: () => number = Date.now,
    private readonly batch: BatchOptions = { maxDelayMs: 50, maxBytes: 32 * 1024 },
  ) {
    this.base = Buffer.from(`,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`);
    this.out = new OutputBuffer(batch.maxBytes + 4096);
  }

  record(e: AccessEntry): void {
    // reqId (generated, or checked against [A-Za-z0-9._:@/+=-]), the method
    // (an HTTP token: the parser refuses others) and the canonical address
    // are ASCII with nothing to escape; the URL may need both (escaped, at
    // most 6 bytes a character: "\u001f"; as UTF-8, at most 3)
    const bound =
      PREFIX.length + 24 + this.base.length + e.reqId.length + e.method.length + 6 * e.url.length;
    const key = e.key ?? null;
    const b = this.out.reserve(bound + e.ip.length + (key === null ? 0 : key.length + 9) + 128);
    let at = writeAscii(b, this.out.at, PREFIX);
    // a timestamp's 13 digits cost ~25 divisions: made once a millisecond
    // (a loaded server logs dozens of lines in one) and copied
    const now = this.now();
    if (now !== this.stampMs) {
      this.stampLength = writeUint(this.stamp, 0, now);
      this.stampMs = now;
    }
    at = copyBytes(this.stamp, 0, this.stampLength, b, at);
    at = copyBytes(this.base, 0, this.base.length, b, at);
    at = writeAscii(b, at, ',"reqId":"');
    at = writeAscii(b, at, e.reqId);
    at = writeAscii(b, at, '","method":"');
    at = writeAscii(b, at, e.method);
    at = writeAscii(b, at, '","url":');
    const urlEnd = writeJsonText(b, at, e.url);
    at = urlEnd >= 0 ? urlEnd : at + b.write(jsonString(e.url), at, 'utf8');
    at = writeAscii(b, at, ',"status":');
    at = writeUint(b, at, e.status);
    at = writeAscii(b, at, ',"ip":"');
    at = writeAscii(b, at, e.ip);
    if (key !== null) {
      at = writeAscii(b, at, '","key":"');
      at = writeAscii(b, at, key);
    }
    at = writeAscii(b, at, '","ms":');
    at = writeMilliseconds(b, at, e.ms);
    at = writeAscii(b, at, ',"msg":"request"}\n');
    this.out.at = at;
    if (at >= this.batch.maxBytes) this.flush();
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

/** A non-negative integer's decimal digits (a timestamp, a status) written at `at`. */
function writeUint(out: Buffer, at: number, value: number): number {
  if (value < 10) {
    out[at] = 0x30 + value;
    return at + 1;
  }
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  for (let i = digits - 1, rest = value; i >= 0; i--, rest = Math.floor(rest / 10)) {
    out[at + i] = 0x30 + (rest % 10);
  }
  return at + digits;
}

/**
 * A duration in milliseconds with at most two decimals (as the pipeline
 * rounds it), written as String(ms) would, without its number-to-text
 * conversion (the costliest step of a log line).
 */
export function writeMilliseconds(out: Buffer, at: number, ms: number): number {
  const hundredths = Math.round(ms * 100);
  if (!(ms >= 0) || hundredths > Number.MAX_SAFE_INTEGER || hundredths / 100 !== ms) {
    return writeAscii(out, at, String(ms));
  }
  const fraction = hundredths % 100;
  at = writeUint(out, at, (hundredths - fraction) / 100);
  if (fraction === 0) return at;
  out[at++] = 0x2e; // .
  out[at++] = 0x30 + Math.floor(fraction / 10);
  if (fraction % 10 !== 0) out[at++] = 0x30 + (fraction % 10);
  return at;
}

// what JSON must escape in a string: the quote, the backslash, control characters
// (and lone surrogates, which JSON.stringify escapes too)
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify for a string, without its cost when nothing needs escaping (nearly always). */
export function jsonString(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}
