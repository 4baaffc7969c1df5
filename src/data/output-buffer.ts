// Output built as bytes (POST /batch, `ipintel enrich`, the access log): texts are written
// straight into one Buffer that grows as needed. For a stream (enrich), the
// bytes are handed over whole when full enough and another buffer taken
// while the stream owns them; buffers come back when written (`recycle`), so
// a run of millions of lines uses two or three, not thousands for the
// allocator and the GC to return.
import { Buffer } from 'node:buffer';

export class OutputBuffer {
  bytes: Buffer;
  /** the bytes written so far end here */
  at = 0;

  /** written buffers, ready for reuse */
  private readonly spare: Buffer[] = [];

  constructor(private readonly size: number) {
    this.bytes = Buffer.allocUnsafeSlow(size);
  }

  /** The buffer, with room for `n` more bytes after `at` (grown when needed). */
  reserve(n: number): Buffer {
    if (this.at + n > this.bytes.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(2 * this.bytes.length, this.at + n));
      this.bytes.copy(bigger, 0, 0, this.at);
      this.bytes = bigger;
    }
    return this.bytes;
  }

  /** The bytes written so far (a view, not a copy). */
  written(): Buffer {
    return this.bytes.subarray(0, this.at);
  }

  writeText(text: string): void {
    // a UTF-16 code unit is at most 3 bytes of UTF-8
    this.at += this.reserve(3 * text.length).write(text, this.at, 'utf8');
  }

  /** The bytes written so far; writing goes on in another buffer. */
  take(): Buffer {
    const full = this.bytes.subarray(0, this.at);
    this.bytes = this.spare.pop() ?? Buffer.allocUnsafeSlow(this.size);
    this.at = 0;
    return full;
  }

  /** A buffer take() gave, now written: it may be filled again. */
  recycle(taken: Buffer): void {
    // a buffer grown for a long line is left to the GC
    if (taken.buffer.byteLength === this.size && this.spare.length < 2) {
      this.spare.push(Buffer.from(taken.buffer, 0, this.size));
    }
  }
}
