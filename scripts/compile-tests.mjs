// Compiles the test tree (test/**/*.ts, the fixtures' folder aside) to
// JavaScript in dist/test/, file for file, so that the suite runs each test
// file with plain node: tsx spent ~0.6 s of CPU in every file's process
// transpiling the file and every module it imported, ~110 s over a run.
// scripts/run-tests.mjs calls it at the start of every run (about a second
// for the whole tree), so no run ever runs an older compile of a test.
//
// The compiled files sit where tsc's own layout (tsconfig.json: rootDir ".",
// outDir "dist") puts them, so their imports hold as written:
// `../../src/x.js` is dist/src/x.js, the build of src/ that
// scripts/build-if-stale.mjs keeps current (run-tests.mjs builds it first
// when it is stale), and a test's own helpers are their compiled siblings.
// Two things would not hold from dist/test/ and are mended here:
// - A test finds fixtures, docs, scripts and source files by its own place
//   (`new URL('../fixtures/…', import.meta.url)`, `import.meta.dirname`):
//   `import.meta.url`, `.dirname` and `.filename` are compiled to the source
//   file's (esbuild's define, one build per file), so those paths are the
//   source tree's, as under tsx.
// - The plain scripts a test imports (scripts/*.mjs, not built to dist/)
//   are imported from where they are, by a path from the compiled file.
//
//   node scripts/compile-tests.mjs           compile (prints what it did)
//   import { compileTests } from './compile-tests.mjs'   (run-tests.mjs)
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const SOURCE = join(ROOT, 'test');
/** where the compiled tree goes: dist/test/ mirrors test/ */
export const COMPILED = join(ROOT, 'dist', 'test');

/** The .ts files under `dir`, test/fixtures/ aside (data, not code). */
function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return path === join(SOURCE, 'fixtures') ? [] : sources(path);
    }
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir) {
  let names;
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The compiled file of a test source: test/a/b.ts → dist/test/a/b.js. */
export function compiledPath(source) {
  return join(COMPILED, relative(SOURCE, resolve(ROOT, source))).replace(/\.ts$/, '.js');
}

/**
 * Every import stays an import (nothing is bundled: `bundle` only lets the
 * plugin see the imports); a relative import of a plain script (.mjs) is
 * pointed from the compiled file at the script where it is.
 */
function importsAsWritten(source, output) {
  return {
    name: 'imports-as-written',
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        if (args.path.startsWith('.') && args.path.endsWith('.mjs')) {
          const target = resolve(dirname(source), args.path);
          const path = relative(dirname(output), target).split(sep).join('/');
          return { path: path.startsWith('.') ? path : `./${path}`, external: true };
        }
        return { path: args.path, external: true };
      });
    },
  };
}

/** Writes `contents` to `path` unless it holds them already; by a rename, so a reader never sees half a file. */
function writeIfChanged(path, contents) {
  try {
    if (readFileSync(path).equals(contents)) return false;
  } catch {
    // not there yet
  }
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, contents);
  renameSync(partial, path);
  return true;
}

/**
 * Compiles every test source to dist/test/ and removes what is there for a
 * source no longer in test/; resolves with the counts. A syntax error
 * rejects (esbuild's message names the file and line).
 */
export async function compileTests() {
  const files = sources(SOURCE);
  const outputs = await Promise.all(
    files.map(async (source) => {
      const output = compiledPath(source);
      const result = await build({
        entryPoints: [source],
        outfile: output,
        bundle: true,
        write: false,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: 'linked',
        logLevel: 'silent',
        define: {
          'import.meta.url': JSON.stringify(pathToFileURL(source).href),
          'import.meta.dirname': JSON.stringify(dirname(source)),
          'import.meta.filename': JSON.stringify(source),
        },
        plugins: [importsAsWritten(source, output)],
      });
      return result.outputFiles;
    }),
  );
  const kept = new Set(outputs.flat().map((file) => file.path));
  let written = 0;
  for (const file of outputs.flat()) if (writeIfChanged(file.path, file.contents)) written += 1;
  let removed = 0;
  for (const path of filesUnder(COMPILED)) {
    // (a .partial is another run's file on its way in)
    if (kept.has(path) || path.endsWith('.partial')) continue;
    rmSync(path, { force: true });
    removed += 1;
  }
  return { files: files.length, written, removed };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = performance.now();
  const { files, written, removed } = await compileTests();
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  process.stdout.write(
    `compiled ${files} test sources to dist/test/ in ${seconds} s (${written} written, ${removed} removed)\n`,
  );
}
