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
    {
      name: 'cut in its header',
      bytes: () => good.subarray(0, 'IPINTEL-TABLES\n'.length + 8 + 10),
      why: /header is truncated/,
    },
  ];
  for (const { name, bytes, why } of broken) {
    it(`${name}: refused, naming the file, read whole or opened paged (and not left open)`, async () => {
      const path = join(dir, `${name.replace(/\W+/g, '-')}.tables`);
      await writeFile(path, bytes());
      assert.throws(() => readTableFile(path).u32('keys'), refusal(path, why));
      assert.throws(() => openTableFile(path), refusal(path, why));
      assert.equal(await descriptorsOf(path), 0);
    });
  }

  it('a section of another type or name is missing, not misread', () => {
    const file = readTableFile(join(dir, 'good.tables'));
    assert.throws(() => file.u8('keys'), /section keys \(u8\) is missing/);
    assert.throws(() => file.u32('absent'), /section absent \(u32\) is missing/);
  });

  it('opened paged: the sections read as asked for are the bytes of a whole read', () => {
    const path = join(dir, 'good.tables');
    const file = openTableFile<{ name: string }>(path);
    assert.deepEqual(file.manifest, { name: 'test' });
    const keys = file.u32('keys');
    const text = file.u8('text');
    assert.equal(keys.length, 3);
    assert.equal(file.pager.whole, false);
    file.pager.need(keys, 0, 3);
    file.pager.need(text, 0, text.length);
    assert.deepEqual([...keys], [0, 10, 20]);
    assert.equal(Buffer.from(text).toString('utf8'), 'héllo');
    assert.throws(() => file.u32('absent'), /section absent \(u32\) is missing/);
    assert.throws(() => file.u8('keys'), /section keys \(u8\) is missing/);
  });

  /** A file of three sections of a few megabytes each, every entry its own index plus one. */
  function writeLarge(path: string): { a: Uint32Array; b: Uint8Array; c: Uint32Array } {
    const a = Uint32Array.from({ length: 700_000 }, (_, i) => i + 1);
    const b = Uint8Array.from({ length: 1_500_001 }, (_, i) => (i % 255) + 1);
    const c = Uint32Array.from({ length: 300_000 }, (_, i) => i + 1);
    writeTableFile(path, { name: 'large' }, { a, b, c });
    return { a, b, c };
  }

  it('opened paged, `need` reads the chunks holding the entries asked for and nothing far from them', () => {
    const path = join(dir, 'large.tables');
    const want = writeLarge(path);
    const file = openTableFile(path);
    const a = file.u32('a');
    const c = file.u32('c');
    // not read yet: the memory is zeros
    assert.equal(a[400_000], 0);
    file.pager.need(a, 400_000, 400_010);
    assert.deepEqual([...a.subarray(400_000, 400_010)], [...want.a.subarray(400_000, 400_010)]);
    assert.equal(a[0], 0, "the section's start is 1.6 MB away: not read");
    assert.equal(c[c.length - 1], 0);
    // the last entry of the body, in its last (short) chunk
    file.pager.need(c, c.length - 1, c.length);
    assert.equal(c[c.length - 1], 300_000);
    assert.equal(file.pager.whole, false);
  });

  it('opened paged, readRest reads the rest a slice per turn of the event loop, then closes the file', async () => {
    const path = join(dir, 'rest.tables');
    const want = writeLarge(path);
    const file = openTableFile(path);
    const [a, b, c] = [file.u32('a'), file.u8('b'), file.u32('c')];
    file.pager.need(b, 1_000_000, 1_000_001);
    assert.equal(await descriptorsOf(path), 1);
    const rest = file.pager.readRest();
    assert.equal(file.pager.whole, false, 'one slice, then the event loop');
    await rest;
    assert.equal(file.pager.whole, true);
    assert.deepEqual(a, want.a);
    assert.deepEqual(new Uint8Array(b), want.b);
    assert.deepEqual(c, want.c);
    assert.equal(await descriptorsOf(path), 0);
    // whole: nothing more to read, and no descriptor to read it from
    file.pager.need(a, 0, a.length);
    await file.pager.readRest();
  });

  it('opened paged, a span is whole once every chunk under its sections is read, and not before', async () => {
    const path = join(dir, 'spans.tables');
    writeLarge(path);
    const file = openTableFile(path);
    const [a, b, c] = [file.u32('a'), file.u8('b'), file.u32('c')];
    const spanA = file.pager.span([a]);
    const spanAC = file.pager.span([a, c]);
    assert.equal(spanA.whole, false);
    file.pager.need(a, 0, 100_000);
    assert.equal(spanA.whole, false, 'its first 400 KB only');
    file.pager.need(a, 300_000, 310_000);
    assert.equal(spanA.whole, false, 'two parts, less than half of it');
    // past half of it read, the rest of it is read at once
    file.pager.need(a, 100_000, 400_000);
    assert.equal(spanA.whole, true);
    assert.deepEqual([...a.subarray(a.length - 3)], [699_998, 699_999, 700_000]);
    assert.equal(spanAC.whole, false, 'b, between them, and c are unread');
    assert.equal(c[0], 0);
    // a span made now counts what was read before it
    assert.equal(file.pager.span([a]).whole, true);
    const spanB = file.pager.span([b]);
    await file.pager.readRest();
    assert.equal(spanAC.whole, true);
    assert.equal(spanB.whole, true);
    assert.equal(file.pager.span([c]).whole, true);
  });

  it('opened paged, while readRest runs a lookup reads its own chunks only, not the rest of a span half read', async () => {
    const path = join(dir, 'spans-rest.tables');
    const want = writeLarge(path);
    const file = openTableFile(path);
    const a = file.u32('a');
    const spanA = file.pager.span([a]);
    // readRest's first slice (1 MB) is read before it yields: with these 400 KB, more than half of a
    file.pager.need(a, 400_000, 500_000);
    const rest = file.pager.readRest();
    file.pager.need(a, a.length - 1, a.length);
    assert.equal(a[a.length - 1], want.a[a.length - 1]);
    assert.equal(spanA.whole, false, 'the rest of a is left to readRest');
    assert.equal(a[350_000], 0);
    await rest;
    assert.equal(spanA.whole, true);
    assert.deepEqual(a, want.a);
  });

  it('read whole, every span is whole at once', () => {
    const file = readTableFile(join(dir, 'good.tables'));
    assert.equal(file.pager.span([file.u32('keys'), file.u8('text')]).whole, true);
  });

  it('opened paged, a file cut short after it was opened fails the read, naming the section it ended in', async () => {
    const path = join(dir, 'shrunk.tables');
    const want = writeLarge(path);
    const file = openTableFile(path);
    const [a, c] = [file.u32('a'), file.u32('c')];
    file.pager.need(a, 0, 10);
    truncateSync(path, (await readFile(path)).length - 800_000);
    assert.throws(
      () => file.pager.need(c, c.length - 10, c.length),
      refusal(path, /section c is truncated/),
    );
    await assert.rejects(file.pager.readRest(), refusal(path, /section c is truncated/));
    // what was read stays right
    assert.deepEqual([...a.subarray(0, 10)], [...want.a.subarray(0, 10)]);
  });
});
