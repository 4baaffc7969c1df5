// The API keys in use, read from API_KEYS_FILE at start and again when the
// file changes (a stat every few seconds, src/main.ts) or on SIGHUP. A file
// that cannot be used is refused whole, with its problems by line, and the
// keys in use stay: a typo while editing never locks every client out or
// lets every client in. Each swap is one assignment, so a request sees the
// old table or the new, never a mix.
import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { ApiKeysFileError, parseApiKeys, type ApiKeyTable } from './api-keys.js';
import { fileSignature } from '../data/file-signature.js';

export interface ReloadOutcome {
  /** false: the file had not changed since it was last read */
  reloaded: boolean;
  keys: number;
}

export class ApiKeySource {
  private table: ApiKeyTable;
  /** the file's stat when it was last read, good or bad: a bad file is reported once per change */
  private signature: string;

  private constructor(
    readonly file: string,
    private readonly defaultLimit: number,
    table: ApiKeyTable,
    signature: string,
  ) {
    this.table = table;
    this.signature = signature;
  }

  /** Reads the file now (start-up): an ApiKeysFileError for a bad or unreadable file. */
  static open(file: string, defaultLimit: number): ApiKeySource {
    let text: string;
    let signature: string;
    try {
      signature = fileSignature(statSync(file));
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw unreadable(file, error);
    }
    return new ApiKeySource(file, defaultLimit, parseApiKeys(file, text, defaultLimit), signature);
  }

  current(): ApiKeyTable {
    return this.table;
  }

  /**
   * Reads the file again (with `ifChanged`, only when its size, time or inode
   * changed). Throws ApiKeysFileError when it cannot be used; the keys in use stay.
   */
  async reload({ ifChanged = false } = {}): Promise<ReloadOutcome> {
    let text: string;
    let signature: string;
    try {
      signature = fileSignature(await stat(this.file));
      if (ifChanged && signature === this.signature) {
        return { reloaded: false, keys: this.table.size };
      }
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      // a file gone (or unreadable) is reported once, not at every check
      const failed = `failed:${(error as NodeJS.ErrnoException).code ?? ''}`;
      const seen = ifChanged && failed === this.signature;
      this.signature = failed;
      if (seen) return { reloaded: false, keys: this.table.size };
      throw unreadable(this.file, error);
    }
    this.signature = signature;
    this.table = parseApiKeys(this.file, text, this.defaultLimit);
    return { reloaded: true, keys: this.table.size };
  }
}

function unreadable(file: string, error: unknown): ApiKeysFileError {
  const reason = (error as NodeJS.ErrnoException).code ?? String(error);
  return new ApiKeysFileError(file, [`cannot be read (${reason})`]);
}
