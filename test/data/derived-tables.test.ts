// deriveOrOpen (src/data/derived-tables.ts), the one "open the kept file or
// derive again" of the detection index and the geofeeds: without a file the
// value is derived and nothing is keyed or written; with one, derived once
// and then opened while the sources and inputs are the same; derived again
// when a source's content or an input changes; a file that cannot be written
// is told to the log and the derived value still answers.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  deriveOrOpen,
  jsonSection,
  readJsonSection,
  type DerivedManifest,
  type SourceText,
} from '../../src/data/derived-tables.js';

interface WordsManifest extends DerivedManifest {
  readonly kind: 'words';
}

let dir: string;
let sources: string[];
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-derived-'));
  sources = [join(dir, 'a.txt'), join(dir, 'b.txt'), join(dir, 'gone.txt')];
  await writeFile(sources[0]!, 'alpha beta');
  await writeFile(sources[1]!, 'gamma');
});
after(() => rm(dir, { recursive: true, force: true }));

/** The words of the sources, counting derivations and key computations. */
function words(file: { path: string; log: { warn(f: object, m: string): void } } | undefined) {
  const calls = { derive: 0, inputs: 0, version: 1 };
  const derivation = {
    file,
    sources,
    inputs: () => {
      calls.inputs++;
      return { version: calls.version };
    },
    open: (f: Parameters<typeof readJsonSection>[0]) => readJsonSection<string[]>(f, 'words'),
    derive: (texts: readonly SourceText[]) => {
      calls.derive++;
      return texts.flatMap(({ text }) => text.split(' '));
    },
    keep: (value: string[]) => ({
      manifest: { kind: 'words' as const },
      sections: { words: jsonSection(value) },
    }),
  };
  return { calls, run: () => deriveOrOpen<WordsManifest, string[]>(derivation) };
}

const silent = { warn: () => {} };

describe('deriveOrOpen', () => {
  it('without a file: derived at every call, nothing keyed or written', async () => {
    const { calls, run } = words(undefined);
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'gamma'], derived: true });
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'gamma'], derived: true });
    assert.equal(calls.derive, 2);
    assert.equal(calls.inputs, 0, 'no key is made: no source is hashed for one');
  });

  it('with a file: derived once, then opened until a source or an input changes', async () => {
    const path = join(dir, 'tables', 'words.tables');
    const { calls, run } = words({ path, log: silent });
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'gamma'], derived: true });
    assert.ok(existsSync(path));
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'gamma'], derived: false });
    assert.equal(calls.derive, 1);
    await writeFile(sources[1]!, 'delta');
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'delta'], derived: true });
    calls.version = 2;
    assert.equal((await run()).derived, true, 'another input: derived again');
    assert.equal((await run()).derived, false);
    assert.equal(calls.derive, 3);
  });

  it('a file that cannot be written is logged; the derived value answers', async () => {
    const blocker = join(dir, 'not-a-folder');
    await writeFile(blocker, 'x');
    const told: { fields: object; message: string }[] = [];
    const path = join(blocker, 'words.tables');
    const { run } = words({
      path,
      log: { warn: (fields, message) => void told.push({ fields, message }) },
    });
    assert.deepEqual(await run(), { value: ['alpha', 'beta', 'delta'], derived: true });
    assert.equal(told.length, 1);
    assert.equal((told[0]!.fields as { path: string }).path, path);
    assert.ok((told[0]!.fields as { err: unknown }).err instanceof Error);
    assert.match(told[0]!.message, /could not keep the derived tables/);
  });
});
