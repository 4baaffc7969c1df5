// One compiled data set in one file: a JSON header (the manifest and a
// directory of sections) and the typed arrays themselves, each aligned to 8
// bytes, so that loading is one read and a view per section — no parsing.
//
// Layout: "IPINTEL-TABLES\n", uint32 LE format version, uint32 LE header
// length, the header (UTF-8 JSON), zero padding to 8, the sections.
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { writeFileAtomicSync } from '../kit/atomic-file.js';

const MAGIC = 'IPINTEL-TABLES\n';
export const TABLE_FORMAT = 1;
/** The file's first bytes: the magic, the format version and the header's length. */
const HEAD_BYTES = MAGIC.length + 8;

export type Section = Uint32Array | Uint8Array;

interface SectionEntry {
  name: string;
  type: 'u32' | 'u8';
  offset: number;
  length: number;
}

interface FileHeader<M> {
  manifest: M;
  sections: SectionEntry[];
}

const align8 = (n: number): number => (n + 7) & ~7;

/** Writes the file beside its final name, then renames it into place (never half a file). */
export function writeTableFile<M>(
  path: string,
  manifest: M,
  sections: Readonly<Record<string, Section>>,
): number {
  const entries: SectionEntry[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(sections)) {
    const type = data instanceof Uint32Array ? 'u32' : 'u8';
    entries.push({ name, type, offset, length: data.length });
    offset = align8(offset + data.byteLength);
  }
  const header = Buffer.from(
    JSON.stringify({ manifest, sections: entries } satisfies FileHeader<M>),
  );
  const bodyStart = align8(HEAD_BYTES + header.length);
  const file = Buffer.alloc(bodyStart + offset);
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(TABLE_FORMAT, MAGIC.length);
  file.writeUInt32LE(header.length, MAGIC.length + 4);
  header.copy(file, HEAD_BYTES);
  for (const entry of entries) {
    const data = sections[entry.name]!;
    file.set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      bodyStart + entry.offset,
    );
  }
  writeFileAtomicSync(path, file);
  return file.length;
}

export class TableFileError extends Error {
  constructor(path: string, why: string) {
    super(`${path}: ${why}`);
    this.name = 'TableFileError';
  }
}

export interface TableFile<M> {
  manifest: M;
  u32(name: string): Uint32Array;
  u8(name: string): Uint8Array;
  /** what of the sections is in memory: WHOLE for a file read whole */
  pager: Pager;
}

/** Reads a table file: the manifest, and views of its sections over one buffer. */
export function readTableFile<M>(path: string): TableFile<M> {
  return parseTableFile(path, readFileSync(path));
}

/** As readTableFile, the bytes read off the main thread (a hot swap while serving). */
export async function readTableFileAsync<M>(path: string): Promise<TableFile<M>> {
  return parseTableFile(path, await readFile(path));
}

function parseTableFile<M>(path: string, file: Buffer): TableFile<M> {
  const length = headerLength(path, file.subarray(0, HEAD_BYTES), file.length);
  const header = JSON.parse(
    file.toString('utf8', HEAD_BYTES, HEAD_BYTES + length),
  ) as FileHeader<M>;
  const bodyStart = align8(HEAD_BYTES + length);
  // typed-array views need aligned offsets: a large read is its own allocation
  // (offset 0), but copy rather than trust it
  const body =
    (file.byteOffset + bodyStart) % 8 === 0
      ? file.subarray(bodyStart)
      : Buffer.from(Uint8Array.prototype.slice.call(file, bodyStart));
  return tableFileOver(path, header, body, WHOLE);
}

/** The manifest, and views of the sections over `body` (which holds them all, read or not). */
function tableFileOver<M>(
  path: string,
  header: FileHeader<M>,
  body: Uint8Array,
  pager: Pager,
): TableFile<M> {
  const byName = new Map(header.sections.map((s) => [s.name, s]));
  const section = (name: string, type: 'u32' | 'u8'): SectionEntry => {
    const entry = byName.get(name);
    if (entry === undefined || entry.type !== type) {
      throw new TableFileError(path, `section ${name} (${type}) is missing`);
    }
    if (entry.offset + sectionBytes(entry) > body.length)
      throw new TableFileError(path, `section ${name} is truncated`);
    return entry;
  };
  return {
    manifest: header.manifest,
    pager,
    u32: (name) => {
      const s = section(name, 'u32');
      return new Uint32Array(body.buffer, body.byteOffset + s.offset, s.length);
    },
    u8: (name) => {
      const s = section(name, 'u8');
      return Buffer.from(body.buffer, body.byteOffset + s.offset, s.length);
    },
  };
}

/** Bytes read together: a page-cache copy of 64 KB costs little more than one of 4 KB. */
const CHUNK_SHIFT = 16;
const CHUNK_BYTES = 1 << CHUNK_SHIFT;
/** what readRest reads in one turn of the event loop (a few milliseconds at most) */
const SLICE_BYTES = 1024 * 1024;

/**
 * Some sections of a paged file that a reader checks as one (a table's IPv4
 * arrays, a set's record bytes): `whole` once every chunk under them is read,
 * so a process that never reads the whole file — `ipintel enrich` over an
 * IPv4 log never reads the IPv6 half — stops checking each part it has read.
 */
export class PagedSpan {
  whole: boolean;

  constructor(
    readonly firstChunk: number,
    readonly endChunk: number,
    /** chunks of [firstChunk, endChunk) not read yet */
    public unread: number,
  ) {
    this.whole = unread === 0;
  }
}

const WHOLE_SPAN = new PagedSpan(0, 0, 0);

/**
 * Which parts of a table file's sections are in memory. A file opened with
 * openTableFile has views over one buffer the size of its body, allocated
 * but untouched (no memory of its own yet); a lookup asks for the entries it
 * is about to read (`need`), and the chunks holding them are read then. So a
 * service answers before its tables are in memory — reading 60 MB into fresh
 * memory is most of a start on a VM that hands freed memory back to its host
 * (docs/design.md) — and `readRest` reads the rest after it listens.
 * A process that needs little (one CLI lookup, an IPv4-only log) reads
 * little. Readers check the span they read first (`span`, or `whole`): once
 * it is read, a lookup costs one load and one branch more than over plain
 * arrays.
 */
export class Pager {
  /** true when every section is in memory: `need` is then never necessary */
  whole: boolean;
  private readonly read: Uint8Array;
  private unread: number;
  /** the spans handed out that are not whole yet */
  private spans: PagedSpan[] = [];
  /** the first chunk readRest has not looked at */
  private cursor = 0;

  constructor(
    private readonly file: {
      path: string;
      fd: number;
      bodyStart: number;
      body: Uint8Array;
      sections: readonly SectionEntry[];
    } | null,
  ) {
    const chunks = file === null ? 0 : Math.ceil(file.body.length / CHUNK_BYTES);
    this.read = new Uint8Array(chunks);
    this.unread = chunks;
    this.whole = chunks === 0;
    if (this.whole && file !== null) closeSync(file.fd);
  }

  /** The span under these views (sections of this file), whole once they are all read. */
  span(views: readonly (Section | Int32Array)[]): PagedSpan {
    if (this.whole) return WHOLE_SPAN;
    let start = Infinity;
    let end = 0;
    for (const view of views) {
      if (view.byteLength === 0) continue;
      start = Math.min(start, view.byteOffset);
      end = Math.max(end, view.byteOffset + view.byteLength);
    }
    if (end === 0) return WHOLE_SPAN;
    const first = start >>> CHUNK_SHIFT;
    const last = ((end - 1) >>> CHUNK_SHIFT) + 1;
    let unread = 0;
    for (let chunk = first; chunk < last; chunk++) unread += 1 - this.read[chunk]!;
    const span = new PagedSpan(first, last, unread);
    if (!span.whole) this.spans.push(span);
    return span;
  }

  /** Makes entries [from, to) of `view` (a section of this file, or a view of one) readable. */
  need(view: Section | Int32Array, from: number, to: number): void {
    const at = view.byteOffset;
    this.needBytes(at + from * view.BYTES_PER_ELEMENT, at + to * view.BYTES_PER_ELEMENT);
  }

  /**
   * Makes bytes [start, end) of the body readable (need's hot form: a lookup
   * passes offsets it computed from arrays of one type, which keeps both
   * sites monomorphic — `need` over several array types cost ~0.6 µs a
   * line in `ipintel enrich`).
   */
  needBytes(start: number, end: number): void {
    // kept small enough to be inlined: the chunk of a lookup's entries is
    // nearly always one, and read already
    const first = start >>> CHUNK_SHIFT;
    if (this.whole || (this.read[first] === 1 && (end - 1) >>> CHUNK_SHIFT === first)) return;
    this.readRange(start, end);
  }

  private readRange(start: number, end: number): void {
    if (end <= start) return;
    const last = (end - 1) >>> CHUNK_SHIFT;
    for (let chunk = start >>> CHUNK_SHIFT; chunk <= last; chunk++) {
      if (this.read[chunk] === 0) this.readChunks(chunk, last + 1);
    }
    // A span half read by lookups is one this process uses everywhere: read
    // the rest of it now. Some of its chunks no lookup may ever ask for (the
    // ranges of multicast space, records no address of the input names), and
    // until it is whole every lookup in it pays for the checks. Not while
    // readRest runs: it reads them a slice a turn, where this would read up
    // to a whole span (53 MB of IPv6 arrays) inside one lookup.
    if (this.restRunning) return;
    for (const span of this.spans.filter((s) => 2 * s.unread <= s.endChunk - s.firstChunk)) {
      for (let chunk = span.firstChunk; chunk < span.endChunk && !span.whole; chunk++) {
        if (this.read[chunk] === 0) this.readChunks(chunk, span.endChunk);
      }
    }
  }

  /**
   * Reads every chunk not read yet, a slice per turn of the event loop (so
   * that answers go on meanwhile), then closes the file.
   */
  async readRest(): Promise<void> {
    this.restRunning = true;
    try {
      while (!this.whole) {
        while (this.cursor < this.read.length && this.read[this.cursor] === 1) this.cursor++;
        this.readChunks(this.cursor, this.cursor + SLICE_BYTES / CHUNK_BYTES);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.restRunning = false;
    }
  }

  private restRunning = false;

  /** Reads the unread chunks from `first` (unread) up to the next read one or `limit`. */
  private readChunks(first: number, limit: number): void {
    const file = this.file!;
    let end = first + 1;
    while (end < Math.min(limit, this.read.length) && this.read[end] === 0) end++;
    const from = first * CHUNK_BYTES;
    const to = Math.min(end * CHUNK_BYTES, file.body.length);
    for (let done = from; done < to;) {
      const got = readSync(file.fd, file.body, done, to - done, file.bodyStart + done);
      if (got === 0) {
        const section = file.sections.findLast((entry) => entry.offset <= done);
        throw new TableFileError(file.path, `section ${section?.name ?? '?'} is truncated`);
      }
      done += got;
    }
    this.read.fill(1, first, end);
    this.unread -= end - first;
    for (const span of this.spans) {
      // [first, end) were all unread: each chunk counts once
      span.unread -= Math.max(0, Math.min(end, span.endChunk) - Math.max(first, span.firstChunk));
      span.whole = span.unread === 0;
    }
    this.spans = this.spans.filter((span) => !span.whole);
    if (this.unread === 0) {
      this.whole = true;
      closeSync(file.fd);
    }
  }
}

/** The pager of tables read whole (or compiled in this process). */
export const WHOLE = new Pager(null);

/**
 * A table file whose sections are read as they are needed (Pager): the
 * manifest and the directory are read now, every section must lie within the
 * file. The file stays open until all of it has been read; a file replaced
 * meanwhile (an update renames a new one into place) is still read from the
 * version opened.
 */
export function openTableFile<M>(path: string): TableFile<M> {
  const fd = openSync(path, 'r');
  try {
    const { header, bodyStart, size } = readHeader<M>(fd, path);
    let bodyBytes = 0;
    for (const entry of header.sections) {
      const end = entry.offset + sectionBytes(entry);
      if (bodyStart + end > size)
        throw new TableFileError(path, `section ${entry.name} is truncated`);
      bodyBytes = Math.max(bodyBytes, end);
    }
    // zero-filled on allocation by the system, not by a write: untouched
    // until read, it takes no memory yet
    const body = new Uint8Array(new ArrayBuffer(bodyBytes));
    const pager = new Pager({ path, fd, bodyStart, body, sections: header.sections });
    return tableFileOver(path, header, body, pager);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

const sectionBytes = (entry: SectionEntry): number => entry.length * (entry.type === 'u32' ? 4 : 1);

/** The header's length, from the file's first HEAD_BYTES bytes, once they say it is a table file of ours. */
function headerLength(path: string, head: Buffer, size: number): number {
  if (head.length < HEAD_BYTES || head.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    throw new TableFileError(path, 'not a compiled table file');
  }
  const format = head.readUInt32LE(MAGIC.length);
  if (format !== TABLE_FORMAT) {
    throw new TableFileError(path, `table format ${format}, this version reads ${TABLE_FORMAT}`);
  }
  const length = head.readUInt32LE(MAGIC.length + 4);
  if (HEAD_BYTES + length > size) throw new TableFileError(path, 'header is truncated');
  return length;
}

function readHeader<M>(
  fd: number,
  path: string,
): { header: FileHeader<M>; bodyStart: number; size: number } {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(HEAD_BYTES);
  const length = headerLength(path, head.subarray(0, readSync(fd, head, 0, HEAD_BYTES, 0)), size);
  const text = Buffer.alloc(length);
  readSync(fd, text, 0, length, HEAD_BYTES);
  const header = JSON.parse(text.toString('utf8')) as FileHeader<M>;
  return { header, bodyStart: align8(HEAD_BYTES + length), size };
}

/** Only the manifest of a table file (a few kilobytes read), or null when it is not one. */
export function readTableManifest<M>(path: string): M | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    return readHeader<M>(fd, path).header.manifest;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
