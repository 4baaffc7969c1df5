// The I/O of `ipintel enrich`: input read in 64 KiB chunks and split into
// lines by hand, output gathered into ~64 KiB strings before each write (one
// write call per few hundred lines), so memory stays bounded whatever the
// input size: one input chunk, one output buffer, one unfinished line.
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import type { Enricher } from './enrich.js';

/** output gathered up to 64 KiB a write: large enough that writes are few, small enough to die young (GC) */
const FLUSH_AT = 1 << 16;
/** A line longer than this (no line break in 1 MiB) is cut there, so memory stays bounded. */
export const MAX_LINE = 1 << 20;

export interface EnrichProgress {
  /** called about twice a second with the lines done so far */
  tick(lines: number): void;
  done(lines: number): void;
}

export async function enrichStream(
  input: Readable,
  output: Writable,
  enricher: Enricher,
  progress: EnrichProgress | null,
): Promise<number> {
  input.setEncoding('utf8');
  let out = enricher.header;
  let rest = '';
  let lines = 0;
  let nextTick = performance.now() + 500;
  const flush = async (): Promise<void> => {
    const full = !output.write(out);
    out = '';
    if (full) await once(output, 'drain');
  };
  for await (const chunk of input as AsyncIterable<string>) {
    const text = rest === '' ? chunk : rest + chunk;
    let start = 0;
    let newline = text.indexOf('\n');
    while (newline !== -1) {
      // CRLF: the CR belongs to the line break, not the line
      const end = newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
      out += enricher.line(text.slice(start, end));
      lines++;
      start = newline + 1;
      newline = text.indexOf('\n', start);
    }
    rest = start === 0 ? text : text.slice(start);
    while (rest.length > MAX_LINE) {
      out += enricher.line(rest.slice(0, MAX_LINE));
      lines++;
      rest = rest.slice(MAX_LINE);
    }
    if (out.length >= FLUSH_AT) await flush();
    if (progress !== null && performance.now() >= nextTick) {
      progress.tick(lines);
      nextTick = performance.now() + 500;
    }
  }
  if (rest !== '') {
    out += enricher.line(rest.endsWith('\r') ? rest.slice(0, -1) : rest);
    lines++;
  }
  if (out !== '') await flush();
  progress?.done(lines);
  return lines;
}
