// How a test's child process runs one of the project's entry files (the
// service, the CLI, the MCP stdio server, the data updater): its built
// JavaScript in dist/ when dist/ was built from the sources as they are (CI
// builds it at `npm ci`, scripts/run-tests.mjs before the files when it is
// stale, `npm run build` by hand), else its TypeScript source
// through tsx, so that a child never runs code older than the sources. Both
// are the same code; the built one starts on ~0.4 s of CPU where tsx spends
// ~1.5 s hooking and loading the ~200 modules of the service, in every one of
// the suite's ~60 such children. The tsx start itself keeps tests of its own
// (test/startup/lazy-imports.test.ts, early-stop.test.ts).
import { join, relative, resolve } from 'node:path';
import { distIsCurrent } from '../../scripts/build-if-stale.mjs';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';

let current: boolean | undefined;

/**
 * The node arguments that run `source` (a .ts file of src/ or scripts/, as
 * a path from the project's root or an absolute one): the built file, or
 * `--import tsx` and the source.
 */
export function entryArgs(source: string): string[] {
  current ??= distIsCurrent();
  if (!current) return ['--import', 'tsx', source];
  const fromRoot = relative(PROJECT_ROOT, resolve(PROJECT_ROOT, source));
  return [join(PROJECT_ROOT, 'dist', fromRoot.replace(/\.ts$/, '.js'))];
}
