// Writing short texts into a Buffer by hand, for the bulk path of `ipintel
// enrich` (millions of records a run): for the tens of bytes each piece has,
// a loop the JIT inlines costs less than Buffer#write or Buffer#copy, whose
// argument checks and native call dominate at that size.

/** Writes `text`, which must be ASCII (one byte a character), at `at`; returns the offset after it. */
export function writeAscii(out: Buffer, at: number, text: string): number {
  const length = text.length;
  for (let i = 0; i < length; i++) out[at + i] = text.charCodeAt(i);
  return at + length;
}

/** Where a native copy starts to beat the loop (its fixed cost is ~60 ns, the loop's ~1 ns a byte). */
const NATIVE_COPY_FROM = 64;

/** Copies bytes [start, end) of `from` to `out` at `at`; returns the offset after them. */
export function copyBytes(
  from: Uint8Array,
  start: number,
  end: number,
  out: Buffer,
  at: number,
): number {
  if (end - start >= NATIVE_COPY_FROM) {
    out.set(new Uint8Array(from.buffer, from.byteOffset + start, end - start), at);
    return at + end - start;
  }
  for (let i = start; i < end; i++) out[at++] = from[i]!;
  return at;
}
