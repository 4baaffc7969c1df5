// The one entry we want from a ZIP download (IP2Location's CSV releases):
// read through yauzl, which reads the central directory (the archive's own
// list, at its end: a file cut short has none and is refused), checks each
// entry's sizes while inflating with Node's zlib, and never writes to disk
// (the CSV is read line by line from the inflating stream). Also: what a
// publisher answered when the body is not a ZIP at all (IP2Location answers
// a line of text such as "NO PERMISSION" with status 200).
import { Buffer } from 'node:buffer';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Entry, ZipFile } from '../../../later/yauzl.js';

/** "PK\x03\x04": a ZIP file starts with a local file header. */
const ZIP_MAGIC = 0x04034b50;

/**
 * Null when `path` starts as a ZIP file does; else the text it holds instead
 * (its first line, at most 120 characters, control characters dropped).
 */
export async function notZip(path: string): Promise<string | null> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(256);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    if (bytesRead >= 4 && head.readUInt32LE(0) === ZIP_MAGIC) return null;
    const text = head
      .subarray(0, bytesRead)
      .toString('latin1')
      .split(/\r?\n/)[0]!
      .replace(/[^\x20-\x7e]/g, '')
      .trim()
      .slice(0, 120);
    return text === '' ? '(an empty or binary body)' : text;
  } finally {
    await file.close();
  }
}

async function openZip(path: string): Promise<ZipFile> {
  const { openPromise } = await import('../../../later/yauzl.js');
  return openPromise(path, { lazyEntries: true, autoClose: false });
}

/** The entry named `name` (case-insensitive, any folder), or null. */
function findEntry(zip: ZipFile, name: string): Promise<Entry | null> {
  const wanted = name.toLowerCase();
  return new Promise((resolve, reject) => {
    const onEntry = (entry: Entry) => {
      const base = entry.fileName.split('/').pop()?.toLowerCase();
      if (base === wanted) finish(entry);
      else zip.readEntry();
    };
    const finish = (entry: Entry | null) => {
      zip.off('entry', onEntry);
      zip.off('end', onEnd);
      zip.off('error', reject);
      resolve(entry);
    };
    const onEnd = () => finish(null);
    zip.on('entry', onEntry);
    zip.once('end', onEnd);
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** The size and date of entry `name` from the central directory, or null when it is not there. */
export async function zipEntryInfo(
  path: string,
  name: string,
): Promise<{ bytes: number; modifiedAt: string } | null> {
  const zip = await openZip(path);
  try {
    const entry = await findEntry(zip, name);
    if (entry === null) return null;
    return {
      bytes: entry.uncompressedSize,
      modifiedAt: entry.getLastModDate({ timezone: 'UTC' }).toISOString(),
    };
  } finally {
    zip.close();
  }
}

/** Each line of entry `name`, inflated as it is read; throws when the entry is missing. */
export async function* zipEntryLines(path: string, name: string): AsyncGenerator<string> {
  const zip = await openZip(path);
  try {
    const entry = await findEntry(zip, name);
    if (entry === null) throw new Error(`${name} is not in the ZIP file`);
    const stream = await zip.openReadStreamPromise(entry);
    yield* createInterface({ input: stream, crlfDelay: Infinity });
  } finally {
    zip.close();
  }
}
