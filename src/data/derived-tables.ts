// Tables derived from source files (the detection index and the geofeeds from
// DATA_DIR/feeds), kept as table files so that a start opens them instead of
// parsing and indexing the sources again. Each file's manifest carries a key:
// the SHA-256 of everything the tables were derived from — each source
// file's name, size and SHA-256, the inputs that are not files (the GeoIP or
// ASN tables' identity, rules) and the deriving code's version. A file whose
// key is not the one the sources give now (a feed fetched or edited by hand,
// other tables, a newer compiler) is not used: the tables are derived again
// and the file replaced (atomically, table-file.ts). Never a stale index.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RangeTable } from './range-table.js';
import { readTableFileAsync, writeTableFile, type Section, type TableFile } from './table-file.js';

/** One source file, read, with what identifies its content. */
export interface SourceText {
  readonly name: string;
  readonly text: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** What a derived table file's manifest starts with. */
export interface DerivedManifest {
  /** derivationKey() of the sources and inputs the tables were made from */
  readonly key: string;
}

/** Reads the named files of a folder (a file gone meanwhile is left out). */
export async function readSources(dir: string, names: readonly string[]): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for (const name of names) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    out.push({ name, text: bytes.toString('utf8'), bytes: bytes.length, sha256 });
  }
  return out;
}

/** The key of tables derived from `sources` and `inputs` (any JSON: versions, identities, rules). */
export function derivationKey(sources: readonly SourceText[], inputs: unknown): string {
  const files = sources.map(({ name, bytes, sha256 }) => [name, bytes, sha256]);
  return createHash('sha256').update(JSON.stringify({ files, inputs })).digest('hex');
}

/** The derived file at `path` when its key is `key`; null when it is missing, damaged or stale. */
export async function openDerived<M extends DerivedManifest>(
  path: string,
  key: string,
): Promise<TableFile<M> | null> {
  try {
    const file = await readTableFileAsync<M>(path);
    return file.manifest.key === key ? file : null;
  } catch {
    return null;
  }
}

/**
 * Writes a derived file (its folder made when missing); false when it cannot
 * be written (a read-only DATA_DIR): the next start derives the tables again.
 */
export function saveDerived<M extends DerivedManifest>(
  path: string,
  manifest: M,
  sections: Readonly<Record<string, Section>>,
): boolean {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeTableFile(path, manifest, sections);
    return true;
  } catch {
    return false;
  }
}

/** JSON as a section's bytes (what a derived file holds besides typed arrays). */
export function jsonSection(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

/** A section written by jsonSection, parsed back. */
export function readJsonSection<T>(file: TableFile<unknown>, name: string): T {
  return JSON.parse(Buffer.from(file.u8(name)).toString('utf8')) as T;
}

/** A range table's arrays as sections (`v4Keys`…, as the GeoIP tables name them). */
export function rangeTableSections(table: RangeTable): Record<string, Uint32Array> {
  const { v4, v6 } = table;
  return {
    v4Keys: v4.keys,
    v4Values: v4.values,
    v4Jump: v4.jump,
    v6Keys: v6.keys,
    v6Values: v6.values,
    v6Jump: v6.jump,
    v6SplitAt: v6.splitAt,
    v6SubKeys: v6.subKeys,
    v6SubValues: v6.subValues,
  };
}

/** The range table rangeTableSections wrote. */
export function rangeTableOf(file: TableFile<unknown>): RangeTable {
  return new RangeTable(
    { keys: file.u32('v4Keys'), values: file.u32('v4Values'), jump: file.u32('v4Jump') },
    {
      keys: file.u32('v6Keys'),
      values: file.u32('v6Values'),
      jump: file.u32('v6Jump'),
      splitAt: file.u32('v6SplitAt'),
      subKeys: file.u32('v6SubKeys'),
      subValues: file.u32('v6SubValues'),
    },
  );
}
