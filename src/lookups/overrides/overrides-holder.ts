// The operator's overrides file in memory: read at start, then again when its
// modification time or size changes (the minute check of src/main.ts) or on
// SIGHUP. A file with any bad line is refused whole and the overrides in
// memory keep answering; a file that is gone means no overrides. The new
// index replaces the old in one assignment: a lookup sees one or the other.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CsvProblem } from '../../data/csv.js';
import { EMPTY_OVERRIDES, OverrideIndex } from './override-index.js';
import { parseOverridesInSlices } from './rows.js';
import { fileSignature } from '../../data/file-signature.js';

/** What GET / and /readyz say of the overrides. */
export interface OverridesStatus {
  file: string;
  /** rows answering now (0 without a file) */
  rows: number;
  /** when the overrides answering now were read, ISO 8601; null when none were */
  loadedAt: string | null;
  /** SHA-256 of the file answering now (first 12 hex digits), "none" without one */
  version: string;
  /** the last file refused, when the file on disk is not the one answering */
  refused: { at: string; problems: CsvProblem[] } | null;
}

export interface OverridesLog {
  info(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

const NO_FILE = 'none';

export class OverridesHolder {
  /** the compiled overrides every lookup reads */
  current: OverrideIndex = EMPTY_OVERRIDES;
  private state: OverridesStatus;
  /** the stat signature of the file last read (answering or refused), '' when none was */
  private signature = '';

  private constructor(
    readonly file: string,
    private readonly log: OverridesLog,
    private readonly now: () => number,
  ) {
    this.state = { file, rows: 0, loadedAt: null, version: NO_FILE, refused: null };
  }

  static async open(
    file: string,
    log: OverridesLog,
    now: () => number = Date.now,
  ): Promise<OverridesHolder> {
    const holder = new OverridesHolder(file, log, now);
    await holder.reload({ ifChanged: false });
    return holder;
  }

  get status(): Readonly<OverridesStatus> {
    return this.state;
  }

  /**
   * Reads the file again (only when it changed, with `ifChanged`). Never
   * throws for the file's content: a refusal is logged and kept in status.
   */
  reload(options: { ifChanged: boolean }): Promise<void> {
    // one at a time (the minute check and a SIGHUP may meet): the last file read wins
    this.running = this.running.catch(() => undefined).then(() => this.readFile(options));
    return this.running;
  }

  private running: Promise<void> = Promise.resolve();

  private async readFile({ ifChanged }: { ifChanged: boolean }): Promise<void> {
    const signature = await statSignature(this.file);
    if (ifChanged && signature === this.signature) return;
    this.signature = signature;
    if (signature === '') {
      if (this.current !== EMPTY_OVERRIDES) this.log.info({ file: this.file }, 'overrides removed');
      this.current = EMPTY_OVERRIDES;
      this.state = { ...this.state, rows: 0, loadedAt: null, version: NO_FILE, refused: null };
      return;
    }
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      this.refuse([{ line: 0, reason: `unreadable: ${(error as Error).message}` }]);
      return;
    }
    // a turn of the event loop every few thousand rows: requests go between the slices
    const parsed = await parseOverridesInSlices(text, () => new Promise(setImmediate));
    if (parsed.problems.length > 0) {
      this.refuse(parsed.problems);
      return;
    }
    this.current = new OverrideIndex(parsed.rows);
    this.state = {
      file: this.file,
      rows: parsed.rows.length,
      loadedAt: new Date(this.now()).toISOString(),
      version: createHash('sha256').update(text).digest('hex').slice(0, 12),
      refused: null,
    };
    this.log.info({ file: this.file, rows: parsed.rows.length }, 'overrides loaded');
  }

  private refuse(problems: CsvProblem[]): void {
    this.state = { ...this.state, refused: { at: new Date(this.now()).toISOString(), problems } };
    this.log.error(
      { file: this.file, problems, answering: this.state.rows },
      `overrides file refused (${problems.length} bad line${problems.length === 1 ? '' : 's'}); the previous overrides keep answering`,
    );
  }
}

/** Modification time and size, '' when there is no file. */
async function statSignature(file: string): Promise<string> {
  try {
    return fileSignature(await stat(file));
  } catch {
    return '';
  }
}

/** The warnings /readyz shows for a refused file: one per bad line, the first 100. */
export function overrideWarnings(status: Readonly<OverridesStatus>): string[] {
  if (status.refused === null) return [];
  const { problems } = status.refused;
  const lines = problems
    .slice(0, 100)
    // the file's name, not its folder: /readyz is public (the log has the path)
    .map((p) => `overrides file ${basename(status.file)} refused: line ${p.line}: ${p.reason}`);
  if (problems.length > 100) lines.push(`…and ${problems.length - 100} more bad lines`);
  lines.push(`the previous overrides (${status.rows} rows) keep answering`);
  return lines;
}
