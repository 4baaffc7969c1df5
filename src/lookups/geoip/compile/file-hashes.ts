// The SHA-256 of an opt-in source's file (GeoLite2 City, IPinfo Lite, the
// two IP2Location DB11 ZIPs), remembered beside the compiled tables by the
// file's size, modification time and inode: every start and reload with an
// opt-in source names its compiled table by these hashes, and hashing them
// again each time cost the thread that answers 0.5–0.8 s for DB11's 125 MB
// (BENCHMARKS.md, issue 42). A file replaced (the updater renames a new one
// in: another inode and time) or rewritten (another time) is hashed again.
// As embeddedCityFiles trusts the installed manifest for DB-IP's files.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import type { SourceFile } from '../compiled-set.js';

const MEMO_FILE = 'opt-in-hashes.json';

interface Remembered {
  size: number;
  mtimeMs: number;
  ino: number;
  sha256: string;
}

function readMemo(path: string): Record<string, Remembered> {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, Remembered>) : {};
  } catch {
    return {};
  }
}

/**
 * `path`'s name, size and SHA-256; from `memoDir`'s memo when the file is
 * the one hashed then, else hashed now and remembered (a memo that cannot be
 * written only costs the next start a hash). Throws when the file cannot be read.
 */
export async function hashedFile(path: string, memoDir: string): Promise<SourceFile> {
  const st = await stat(path);
  const memoPath = join(memoDir, MEMO_FILE);
  const memo = readMemo(memoPath);
  const known = memo[path];
  if (
    known !== undefined &&
    known.size === st.size &&
    known.mtimeMs === st.mtimeMs &&
    known.ino === st.ino
  ) {
    return { name: basename(path), bytes: st.size, sha256: known.sha256 };
  }
  const data = await readFile(path);
  const sha256 = createHash('sha256').update(data).digest('hex');
  memo[path] = { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, sha256 };
  await writeFileAtomic(memoPath, `${JSON.stringify(memo, null, 2)}\n`).catch(() => undefined);
  return { name: basename(path), bytes: data.length, sha256 };
}
