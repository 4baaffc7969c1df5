// An open file written in pieces and hashed on the way (SHA-256, for the
// export's manifest): the main thread's files and the CSV worker's use it.
import { createHash } from 'node:crypto';
import { writeSync } from 'node:fs';
import type { Buffer } from 'node:buffer';

export class HashedOutput {
  private readonly hash = createHash('sha256');
  private written = 0;

  constructor(private readonly fd: number) {}

  write(chunk: Buffer | string): void {
    this.hash.update(chunk);
    if (typeof chunk === 'string') this.written += writeSync(this.fd, chunk);
    else {
      let done = 0;
      while (done < chunk.length) done += writeSync(this.fd, chunk, done, chunk.length - done);
      this.written += done;
    }
  }

  /** Bytes written and their SHA-256 (once: the hash is finished). */
  finish(): { bytes: number; sha256: string } {
    return { bytes: this.written, sha256: this.hash.digest('hex') };
  }
}
