// The I/O of `ipintel enrich`: input read as byte chunks and split into lines
// at "\n" bytes (never decoded here), output gathered into one buffer and
// written every ~256 KiB, so memory stays bounded whatever the input size:
// one input chunk, one output buffer, one unfinished line — each allocated
// once and used again, not once per chunk (a run of a million lines would
// otherwise leave ~15 MB of chunks waiting for the GC).
import { performance } from 'node:perf_hooks';
import { Buffer } from 'node:buffer';
import { once } from 'node:events';
import { open } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { Enricher } from './enrich.js';
import { OutputBuffer } from '../data/output-buffer.js';

/** output handed to the stream from this size on: few writes, and a buffer that dies young */
const FLUSH_AT = 1 << 18;
/** A line longer than this many bytes (no line break in 1 MiB) is cut there, so memory stays bounded. */
export const MAX_LINE = 1 << 20;

export interface EnrichProgress {
  /** called about twice a second with the lines done so far */
  tick(lines: number): void;
  done(lines: number): void;
}

/** Where to cut a long line at most `limit` bytes in: not inside a UTF-8 character. */
function cutAt(bytes: Uint8Array, limit: number): number {
  let cut = limit;
  // a continuation byte (10xxxxxx) belongs with the byte before it
  while (cut > limit - 3 && (bytes[cut]! & 0xc0) === 0x80) cut--;
  return cut;
}

/**
 * The chunks of a file, read into two buffers in turn: the next chunk is read
 * (on libuv's thread pool) while the caller works on this one, and each is
 * valid until the next is asked for, which is how enrichStream uses them.
 * No allocation per chunk.
 */
export async function* fileChunks(path: string, size = 1 << 16): AsyncGenerator<Buffer> {
  const file = await open(path, 'r');
  const buffers = [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
  let turn = 0;
  let next = file.read(buffers[turn]!, 0, size, null);
  try {
    for (;;) {
      const { bytesRead, buffer } = await next;
      if (bytesRead === 0) return;
      turn ^= 1;
      next = file.read(buffers[turn]!, 0, size, null);
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    // a caller that stops early leaves one read in flight
    await next.catch(() => undefined);
    await file.close();
  }
}

export async function enrichStream(
  input: AsyncIterable<Buffer | string>,
  output: Writable,
  enricher: Enricher,
  progress: EnrichProgress | null,
): Promise<number> {
  const out = new OutputBuffer(FLUSH_AT + (1 << 16));
  out.writeText(enricher.header);
  // each chunk is copied after the unfinished line of the one before: lines
  // are whole in `work`, and the chunk itself may be reused by its source
  let work = Buffer.allocUnsafeSlow(1 << 19);
  let kept = 0;
  let lines = 0;
  let nextTick = performance.now() + 500;
  const flush = async (): Promise<void> => {
    const taken = out.take();
    const open = output.write(taken, (error) => {
      if (error == null) out.recycle(taken);
    });
    if (!open) await once(output, 'drain');
  };
  for await (const chunk of input) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (kept + bytes.length > work.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(2 * work.length, kept + bytes.length));
      work.copy(bigger, 0, 0, kept);
      work = bigger;
    }
    bytes.copy(work, kept);
    const length = kept + bytes.length;
    // the filled part only: a search must not run on into the bytes of older chunks
    const filled = work.subarray(0, length);
    let start = 0;
    // the unfinished line kept from the last chunk has no line break
    let newline = filled.indexOf(10, kept);
    while (newline !== -1) {
      // CRLF: the CR belongs to the line break, not the line
      const end = newline > start && work[newline - 1] === 13 ? newline - 1 : newline;
      enricher.line(work, start, end, out);
      lines++;
      start = newline + 1;
      newline = filled.indexOf(10, start);
    }
    while (length - start > MAX_LINE) {
      const cut = start + cutAt(work.subarray(start), MAX_LINE);
      enricher.line(work, start, cut, out);
      lines++;
      start = cut;
    }
    work.copy(work, 0, start, length);
    kept = length - start;
    if (out.at >= FLUSH_AT) await flush();
    if (progress !== null && performance.now() >= nextTick) {
      progress.tick(lines);
      nextTick = performance.now() + 500;
    }
  }
  if (kept > 0) {
    const end = work[kept - 1] === 13 ? kept - 1 : kept;
    enricher.line(work, 0, end, out);
    lines++;
  }
  if (out.at > 0) await flush();
  progress?.done(lines);
  return lines;
}
