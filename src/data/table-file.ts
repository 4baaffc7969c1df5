// One compiled data set in one file: a JSON header (the manifest and a
// directory of sections) and the typed arrays themselves, each aligned to 8
// bytes, so that loading is one read and a view per section — no parsing.
//
// Layout: "IPINTEL-TABLES\n", uint32 LE format version, uint32 LE header
// length, the header (UTF-8 JSON), zero padding to 8, the sections.
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import {
  closeSync,
  fstatSync,
  openSync,
  read,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
} from 'node:fs';

const MAGIC = 'IPINTEL-TABLES\n';
export const TABLE_FORMAT = 1;

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
  const headStart = MAGIC.length + 8;
  const bodyStart = align8(headStart + header.length);
  const file = Buffer.alloc(bodyStart + offset);
  file.write(MAGIC, 0, 'latin1');
  file.writeUInt32LE(TABLE_FORMAT, MAGIC.length);
  file.writeUInt32LE(header.length, MAGIC.length + 4);
  header.copy(file, headStart);
  for (const entry of entries) {
    const data = sections[entry.name]!;
    file.set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
      bodyStart + entry.offset,
    );
  }
  writeFileSync(`${path}.tmp`, file);
  renameSync(`${path}.tmp`, path);
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
  /**
   * Reads these sections now, adjacent ones in one read into one buffer, for
   * u32/u8 to return (a file opened section by section; a file read whole
   * has them all already).
   */
  readNow?(names: readonly string[]): void;
  /** As readNow, off the main thread, for u32/u8 to return later without a wait. */
  preload?(names: readonly string[]): Promise<void>;
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
  if (file.length < MAGIC.length + 8 || file.toString('latin1', 0, MAGIC.length) !== MAGIC) {
    throw new TableFileError(path, 'not a compiled table file');
  }
  const format = file.readUInt32LE(MAGIC.length);
  if (format !== TABLE_FORMAT) {
    throw new TableFileError(path, `table format ${format}, this version reads ${TABLE_FORMAT}`);
  }
  const headStart = MAGIC.length + 8;
  const headLength = file.readUInt32LE(MAGIC.length + 4);
  const header = JSON.parse(
    file.toString('utf8', headStart, headStart + headLength),
  ) as FileHeader<M>;
  const bodyStart = align8(headStart + headLength);
  // typed-array views need aligned offsets: a large read is its own allocation
  // (offset 0), but copy rather than trust it
  const body =
    (file.byteOffset + bodyStart) % 8 === 0
      ? file.subarray(bodyStart)
      : Buffer.from(Uint8Array.prototype.slice.call(file, bodyStart));
  const byName = new Map(header.sections.map((s) => [s.name, s]));
  const section = (name: string, type: 'u32' | 'u8'): SectionEntry => {
    const entry = byName.get(name);
    if (entry === undefined || entry.type !== type) {
      throw new TableFileError(path, `section ${name} (${type}) is missing`);
    }
    const bytes = entry.length * (type === 'u32' ? 4 : 1);
    if (entry.offset + bytes > body.length)
      throw new TableFileError(path, `section ${name} is truncated`);
    return entry;
  };
  return {
    manifest: header.manifest,
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

/**
 * A table file whose sections are read one by one when first asked for: a
 * process that needs only some of them (`ipintel enrich` over an IPv4 log
 * never touches the IPv6 sections, half the GeoIP file) reads and keeps only
 * those. The file stays open until every section has been read; a file
 * replaced meanwhile (an update renames a new one into place) is still read
 * from the version opened.
 */
export function openTableFile<M>(path: string): TableFile<M> {
  const fd = openSync(path, 'r');
  let header: FileHeader<M>;
  let bodyStart: number;
  let size: number;
  try {
    ({ header, bodyStart, size } = readHeader<M>(fd, path));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  const unread = new Set(header.sections.map((s) => s.name));
  /** sections read ahead by preload, waiting for u32/u8 */
  const ready = new Map<string, Buffer>();
  /** reads in flight: the descriptor stays open until they end */
  let pending = 0;
  let closed = false;
  const closeWhenDone = (): void => {
    if (closed || unread.size > 0 || pending > 0) return;
    closed = true;
    closeSync(fd);
  };
  const entryOf = (name: string, type: 'u32' | 'u8'): { entry: SectionEntry; bytes: number } => {
    const entry = header.sections.find((s) => s.name === name);
    if (entry === undefined || entry.type !== type) {
      throw new TableFileError(path, `section ${name} (${type}) is missing`);
    }
    const bytes = entry.length * (type === 'u32' ? 4 : 1);
    if (bodyStart + entry.offset + bytes > size) {
      throw new TableFileError(path, `section ${name} is truncated`);
    }
    return { entry, bytes };
  };
  /**
   * The unread sections among `names` as runs of sections adjacent in the
   * file, each to be read into one buffer: one large allocation instead of
   * several gets transparent huge pages over nearly all of it, which makes
   * reading the tables at start several times cheaper on this kind of VM
   * (README, design notes), and one read instead of several.
   */
  const runsOf = (names: readonly string[]): SectionRun[] => {
    const entries = header.sections
      // a missing section is for u32/u8 to report, when asked
      .filter((entry) => names.includes(entry.name) && unread.has(entry.name))
      .filter((entry) => !ready.has(entry.name))
      .map((entry) => ({ entry, bytes: entryOf(entry.name, entry.type).bytes }))
      .sort((a, b) => a.entry.offset - b.entry.offset);
    const runs: SectionRun[] = [];
    for (const section of entries) {
      const last = runs.at(-1);
      if (last !== undefined && section.entry.offset <= align8(last.start + last.bytes)) {
        last.sections.push(section.entry);
        last.bytes = section.entry.offset + section.bytes - last.start;
      } else {
        runs.push({ start: section.entry.offset, bytes: section.bytes, sections: [section.entry] });
      }
    }
    return runs;
  };
  /** The file ended `done` bytes into `run` (it shrank since it was opened): name that section. */
  const truncated = (run: SectionRun, done: number): TableFileError => {
    const at = run.start + done;
    const section = run.sections.findLast((entry) => entry.offset <= at) ?? run.sections[0]!;
    return new TableFileError(path, `section ${section.name} is truncated`);
  };
  /** A run's sections as views of its buffer, ready for u32/u8. */
  const keep = (run: SectionRun, buffer: Buffer): void => {
    for (const entry of run.sections) {
      // read meanwhile by u32/u8 (a lookup could not wait): this copy is not needed
      if (!unread.delete(entry.name)) continue;
      const bytes = entry.length * (entry.type === 'u32' ? 4 : 1);
      ready.set(
        entry.name,
        buffer.subarray(entry.offset - run.start, entry.offset - run.start + bytes),
      );
    }
  };
  const readNow = (names: readonly string[]): void => {
    for (const run of runsOf(names)) {
      // a buffer of its own starts its ArrayBuffer, and sections start at
      // multiples of 8 from the run's start: aligned for any typed-array view
      const buffer = Buffer.allocUnsafeSlow(run.bytes);
      for (let done = 0; done < run.bytes;) {
        const got = readSync(fd, buffer, done, run.bytes - done, bodyStart + run.start + done);
        if (got === 0) throw truncated(run, done);
        done += got;
      }
      keep(run, buffer);
    }
    closeWhenDone();
  };
  const readSection = (name: string, type: 'u32' | 'u8'): Buffer => {
    entryOf(name, type); // the right type, and within the file
    if (!ready.has(name)) readNow([name]);
    const buffer = ready.get(name);
    // each section is handed out once (its holder keeps it)
    if (buffer === undefined) throw new TableFileError(path, `section ${name} was read already`);
    ready.delete(name);
    return buffer;
  };
  const preload = async (names: readonly string[]): Promise<void> => {
    // one run after another: each read is large, and the thread pool serves DNS too
    for (const run of runsOf(names)) {
      const buffer = Buffer.allocUnsafeSlow(run.bytes);
      pending++;
      try {
        for (let done = 0; done < run.bytes;) {
          const got = await readAt(
            fd,
            buffer,
            done,
            run.bytes - done,
            bodyStart + run.start + done,
          );
          if (got === 0) throw truncated(run, done);
          done += got;
        }
      } finally {
        pending--;
      }
      keep(run, buffer);
      closeWhenDone();
    }
  };
  return {
    manifest: header.manifest,
    u32: (name) => {
      const b = readSection(name, 'u32');
      return new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
    },
    u8: (name) => readSection(name, 'u8'),
    readNow,
    preload,
  };
}

/** Sections adjacent in the file, read together: `bytes` from `start` (body offsets). */
interface SectionRun {
  start: number;
  bytes: number;
  sections: SectionEntry[];
}

function readAt(
  fd: number,
  buffer: Buffer,
  offset: number,
  length: number,
  position: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buffer, offset, length, position, (error, got) =>
      error === null ? resolve(got) : reject(error),
    );
  });
}

function readHeader<M>(
  fd: number,
  path: string,
): { header: FileHeader<M>; bodyStart: number; size: number } {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(MAGIC.length + 8);
  if (
    readSync(fd, head, 0, head.length, 0) < head.length ||
    head.toString('latin1', 0, MAGIC.length) !== MAGIC
  ) {
    throw new TableFileError(path, 'not a compiled table file');
  }
  const format = head.readUInt32LE(MAGIC.length);
  if (format !== TABLE_FORMAT) {
    throw new TableFileError(path, `table format ${format}, this version reads ${TABLE_FORMAT}`);
  }
  const length = head.readUInt32LE(MAGIC.length + 4);
  if (head.length + length > size) throw new TableFileError(path, 'header is truncated');
  const text = Buffer.alloc(length);
  readSync(fd, text, 0, length, head.length);
  const header = JSON.parse(text.toString('utf8')) as FileHeader<M>;
  return { header, bodyStart: align8(head.length + length), size };
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
