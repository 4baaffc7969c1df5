// An opt-in source's file hash remembered by size, time and inode
// (compile/file-hashes.ts): the same file is not read again (a remembered
// hash is what comes back), a file renamed in or rewritten is hashed again,
// and a folder where the memo cannot be written still answers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { hashedFile } from '../../../src/lookups/geoip/compile/file-hashes.js';

const dir = mkdtempSync(join(tmpdir(), 'ipintel-file-hashes-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const memoPath = join(dir, 'opt-in-hashes.json');

describe('hashedFile', () => {
  const file = join(dir, 'ipinfo-lite.mmdb');

  it('hashes a file it has not seen and remembers it', async () => {
    writeFileSync(file, 'first copy');
    assert.deepEqual(await hashedFile(file, dir), {
      name: 'ipinfo-lite.mmdb',
      bytes: 10,
      sha256: sha256('first copy'),
    });
    const memo = JSON.parse(readFileSync(memoPath, 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.values(memo), [sha256('first copy')]);
  });

  it('the same file (size, time, inode) is answered from the memo, not read', async () => {
    // a remembered hash no reading could give: it is what comes back
    const memo = JSON.parse(readFileSync(memoPath, 'utf8')) as Record<string, string>;
    writeFileSync(
      memoPath,
      JSON.stringify(Object.fromEntries(Object.keys(memo).map((k) => [k, 'f'.repeat(64)]))),
    );
    assert.equal((await hashedFile(file, dir)).sha256, 'f'.repeat(64));
  });

  it('a new copy is hashed again; renamed into place (as the updater does) it is known there', async () => {
    const work = join(dir, 'next.partial');
    writeFileSync(work, 'next copy!');
    assert.equal((await hashedFile(work, dir)).sha256, sha256('next copy!'));
    renameSync(work, file);
    const memo = JSON.parse(readFileSync(memoPath, 'utf8')) as Record<string, string>;
    // the identity the work copy was remembered by now answers for the file in place
    writeFileSync(
      memoPath,
      JSON.stringify({ ...memo, [Object.keys(memo).at(-1)!]: 'e'.repeat(64) }),
    );
    assert.equal((await hashedFile(file, dir)).sha256, 'e'.repeat(64));
  });

  it('a file rewritten in place (another time or size) is hashed again', async () => {
    writeFileSync(file, 'rewritten copy');
    assert.equal((await hashedFile(file, dir)).sha256, sha256('rewritten copy'));
  });

  it('a memo that cannot be written costs a hash, not an answer', async () => {
    const nowhere = join(dir, 'missing', 'folder');
    assert.equal((await hashedFile(file, nowhere)).sha256, sha256('rewritten copy'));
    assert.equal(existsSync(join(nowhere, 'opt-in-hashes.json')), false);
  });

  it('a missing file throws', async () => {
    await assert.rejects(hashedFile(join(dir, 'none.mmdb'), dir), /ENOENT/);
  });
});
