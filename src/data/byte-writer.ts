// Writing short texts into a Buffer by hand, for the answers written as bytes
// (GET /ip/:ip, POST /batch, `ipintel enrich`: millions of records a run):
// for the tens of bytes each piece has, a loop the JIT inlines costs less than
// Buffer#write or Buffer#copy, whose argument checks and native call dominate
// at that size.
import { Buffer } from 'node:buffer';

/**
 * Where Buffer#write starts to beat the loop for a one-byte-a-char text: its
 * fixed cost is ~60–70 ns, the loop's ~2 ns a char (Node 20, measured for
 * the compatible formats' memoised fragments, 100–200 chars each).
 */
const NATIVE_WRITE_FROM = 32;

/**
 * Writes `text`, which must be ASCII or a fragment of bytes held one char a
 * byte (latin1), at `at`, with room for it; returns the offset after it.
 */
export function writeAscii(out: Buffer, at: number, text: string): number {
  const length = text.length;
  if (length >= NATIVE_WRITE_FROM) return at + out.write(text, at, length, 'latin1');
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

const HEX = '0123456789abcdef';

/**
 * Per ASCII byte, how JSON.stringify writes it: 0 as it is; else after a
 * backslash, the letter of its short escape (\" \\ \b \t \n \f \r) or
 * `u` for \u00xx (the other control characters).
 */
const ESCAPE = new Uint8Array(128);
ESCAPE.fill(0x75, 0, 0x20); // u
for (const [byte, letter] of [
  [0x22, 0x22], // "
  [0x5c, 0x5c], // backslash
  [0x08, 0x62], // b
  [0x09, 0x74], // t
  [0x0a, 0x6e], // n
  [0x0c, 0x66], // f
  [0x0d, 0x72], // r
] as const) {
  ESCAPE[byte] = letter;
}

/** One ASCII code `c` as JSON.stringify writes it inside a string, at `at`; returns the offset after it. */
function writeJsonChar(out: Buffer, at: number, c: number): number {
  const escape = ESCAPE[c]!;
  if (escape === 0) {
    out[at] = c;
    return at + 1;
  }
  if (escape === 0x75) return writeAscii(out, at, `\\u00${HEX[c >> 4]!}${HEX[c & 15]!}`);
  out[at] = 0x5c; // backslash
  out[at + 1] = escape;
  return at + 2;
}

/**
 * Bytes [start, end) of ASCII text written as a JSON string, exactly as
 * JSON.stringify writes it; returns the offset after it, or -1 at a byte
 * beyond ASCII (the caller then takes the string path).
 */
export function writeJsonString(
  from: Uint8Array,
  start: number,
  end: number,
  out: Buffer,
  at: number,
): number {
  out[at++] = 0x22;
  for (let i = start; i < end; i++) {
    const c = from[i]!;
    if (c >= 0x80) return -1;
    at = writeJsonChar(out, at, c);
  }
  out[at++] = 0x22;
  return at;
}
