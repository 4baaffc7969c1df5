// Compiles to dist/ (tsc, then the service's bundle in dist/bundle/:
// scripts/bundle.ts) only when dist/ is older than what it is compiled from,
// so `npm start` (and the other run-a-script commands) skip the ~15 s when
// nothing changed. Plain JavaScript with no dependencies: it runs before there
// is a dist/ to run.
//
//   node scripts/build-if-stale.mjs          build when stale (bench, mcp, ...)
//   node scripts/build-if-stale.mjs --force  build regardless (`npm run build`, `prepare`)
//   ... --no-check                           emit without checking types (`prepare`, below)
//   import { buildIfStale } from './build-if-stale.mjs'   (scripts/start.mjs: the
//                                            check and the service in one process)
//   import { distIsCurrent } from './build-if-stale.mjs'  (test/helpers/entry.ts:
//                                            run the built entry, not the source)
//
// "Stale" is make's rule: some input was modified after the last successful
// build began. The inputs are src/, scripts/, bench/, web/ (the page's
// renderer, web/render.js, is the server's too) (their files and their
// directories, so a deleted or renamed file counts too), tsconfig*.json and
// package.json. The stamp dist/.build-stamp is written after both succeed,
// dated when the build began, so a file saved during a build is newer than the
// stamp and the next run builds again. A file put in place with an older date
// (cp -p, tar, rsync -a) is not noticed: run `npm run build` after such a copy.
//
// `prepare` (npm ci, npm install, the image's build stage) emits without
// checking types (tsc --noCheck: the same files, in ~10 s of CPU instead of
// ~24 s): what it installs was checked where it was written, and CI's
// `npm test` checks it again (`npm run typecheck`: src, scripts, bench and
// test). `npm run build` and the builds of stale sources (npm start, the
// scripts) still check, so an edit's type error stops them.
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildNative } from './build-native.mjs';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const STAMP = join(ROOT, 'dist', '.build-stamp');
const INPUT_DIRS = ['src', 'scripts', 'bench', 'web'];
const BUILD_ARGS = ['-p', 'tsconfig.build.json'];

/**
 * Latest modification time (ms) under `path`, directories included; 0 when it does not exist.
 * @param {string} path
 * @returns {number}
 */
function newest(path) {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return 0;
  }
  let latest = stat.mtimeMs;
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)));
  }
  return latest;
}

function inputsModified() {
  const configs = readdirSync(ROOT).filter(
    (name) => name === 'package.json' || /^tsconfig.*\.json$/.test(name),
  );
  return Math.max(...[...INPUT_DIRS, ...configs].map((name) => newest(join(ROOT, name))));
}

/** Why a build is due, or null when dist/ is current. */
function staleness() {
  let built;
  try {
    built = statSync(STAMP).mtimeMs;
  } catch {
    return 'no build stamp';
  }
  // >=: on a file system that keeps whole seconds, an equal date may be a later save
  return inputsModified() >= built ? 'sources changed since the last build' : null;
}

/**
 * Runs a node script of the build; a failure ends this process with its status.
 * Its report goes to stderr: `npm run mcp` speaks MCP on stdout.
 * @param {string[]} args
 */
function runStep(args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

/** @param {boolean} check */
function build(check) {
  const began = new Date();
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  runStep([tsc, ...BUILD_ARGS, ...(check ? [] : ['--noCheck'])]);
  // the service's bundle (dist/bundle/, what `npm start` runs): scripts/bundle.ts, built just now
  runStep([join(ROOT, 'dist', 'scripts', 'bundle.js')]);
  // malloc_trim for the idle release (src/native/malloc-trim.c)
  buildNative(ROOT);
  // the bins run by their first line (`./dist/src/cli/main.js`, as a global install does)
  /** @type {unknown} */
  const parsed = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const manifest = /** @type {{ bin: Record<string, string> }} */ (parsed);
  for (const file of Object.values(manifest.bin)) chmodSync(join(ROOT, file), 0o755);
  writeFileSync(STAMP, `built from the sources as of ${began.toISOString()}\n`);
  utimesSync(STAMP, began, began);
}

/** Whether dist/ was built from the sources as they are (the tests' children then run it). */
export function distIsCurrent() {
  return staleness() === null;
}

/**
 * Builds dist/ when it is older than its inputs (or always, with force);
 * check: false emits without checking types.
 * @param {{ force?: boolean, check?: boolean }} [options]
 */
export function buildIfStale({ force = false, check = true } = {}) {
  const reason = force ? null : staleness();
  if (force || reason !== null) {
    if (reason !== null) process.stderr.write(`dist/ is out of date (${reason}): building\n`);
    build(check);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  buildIfStale({
    force: process.argv.includes('--force'),
    check: !process.argv.includes('--no-check'),
  });
}
