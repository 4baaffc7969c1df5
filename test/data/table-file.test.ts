// A table file that is not ours, of another format or cut short is refused
// with an error naming the file — never read as tables (the loaders then
// compile again).
import assert from 'node:assert/strict';
import { truncateSync } from 'node:fs';
import { mkdtemp, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  TableFileError,
  openTableFile,
  readTableFile,
  writeTableFile,
} from '../../src/data/table-file.js';

let dir: string;
let good: Buffer;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-table-file-'));
  writeTableFile(
    join(dir, 'good.tables'),
    { name: 'test' },
    {
      keys: Uint32Array.from([0, 10, 20]),
      text: Buffer.from('héllo'),
    },
  );
  good = await readFile(join(dir, 'good.tables'));
});
after(() => rm(dir, { recursive: true, force: true }));

/** assert.throws' check: a TableFileError saying `why` and naming the file. */
function refusal(path: string, why: RegExp): (error: unknown) => boolean {
  return (error) =>
    error instanceof TableFileError && why.test(error.message) && error.message.includes(path);
}

/** This process's open descriptors of `path` (a count of all of them would see unrelated ones come and go). */
async function descriptorsOf(path: string): Promise<number> {
  const targets = await Promise.all(
    (await readdir('/proc/self/fd')).map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')),
  );
  return targets.filter((target) => target === path).length;
}

describe('table files', () => {
  it('round trip: the manifest and every section come back as written', () => {
    const file = readTableFile<{ name: string }>(join(dir, 'good.tables'));
    assert.deepEqual(file.manifest, { name: 'test' });
    assert.deepEqual([...file.u32('keys')], [0, 10, 20]);
    assert.equal(Buffer.from(file.u8('text')).toString('utf8'), 'héllo');
  });

  const broken: { name: string; bytes: () => Buffer; why: RegExp }[] = [
    {
      name: 'not a table file',
      bytes: () => Buffer.from('just text, long enough'),
      why: /not a compiled table file/,
    },
    { name: 'empty', bytes: () => Buffer.alloc(0), why: /not a compiled table file/ },
    {
      name: 'another format version',
      bytes: () => {
        const copy = Buffer.from(good);
        copy.writeUInt32LE(99, 'IPINTEL-TABLES\n'.length);
        return copy;
      },
      why: /table format 99/,
    },
    { name: 'cut short', bytes: () => good.subarray(0, good.length - 16), why: /truncated/ },
  ];
  for (const { name, bytes, why } of broken) {
    it(`${name}: refused, naming the file`, async () => {
      const path = join(dir, `${name.replace(/\W+/g, '-')}.tables`);
      await writeFile(path, bytes());
      assert.throws(() => readTableFile(path).u32('keys'), refusal(path, why));
    });
  }

  it('a section of another type or name is missing, not misread', () => {
    const file = readTableFile(join(dir, 'good.tables'));
    assert.throws(() => file.u8('keys'), /section keys \(u8\) is missing/);
    assert.throws(() => file.u32('absent'), /section absent \(u32\) is missing/);
  });

  it('opened lazily: each section read when first asked for, the same bytes as a whole read', () => {
    const file = openTableFile<{ name: string }>(join(dir, 'good.tables'));
    assert.deepEqual(file.manifest, { name: 'test' });
    assert.deepEqual([...file.u32('keys')], [0, 10, 20]);
    assert.equal(Buffer.from(file.u8('text')).toString('utf8'), 'héllo');
    assert.throws(() => file.u32('absent'), /section absent \(u32\) is missing/);
  });

  it('opened lazily, sections read ahead (preload) come back the same, and the file is closed once all are read', async () => {
    const path = join(dir, 'preload.tables');
    await writeFile(path, good);
    const file = openTableFile<{ name: string }>(path);
    assert.equal(await descriptorsOf(path), 1);
    // one section asked for while the other is read ahead: each read once, both right
    const ahead = file.preload!(['text', 'keys']);
    assert.deepEqual([...file.u32('keys')], [0, 10, 20]);
    await ahead;
    assert.equal(Buffer.from(file.u8('text')).toString('utf8'), 'héllo');
    assert.equal(await descriptorsOf(path), 0);
  });

  it('opened lazily, readNow reads adjacent sections in one buffer, skips the ones not named, and closes the file once all are read', async () => {
    const path = join(dir, 'runs.tables');
    writeTableFile(
      path,
      { name: 'runs' },
      {
        a: Uint32Array.from([1, 2, 3]),
        b: Buffer.from('odd length'),
        c: Uint32Array.from([4, 5]),
        d: Buffer.from('last'),
      },
    );
    const file = openTableFile<{ name: string }>(path);
    file.readNow!(['a', 'b', 'd', 'absent']);
    const [a, b, d] = [file.u32('a'), file.u8('b'), file.u8('d')];
    // a and b are one read (b's odd length pads c to 8), d after the unnamed c another
    assert.equal(a.buffer, b.buffer);
    assert.notEqual(d.buffer, a.buffer);
    assert.deepEqual([...a], [1, 2, 3]);
    assert.equal(Buffer.from(b).toString(), 'odd length');
    assert.equal(Buffer.from(d).toString(), 'last');
    assert.equal(await descriptorsOf(path), 1, 'c is still to read');
    assert.deepEqual([...file.u32('c')], [4, 5]);
    assert.equal(await descriptorsOf(path), 0);
    assert.throws(() => file.u32('a'), /section a was read already/);
    assert.throws(() => file.u32('absent'), /section absent \(u32\) is missing/);
  });

  it('opened lazily, a file cut short after it was opened fails the read of its run, naming the section it ended in', async () => {
    const path = join(dir, 'shrunk.tables');
    await writeFile(path, good);
    const file = openTableFile(path);
    // keys and text are one run; the file now ends inside text
    truncateSync(path, good.length - 4);
    assert.throws(
      () => file.readNow!(['keys', 'text']),
      refusal(path, /section text is truncated/),
    );
  });

  it('opened lazily, a section cut short fails its read ahead, naming it', async () => {
    const path = join(dir, 'preload-cut.tables');
    await writeFile(path, good.subarray(0, good.length - 8));
    const file = openTableFile(path);
    await assert.rejects(file.preload!(['text']), /section text is truncated/);
    assert.deepEqual([...file.u32('keys')], [0, 10, 20]);
  });

  it('opened lazily, a file cut short in its last section opens, and fails naming it only when that section is read', async () => {
    const path = join(dir, 'lazy-cut.tables');
    await writeFile(path, good.subarray(0, good.length - 8));
    const file = openTableFile(path);
    assert.deepEqual([...file.u32('keys')], [0, 10, 20]);
    assert.throws(() => file.u8('text'), refusal(path, /section text is truncated/));
  });

  it('opened lazily, a file that is not one is refused at once', async () => {
    const path = join(dir, 'lazy-not.tables');
    await writeFile(path, 'just text, long enough');
    assert.throws(() => openTableFile(path), /not a compiled table file/);
  });
});
