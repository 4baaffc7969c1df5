// The SHA-256 of an opt-in source's file (GeoLite2 City, IPinfo Lite, the
// two IP2Location DB11 ZIPs), remembered beside the compiled tables by the
// file's change stamp (data/file-signature.ts: time, size, inode): every start
// and reload with an opt-in source names its compiled table by these hashes,
// and hashing them again each time cost the thread that answers 0.3–0.8 s
// for DB11's 125 MB (BENCHMARKS.md, issue 42). By identity, not by path: the
// update compiles from its work folder's copy and then renames it into
// place (the same inode and time), so the first reload after an update does
// not hash it either. A file replaced (another inode) or rewritten (another
// time) is hashed again. As embeddedCityFiles trusts the installed manifest
// for DB-IP's files. The last KEPT identities are kept.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import { fileSignature } from '../../../data/file-signature.js';
import type { SourceFile } from '../compiled-set.js';

const MEMO_FILE = 'opt-in-hashes.json';
/** identities remembered: a few files, each replaced now and then */
const KEPT = 32;

function readMemo(path: string): Record<string, string> {
  try {
    const doc = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    return typeof doc === 'object' && doc !== null ? (doc as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/**
 * `path`'s name, size and SHA-256; from `memoDir`'s memo when the file is
 * one hashed before, else hashed now and remembered (a memo that cannot be
 * written only costs the next start a hash). Throws when the file cannot be read.
 */
export async function hashedFile(path: string, memoDir: string): Promise<SourceFile> {
  const st = await stat(path);
  // the project's one change stamp: a rename into place keeps it, a rewrite does not
  const identity = fileSignature(st);
  const memoPath = join(memoDir, MEMO_FILE);
  const memo = readMemo(memoPath);
  const known = memo[identity];
  if (typeof known === 'string' && /^[0-9a-f]{64}$/.test(known)) {
    return { name: basename(path), bytes: st.size, sha256: known };
  }
  const data = await readFile(path);
  const sha256 = createHash('sha256').update(data).digest('hex');
  const kept = Object.entries(memo).slice(-(KEPT - 1));
  const next = Object.fromEntries([...kept, [identity, sha256]]);
  await writeFileAtomic(memoPath, `${JSON.stringify(next, null, 2)}\n`).catch(() => undefined);
  return { name: basename(path), bytes: data.length, sha256 };
}
