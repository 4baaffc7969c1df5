// The CSV's rows from the stream of elementary intervals and their answers
// (build-export.ts finds them): neighbouring intervals with the same answers
// are one row, written as bytes into 1 MB buffers (no row is ever one string:
// 8 million of them were). It runs in the CSV worker (csv-worker.ts), beside
// the main thread that looks the intervals up and writes the MMDB files; the
// stream reaches it as chunks of fixed-size operations (below).
import { Buffer } from 'node:buffer';
import { decrement } from '../net/cidr-cover.js';
import { v4RangeColumns, v6RangeColumns } from './cidrs.js';
import { NO_DATA } from './mmdb-tree.js';

/** One part of answers (a place, a network, a detection): its MMDB offset and CSV columns. */
export interface CsvPart {
  offset: number;
  /** its CSV columns as UTF-8, each after a comma */
  csv: Buffer;
}

/** Where the rows' bytes go (a file hashed on the way). */
export interface ByteOutput {
  write(chunk: Buffer | string): void;
}

// An operation is OP_WORDS words: [op, w0, w1, w2, w3, place, network, detection]
// (the part ids as the parts were announced; 0 where unused).
export const OP_WORDS = 8;
/** an IPv4 interval starts at w3 */
export const OP_ADD_V4 = 4;
/** an IPv6 interval starts at (w0 w1 w2 w3) */
export const OP_ADD_V6 = 6;
/** a stretch with no rows of its own starts at (w0 w1 w2 w3): the IPv4-mapped alias */
export const OP_GAP = 1;
/** the family w0 (4 or 6) ends: its last row ends at its last address */
export const OP_END = 2;

/** The CSV's pieces gathered into 1 MB writes, encoded as they come. */
class BufferedBytes {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private size = 0;

  constructor(private readonly out: ByteOutput) {}

  // short pieces are copied in JS: Buffer#write and #copy cross into C++ per
  // call, which cost more than the copy for a few dozen bytes (8 million rows)
  ascii(text: string): void {
    if (this.size + text.length > this.buffer.length) this.flush();
    if (text.length > this.buffer.length) {
      this.out.write(text);
      return;
    }
    const buffer = this.buffer;
    let at = this.size;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.size = at;
  }

  bytes(bytes: Buffer): void {
    if (this.size + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) this.out.write(bytes);
    else if (bytes.length > 64) {
      this.buffer.set(bytes, this.size);
      this.size += bytes.length;
    } else {
      // a part's columns are a few dozen bytes: copied in JS, as ascii() does
      const buffer = this.buffer;
      let at = this.size;
      for (let i = 0; i < bytes.length; i++) buffer[at++] = bytes[i]!;
      this.size = at;
    }
  }

  flush(): void {
    if (this.size === 0) return;
    this.out.write(this.buffer.subarray(0, this.size));
    this.size = 0;
  }
}

/** The CSV's rows: neighbouring intervals with the same answers are one row. */
export class CsvRows {
  count = 0;
  private readonly sink: BufferedBytes;
  /** the parts announced so far, by id */
  private readonly parts: CsvPart[] = [];
  private family: 4 | 6 = 4;
  /** the open row's first address (IPv4: the last word) */
  private readonly start = new Uint32Array(4);
  /** its last address, once known */
  private readonly last = new Uint32Array(4);
  private open: [CsvPart, CsvPart, CsvPart] | null = null;

  constructor(out: ByteOutput, header: string) {
    this.sink = new BufferedBytes(out);
    this.sink.ascii(`${header}\n`);
  }

  /** A part the operations will name by `id` (ids are given in order, from 0). */
  announce(id: number, offset: number, csv: string): void {
    if (id !== this.parts.length) throw new Error(`part ${id} announced out of order`);
    this.parts.push({ offset, csv: Buffer.from(csv, 'utf8') });
  }

  /** Applies `count` operations of `ops` (OP_WORDS words each). */
  apply(ops: Uint32Array, count: number): void {
    for (let i = 0; i < count; i++) {
      const at = i * OP_WORDS;
      const op = ops[at]!;
      const w0 = ops[at + 1]!;
      const w1 = ops[at + 2]!;
      const w2 = ops[at + 3]!;
      const w3 = ops[at + 4]!;
      if (op === OP_ADD_V4 || op === OP_ADD_V6) {
        const family = op === OP_ADD_V4 ? 4 : 6;
        this.add(family, w0, w1, w2, w3, ops[at + 5]!, ops[at + 6]!, ops[at + 7]!);
      } else if (op === OP_GAP) this.flushBefore(w0, w1, w2, w3);
      else if (op === OP_END) this.end(w0 === 4 ? 4 : 6);
      else throw new Error(`unknown CSV operation ${op}`);
    }
  }

  /** Writes what is buffered (after the last operation). */
  finish(): void {
    this.sink.flush();
  }

  private add(
    family: 4 | 6,
    w0: number,
    w1: number,
    w2: number,
    w3: number,
    placeId: number,
    networkId: number,
    detectionId: number,
  ): void {
    const place = this.parts[placeId]!;
    const network = this.parts[networkId]!;
    const detection = this.parts[detectionId]!;
    const p = this.open;
    if (p !== null && same(p[0], place) && same(p[1], network) && same(p[2], detection)) return;
    this.flushBefore(w0, w1, w2, w3);
    this.family = family;
    this.start[0] = w0;
    this.start[1] = w1;
    this.start[2] = w2;
    this.start[3] = w3;
    this.open = [place, network, detection];
  }

  /** The family's last row ends at its last address. */
  private end(family: 4 | 6): void {
    this.last.fill(family === 4 ? 0 : 0xffffffff);
    this.last[3] = 0xffffffff;
    this.flush();
  }

  /** The open row ends just before (w0 w1 w2 w3). */
  private flushBefore(w0: number, w1: number, w2: number, w3: number): void {
    if (this.open === null) return;
    this.last[0] = w0;
    this.last[1] = w1;
    this.last[2] = w2;
    this.last[3] = w3;
    decrement(this.last);
    this.flush();
  }

  private flush(): void {
    const parts = this.open;
    this.open = null;
    if (parts === null) return;
    // nothing known and nothing flagged: no row (a bogon, unrouted space)
    if (parts[0].offset === NO_DATA && parts[1].offset === NO_DATA && parts[2].offset === NO_DATA) {
      return;
    }
    const range =
      this.family === 4
        ? v4RangeColumns(this.start[3]!, this.last[3]!)
        : v6RangeColumns(this.start, this.last);
    const sink = this.sink;
    sink.ascii(range);
    sink.bytes(parts[0].csv);
    sink.bytes(parts[1].csv);
    sink.bytes(parts[2].csv);
    sink.ascii('\n');
    this.count++;
  }
}

/** Two parts write the same (the part of an override and the data's can be equal). */
function same(a: CsvPart, b: CsvPart): boolean {
  return a === b || (a.offset === b.offset && a.csv.equals(b.csv));
}
