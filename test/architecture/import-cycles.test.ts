// Imports under src/ run one way: no file imports, through any chain of
// imports, a file that imports it. Every import counts — `import type` and
// `import()` too: a circle of types is still a circle of concerns, and the
// next value import along it makes the evaluation order depend on which file
// loads first. And between the top folders of src/ they run down a written
// order of layers (below), so that a newcomer can read the tree bottom-up and
// a lookup never learns about HTTP, the configuration or the composition
// root. The checkers are held to a small tree with known faults.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import {
  importCycles,
  importGraph,
  importsOf,
  layerViolations,
  unreachable,
} from '../helpers/import-graph.js';

/** A folder of small source files for a checker's own test, removed after the suite. */
function scratchTree(): { root: string; write: (path: string, text: string) => void } {
  const root = mkdtempSync(join(tmpdir(), 'ipintel-imports-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  return { root, write };
}

// read once: every check walks the same graph
const graph = importGraph(join(PROJECT_ROOT, 'src'));

describe('imports under src/', () => {
  it('form no circle', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    assert.ok(graph.get('config.ts')?.some((edge) => edge.to === 'kit/project-root.ts'));
    assert.deepEqual(
      importCycles(graph).map((cycle) => cycle.join(' → ')),
      [],
    );
  });
});

/**
 * The top folders (and top files) of src/, bottom layer first. A file imports
 * from its own folder and from the layers below, never from a layer above nor
 * from another folder of its own layer, nor from outside src/.
 */
const LAYERS = [
  // generic helpers (kit/: the error catalog, the project's root, the atomic
  // file writer, timers, workers, the export's file names) and the packages
  // loaded when first used (later/): no IP, HTTP or data-set knowledge
  ['kit', 'later'],
  // bytes, CSV, range tables and change stamps; addresses and networks; the Redis link
  ['data', 'net', 'redis'],
  // stores and counters the service shares: cache, rate limits, API keys; and
  // what the process tells of itself (observe/: metrics, request counters, the
  // idle memory release, the malloc_trim addon, the workers' summed metrics)
  ['cache', 'ratelimit', 'observe', 'auth'],
  // every lookup: its data (load, compile, update), its index, its answer
  ['lookups'],
  // the one validated configuration, made of each area's settings
  ['config'],
  // the one update path: feeds, RDAP bootstrap, GeoIP/ASN
  ['update'],
  // the HTTP machinery: exchange, router, validation, answers
  ['http'],
  // what the API accepts and answers (schemas, parameters, the batch body)
  ['api'],
  // one request pipeline over the routes it is given
  ['app'],
  // the web page and MCP, each answering through the pipeline
  ['web', 'mcp'],
  // the route table and its handlers
  ['routes'],
  // the composition root of the service's objects
  ['composition'],
  // what runs a composed service: the export, and the process's life (life/:
  // the reloads, the warm-up, the stop, WORKERS)
  ['export', 'life'],
  // the entries: the service's process, the CLI and the library (`import … from 'ipintel'`)
  ['main', 'cli', 'library'],
];

describe('top folders of src/', () => {
  it('import down their layers only', () => {
    assert.deepEqual(layerViolations(graph, LAYERS), []);
  });

  it('are each named in the map of docs/design.md, which names nothing else', () => {
    // the map is where a newcomer learns the tree: one row per place, read from the disk
    const onDisk = readdirSync(join(PROJECT_ROOT, 'src'), { withFileTypes: true })
      .map((entry) => (entry.isDirectory() ? `src/${entry.name}/` : `src/${entry.name}`))
      .sort();
    const design = readFileSync(join(PROJECT_ROOT, 'docs', 'design.md'), 'utf8');
    const map = design.slice(
      design.indexOf('## Map of the folders'),
      design.indexOf('\n## ', design.indexOf('## Map of the folders') + 1),
    );
    const named = [...map.matchAll(/`(src\/[^`]+)`/g)].map((match) => match[1]!);
    const topNamed = named.filter((path) => /^src\/[^/]+\/?$/.test(path));
    assert.deepEqual([...new Set(topNamed)].sort(), onDisk);
  });

  it('are folders but for the few files a newcomer reads first (at most five at the top)', () => {
    // the composition root, the pipeline, the configuration and the entry sit
    // at the top; anything else belongs in the folder of its layer
    const topFiles = [...graph.keys()].filter((file) => !file.includes('/'));
    assert.ok(
      topFiles.length <= 5,
      `src/ has ${topFiles.length} files at its top: ${topFiles.join(', ')}`,
    );
  });
});

/**
 * Where the shipped programs start: the service, the CLI, the preload of the
 * container image (Dockerfile), the compile worker (started by file name from
 * compile-in-worker.ts), the MCP stdio server (the `ipintel-mcp` bin,
 * scripts/mcp-stdio.ts) and the library (package.json `exports`).
 */
const ENTRIES = [
  'main.ts',
  'cli/main.ts',
  'library/index.ts',
  'kit/early-stop.ts',
  'lookups/geoip/update/compile-worker.ts',
  'export/csv-worker.ts',
  'mcp/stdio.ts',
];

describe('files under src/', () => {
  it('are each loaded by a shipped program (offline tools live in scripts/ and bench/)', () => {
    assert.deepEqual(unreachable(graph, ENTRIES), []);
  });
});

describe('the cycle finder', () => {
  const { root, write } = scratchTree();

  it('reads every kind of import, and only relative ones', () => {
    const found = importsOf(
      [
        "import { a } from './a.js';",
        "import type { B } from './b.js';",
        "import { type C, type D } from './c.js';",
        "import { type E, f } from './e.js';",
        "export { g } from './g.js';",
        "export type { H } from './h.js';",
        "import 'node:fs';",
        "const later = () => import('./later.js');",
      ].join('\n'),
    );
    assert.deepEqual(found, [
      { specifier: './a.js', typeOnly: false, dynamic: false },
      { specifier: './b.js', typeOnly: true, dynamic: false },
      { specifier: './c.js', typeOnly: true, dynamic: false },
      { specifier: './e.js', typeOnly: false, dynamic: false },
      { specifier: './g.js', typeOnly: false, dynamic: false },
      { specifier: './h.js', typeOnly: true, dynamic: false },
      { specifier: 'node:fs', typeOnly: false, dynamic: false },
      { specifier: './later.js', typeOnly: false, dynamic: true },
    ]);
  });

  it('finds a circle of five files through a type-only import, and a lazy one', () => {
    // the shape of the circle that was: config → update settings → sources → compile step → config
    write('config.ts', "import { x } from './update/settings.js';\nexport const ROOT = x;\n");
    write('update/settings.ts', "import type { S } from './sources.js';\nexport const x = 1;\n");
    write('update/sources.ts', "import { c } from '../compile/step.js';\nexport type S = 1;\n");
    write('compile/step.ts', "import { c2 } from './paths.js';\nexport const c = c2;\n");
    write('compile/paths.ts', "import { ROOT } from '../config.js';\nexport const c2 = ROOT;\n");
    write('lazy/a.ts', "export const load = () => import('./b.js');\n");
    write('lazy/b.ts', "import { load } from './a.js';\nexport const b = load;\n");
    write('leaf/index.ts', 'export const leaf = 1;\n');
    write('uses-leaf.ts', "import { leaf } from './leaf/index.js';\nexport const y = leaf;\n");
    const graph = importGraph(root);
    assert.deepEqual(
      importCycles(graph).map((cycle) => cycle.join(' → ')),
      [
        'compile/paths.ts → config.ts → update/settings.ts → update/sources.ts → compile/step.ts → compile/paths.ts',
        'lazy/a.ts → lazy/b.ts → lazy/a.ts',
      ],
    );
    assert.deepEqual(
      importCycles(graph, (edge) => !edge.typeOnly && !edge.dynamic),
      [],
    );
  });
});

describe('the layer checker', () => {
  const { root, write } = scratchTree();

  it('names imports that run up, across one layer, out of the tree, and folders in no layer', () => {
    write('elsewhere.ts', 'export {};\n');
    write('src/base.ts', 'export const b = 1;\n');
    write(
      'src/low/a.ts',
      "import { b } from '../base.js';\nimport { c } from './c.js';\nexport const a = b + c;\n",
    );
    write('src/low/c.ts', "import type { H } from '../high/h.js';\nexport const c = 1 as H;\n");
    write('src/side/s.ts', "import { a } from '../low/a.js';\nexport const s = a;\n");
    write('src/high/h.ts', "import { s } from '../side/s.js';\nexport type H = typeof s;\n");
    write('src/high/out.ts', "export const o = () => import('../../elsewhere.js');\n");
    write('src/stray/x.ts', "import { b } from '../base.js';\nexport const x = b;\n");
    const found = layerViolations(importGraph(join(root, 'src')), [
      ['base'],
      ['low', 'side'],
      ['high'],
    ]);
    assert.deepEqual(found, [
      'high/out.ts → ../elsewhere.ts (outside the tree)',
      'low/c.ts → high/h.ts (high is above low)',
      'side/s.ts → low/a.ts (low and side are one layer)',
      'stray is in no layer',
    ]);
  });
});
