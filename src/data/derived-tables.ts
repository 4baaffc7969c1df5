// Tables derived from source files (the detection index and the geofeeds from
// DATA_DIR/feeds), kept as table files so that a start opens them instead of
// parsing and indexing the sources again. Each file's manifest carries a key:
// the SHA-256 of everything the tables were derived from — each source
// file's name, size and SHA-256, the inputs that are not files (the GeoIP or
// ASN tables' identity, rules) and the deriving code's version. A file whose
// key is not the one the sources give now (a feed fetched or edited by hand,
// other tables, a newer compiler) is not used: the tables are derived again
// and the file replaced (atomically, table-file.ts). Never a stale index.
//
// The manifest also records each source's change stamp (file-signature.ts:
// modification time, size, inode): a source whose stamp is the recorded one
// is taken to hold the recorded content, so a start stats the sources and
// reads none; one whose stamp differs (rewritten, edited, copied) is read
// and hashed again.
//
// deriveOrOpen is the one "open the kept file or derive again" of every kind
// of derived tables; tables kept nowhere are derived without hashing a source.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { fileSignature } from './file-signature.js';
import { RangeTable } from './range-table.js';
import {
  readTableFileAsync,
  readTableManifest,
  writeTableFile,
  type Section,
  type TableFile,
} from './table-file.js';

/** One source file as a derived file's manifest records it. */
export interface SourceFile {
  /** the file's name (its folder is the caller's) */
  readonly name: string;
  readonly bytes: number;
  readonly sha256: string;
  /** its change stamp when it was hashed */
  readonly signature: string;
}

/** What a derived table file's manifest starts with. */
export interface DerivedManifest {
  /** Sources.key() of the sources and inputs the tables were made from */
  readonly key: string;
  readonly files: readonly SourceFile[];
}

/** A source file's name (its folder is the caller's) and text. */
export interface SourceText {
  readonly name: string;
  readonly text: string;
}

/** The texts of the files at `paths` (one gone meanwhile is left out), none hashed. */
export async function readSourceTexts(paths: readonly string[]): Promise<SourceText[]> {
  const out: SourceText[] = [];
  for (const path of paths) {
    const data = await readFile(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (data !== null) out.push({ name: basename(path), text: data.toString('utf8') });
  }
  return out;
}

/** The source files of a derivation, identified by content; read only where needed. */
export class Sources {
  private constructor(
    readonly files: readonly SourceFile[],
    private readonly paths: readonly string[],
    private readonly read: Map<string, Buffer>,
  ) {}

  /**
   * The files at `paths` (one gone meanwhile is left out): a file whose
   * stamp is the one `recorded` gives keeps its recorded hash, any other is
   * read and hashed.
   */
  static async of(paths: readonly string[], recorded: readonly SourceFile[]): Promise<Sources> {
    const known = new Map(recorded.map((f) => [f.name, f]));
    const files: SourceFile[] = [];
    const kept: string[] = [];
    const read = new Map<string, Buffer>();
    for (const path of paths) {
      const name = basename(path);
      try {
        const signature = fileSignature(await stat(path));
        const same = known.get(name);
        if (same !== undefined && same.signature === signature) {
          files.push(same);
        } else {
          const data = await readFile(path);
          read.set(path, data);
          const sha256 = createHash('sha256').update(data).digest('hex');
          files.push({ name, bytes: data.length, sha256, signature });
        }
        kept.push(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
    }
    return new Sources(files, kept, read);
  }

  /** The key of tables derived from these files and `inputs` (any JSON: versions, identities, rules). */
  key(inputs: unknown): string {
    const files = this.files.map(({ name, bytes, sha256 }) => [name, bytes, sha256]);
    return createHash('sha256').update(JSON.stringify({ files, inputs })).digest('hex');
  }

  /** Every file's text (a derivation: they are parsed), each read once. */
  async texts(): Promise<SourceText[]> {
    const out: SourceText[] = [];
    for (const path of this.paths) {
      const data = this.read.get(path) ?? (await readFile(path).catch(() => null));
      if (data !== null) out.push({ name: basename(path), text: data.toString('utf8') });
    }
    return out;
  }
}

/** The manifest of the derived file at `path` (null: none there, or not a table file). */
export function derivedManifest<M extends DerivedManifest>(path: string): M | null {
  const manifest = readTableManifest<M>(path);
  return manifest !== null && Array.isArray(manifest.files) ? manifest : null;
}

/** Where a derivation says what it could not do (pino's Logger is one). */
export interface DerivedLog {
  warn(fields: object, message: string): void;
}

/** One kind of derived tables: where they are kept, what from, and how made and read. */
export interface Derivation<M extends DerivedManifest, T> {
  /**
   * the derived file, and where to say it cannot be written (the next start
   * derives again); absent: derived at every call, kept nowhere, nothing hashed
   */
  readonly file: { readonly path: string; readonly log: DerivedLog } | undefined;
  /** the source files (one gone meanwhile is left out) */
  readonly sources: readonly string[];
  /** what else the tables are derived from (versions, identities, rules; any JSON): part of the key */
  readonly inputs: () => unknown;
  /** the value of a current file (throws on a damaged one: it is derived again) */
  readonly open: (file: TableFile<M>) => T;
  /** the value made from the sources' texts */
  readonly derive: (texts: readonly SourceText[]) => T | Promise<T>;
  /** what the file keeps of a derived value: the manifest's own fields and the sections */
  readonly keep: (value: T) => {
    manifest: Omit<M, keyof DerivedManifest>;
    sections: Readonly<Record<string, Section>>;
  };
}

/**
 * The derivation's value: opened from its file when the file's key is the
 * one the sources and inputs give now, else derived from the sources and the
 * file written for the next time. `derived` says which.
 */
export async function deriveOrOpen<M extends DerivedManifest, T>(
  d: Derivation<M, T>,
): Promise<{ value: T; derived: boolean }> {
  if (d.file === undefined) {
    return { value: await d.derive(await readSourceTexts(d.sources)), derived: true };
  }
  const { path, log } = d.file;
  const recorded = derivedManifest<M>(path);
  const files = await Sources.of(d.sources, recorded?.files ?? []);
  const key = files.key(d.inputs());
  if (recorded?.key === key) {
    const opened = await openDerived(path, key, d.open);
    if (opened !== null) return { value: opened, derived: false };
  }
  const value = await d.derive(await files.texts());
  const { manifest, sections } = d.keep(value);
  const error = saveDerived(path, { ...manifest, key, files: files.files } as M, sections);
  if (error !== null) {
    log.warn(
      { err: error, path },
      'could not keep the derived tables: the next start derives them again',
    );
  }
  return { value, derived: true };
}

/**
 * What `open` makes of the derived file at `path` when its key is `key`;
 * null when the file is missing, stale or damaged (`open` threw on it: a
 * section missing or cut): the caller derives the tables again.
 */
async function openDerived<M extends DerivedManifest, T>(
  path: string,
  key: string,
  open: (file: TableFile<M>) => T,
): Promise<T | null> {
  try {
    const file = await readTableFileAsync<M>(path);
    return file.manifest.key === key ? open(file) : null;
  } catch {
    return null;
  }
}

/**
 * Writes a derived file (its folder made when missing); the error when it
 * cannot be written (a read-only DATA_DIR), else null.
 */
function saveDerived<M extends DerivedManifest>(
  path: string,
  manifest: M,
  sections: Readonly<Record<string, Section>>,
): Error | null {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeTableFile(path, manifest, sections);
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
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

/**
 * A range table's arrays as sections (`v4Keys`…): the GeoIP/ASN tables'
 * (compiled-set.ts) and the derived tables' one naming.
 */
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

/** The range table rangeTableSections wrote (paged by `pager` when given: see RangeTable). */
export function rangeTableOf(
  file: TableFile<unknown>,
  pager?: TableFile<unknown>['pager'],
): RangeTable {
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
    pager,
  );
}
