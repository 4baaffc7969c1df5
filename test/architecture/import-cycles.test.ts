// Imports under src/ run one way: no file imports, through any chain of
// imports, a file that imports it. Every import counts — `import type` and
// `import()` too: a circle of types is still a circle of concerns, and the
// next value import along it makes the evaluation order depend on which file
// loads first. The checker is held to a small tree with known circles.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/project-root.js';
import { importCycles, importGraph, importsOf } from '../helpers/import-graph.js';

describe('imports under src/', () => {
  it('form no circle', () => {
    const graph = importGraph(join(PROJECT_ROOT, 'src'));
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    assert.ok(graph.get('config.ts')?.some((edge) => edge.to === 'project-root.ts'));
    assert.deepEqual(
      importCycles(graph).map((cycle) => cycle.join(' → ')),
      [],
    );
  });
});

describe('the cycle finder', () => {
  const root = mkdtempSync(join(tmpdir(), 'ipintel-imports-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

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
