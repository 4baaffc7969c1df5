// The service's bundle (dist/bundle/): src/main.ts and everything it imports,
// npm packages included, as one ES module, plus a chunk for each part loaded
// later (the MCP SDK, ioredis, prom-client, the updater, the map page) and
// the compile worker's entry beside it. `npm start` and the container run it.
//
// Why: Node 20 loads an ES module graph file by file (resolve, read, compile,
// link each one). The service's start-up imports ~300 files (ours, zod's,
// pino's); as one file they cost ~0.2–0.3 s less on this kind of machine
// (BENCHMARKS.md, start-up), with the same code. esbuild compiles the
// TypeScript sources directly, as tsx does for the tests.
//
// The build fails when a package that only some deployments use (REDIS_URL,
// POST /mcp, /metrics) is reachable from main.js by static imports: it would
// load at every start.
//
//   node dist/scripts/bundle.js [OUTDIR]   (run by scripts/build-if-stale.mjs after tsc)
//   import { bundleService } from './bundle.js'
import { build, type Metafile, type Plugin } from 'esbuild';
import { rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT as ROOT } from '../src/kit/project-root.js';

export const BUNDLE_DIR = join(ROOT, 'dist', 'bundle');

/** Packages loaded when first needed; never in the entry's static import closure. */
export const LOADED_LATER = ['ioredis', '@modelcontextprotocol/sdk', 'prom-client'];

// Bundled CommonJS packages (pino, ...) call require() for Node's modules; an
// ES module has none, so each output file makes its own.
const REQUIRE_SHIM =
  "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);";

/**
 * zod's `locales` namespace (`z.locales`, `z.core.locales`, zod/mini's) holds its ~45
 * translations of the error messages: 366 KB of the 1.3 MB the service
 * compiled at start, for a namespace nothing here reads (zod registers
 * English itself, from its schemas module). In the bundle it has English alone.
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(bundle) {
    bundle.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? {
            path: join(dirname(args.importer), '..', 'locales', 'index.js'),
            namespace: 'zod-locales',
          }
        : undefined,
    );
    bundle.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * Every input file reachable from `entry` (an output path of the metafile,
 * relative to the project) through static imports of other outputs (the
 * shared chunks).
 */
export function staticInputs(metafile: Metafile, entry: string): string[] {
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (output: string): void => {
    if (seen.has(output)) return;
    seen.add(output);
    const meta = metafile.outputs[output];
    if (meta === undefined) throw new Error(`${output} is not an output of the bundle`);
    for (const input of Object.keys(meta.inputs)) inputs.add(input);
    for (const imported of meta.imports) {
      if (imported.kind === 'import-statement' && imported.external !== true) visit(imported.path);
    }
  };
  visit(entry);
  return [...inputs];
}

/** The npm packages the metafile input paths `inputs` come from. */
export function packagesOf(inputs: Iterable<string>): Set<string> {
  const names = new Set<string>();
  for (const input of inputs) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match !== null) names.add(match[1]!);
  }
  return names;
}

/** The packages of LOADED_LATER that `entry`'s start-up would load (the build refuses any). */
export function loadedTooEarly(metafile: Metafile, entry: string): string[] {
  const early = packagesOf(staticInputs(metafile, entry));
  return LOADED_LATER.filter((name) => early.has(name));
}

/** The entry's output path as the metafile names it. */
export function entryOutput(outdir: string): string {
  return relative(ROOT, join(outdir, 'main.js')).split('\\').join('/');
}

/**
 * Bundles the service into `outdir` (default dist/bundle) and checks that the
 * packages of LOADED_LATER stay out of its start-up.
 */
export async function bundleService(outdir = BUNDLE_DIR): Promise<Metafile> {
  // chunks are named by their hash: the last build's would stay beside the new ones
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: {
      main: 'src/main.ts',
      // started by compileInWorker as the file beside it (src/lookups/geoip/update/compile-in-worker.ts)
      'compile-worker': 'src/lookups/geoip/update/compile-worker.ts',
    },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: '[name]-[hash]',
    banner: { js: REQUIRE_SHIM },
    sourcemap: 'linked',
    plugins: [zodEnglishOnly],
    metafile: true,
    logLevel: 'warning',
  });
  const wrong = loadedTooEarly(result.metafile, entryOutput(outdir));
  if (wrong.length > 0) {
    throw new Error(`the bundle's start-up imports ${wrong.join(', ')}: load it when first needed`);
  }
  return result.metafile;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bundleService(process.argv[2] === undefined ? BUNDLE_DIR : resolve(process.argv[2]));
}
