// The malloc_trim addon (src/native/malloc-trim.c, loaded by src/observe/native-heap.ts):
// memory the main thread's malloc heap kept after a burst of 64 KiB buffers
// (what socket reads of request bodies allocate) is given back by trim() and
// stays with the process without it. Run in a child process with the
// GLIBC_TUNABLES `npm start` sets, so the heap is laid out as the service's is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadNativeHeapTrim, NATIVE_HEAP_ADDON } from '../src/observe/native-heap.js';
import { PROJECT_ROOT } from '../src/kit/project-root.js';

const START_TUNABLES = /GLIBC_TUNABLES=(\S+)/.exec(
  (JSON.parse(
    spawnSync(process.execPath, ['-p', 'JSON.stringify(require("./package.json").scripts.start)'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    }).stdout,
  ) as string) ?? '',
)?.[1];

/**
 * The addon, built as `npm run build` builds it when it is not there yet (a
 * C compiler installed first when missing, as the other tools of the tests are).
 */
async function addonBuilt(): Promise<boolean> {
  if (!existsSync(NATIVE_HEAP_ADDON)) {
    spawnSync(
      'sh',
      [join(PROJECT_ROOT, 'scripts', 'ensure-debian-package.sh'), 'cc', 'gcc', 'libc6-dev'],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    // a plain JavaScript build script, typed by its JSDoc (allowJs)
    const { buildNative } = await import('../scripts/build-native.mjs');
    buildNative(PROJECT_ROOT);
  }
  return existsSync(NATIVE_HEAP_ADDON);
}

/**
 * A burst of 64 KiB buffers with small long-lived ones between them, the
 * burst let go and collected; prints the RSS then, and after trim() when asked.
 */
const CHILD = `
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const rss = () => process.memoryUsage.rss();
const kept = [];
/** the burst, let go when this returns; the RSS at its peak */
function allocate() {
  const burst = [];
  for (let i = 0; i < 800; i++) {
    burst.push(Buffer.allocUnsafeSlow(64 * 1024).fill(i));
    if (i % 50 === 0) kept.push(Buffer.allocUnsafeSlow(512).fill(i));
  }
  return rss();
}
const peak = allocate();
gc(); gc();
setTimeout(() => {
  const collected = rss();
  const trimmed = process.argv[1] === 'trim' ? require(process.argv[2]).trim() : null;
  console.log(JSON.stringify({ peak, collected, after: rss(), trimmed, kept: kept.length, buffers: process.memoryUsage().arrayBuffers }));
}, 500);
`;

interface Burst {
  peak: number;
  collected: number;
  after: number;
  trimmed: boolean | null;
  buffers: number;
}

function burst(trim: boolean): Burst {
  const child = spawnSync(
    process.execPath,
    ['-e', CHILD, trim ? 'trim' : 'keep', NATIVE_HEAP_ADDON],
    { encoding: 'utf8', env: { ...process.env, GLIBC_TUNABLES: START_TUNABLES ?? '' } },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout) as Burst;
}

const MB = 1024 * 1024;

describe('native heap trim', () => {
  it('npm start sets the GLIBC_TUNABLES the child runs with', () => {
    assert.match(START_TUNABLES ?? '', /glibc\.malloc\.mmap_threshold=/);
  });

  it('a missing addon is reported, not thrown', () => {
    const loaded = loadNativeHeapTrim('/nonexistent/malloc-trim.node');
    assert.ok('missing' in loaded);
    assert.match(loaded.missing, /Cannot find module/);
  });

  it('gives back what a burst of 64 KiB buffers left in malloc once collected', async (t) => {
    if (process.platform !== 'linux') return t.skip('glibc only');
    if (!(await addonBuilt())) return t.skip('no C compiler or Node headers: addon not built');
    const loaded = loadNativeHeapTrim();
    assert.ok('trim' in loaded, 'missing' in loaded ? loaded.missing : '');
    assert.equal(typeof loaded.trim(), 'boolean');
    const kept = burst(false);
    const trimmed = burst(true);
    // 800 × 64 KiB = 50 MiB came and went (collected: V8 freed them)...
    assert.ok(kept.buffers < 5 * MB, `not collected: ${JSON.stringify(kept)}`);
    // ...but without the trim, less than 10 MB of it goes back to the system
    assert.ok(kept.peak - kept.after < 10 * MB, `without the trim: ${JSON.stringify(kept)}`);
    assert.equal(trimmed.trimmed, true);
    assert.ok(
      trimmed.collected - trimmed.after > 30 * MB,
      `given back by the trim: ${JSON.stringify(trimmed)}`,
    );
  });
});
