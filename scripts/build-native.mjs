// The native part of the build: src/native/malloc-trim.c into
// dist/native/malloc-trim.node, with the system's C compiler and the N-API
// headers of the Node.js that runs this (<prefix>/include/node: Debian's and
// NodeSource's packages and the official images have them). Nothing is
// downloaded (node-gyp would fetch headers from nodejs.org). Without a
// compiler or the headers the service runs without it: memory freed after a
// load then stays with the process (src/observe/idle-memory.ts says so in its log).
// Plain JavaScript with no dependencies, like scripts/build-if-stale.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Compiles the addon into `root`/dist/native; a missing compiler or header is
 * reported (one line on stderr) and skipped, a failing compiler ends the build.
 * @param {string} root
 */
export function buildNative(root) {
  const source = join(root, 'src', 'native', 'malloc-trim.c');
  const out = join(root, 'dist', 'native', 'malloc-trim.node');
  const headers = join(dirname(dirname(process.execPath)), 'include', 'node');
  rmSync(out, { force: true });
  // the folder exists even when nothing is built in it: the image copies it
  mkdirSync(dirname(out), { recursive: true });
  if (process.platform !== 'linux') return;
  const compiler = process.env['CC'] ?? 'cc';
  if (!existsSync(join(headers, 'node_api.h'))) {
    process.stderr.write(`native heap trim not built: no ${join(headers, 'node_api.h')}\n`);
    return;
  }
  const result = spawnSync(
    compiler,
    ['-O2', '-Wall', '-Werror', '-shared', '-fPIC', `-I${headers}`, source, '-o', out],
    { stdio: ['ignore', 2, 2] },
  );
  if (result.error !== undefined) {
    process.stderr.write(`native heap trim not built: ${compiler}: ${result.error.message}\n`);
    return;
  }
  if (result.status !== 0) process.exit(result.status ?? 1);
}
