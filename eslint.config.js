// Lint rules aimed at real bugs (floating promises, stray console output,
// configuration read outside the composition root), not at taste.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'data/',
      'tables/',
      '.scratch/',
      'node_modules/',
      'eslint.config.js',
      'scripts/run-tests.mjs',
    ],
  },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // each file's nearest tsconfig.json (web/ has its own), one Program
        // per tsconfig for the whole run. Not `projectService`: its one-run
        // Program is skipped for a file whose text differs from what ESLint
        // parses, and ESLint turns a shebang into a comment, so the two bin
        // entries (src/cli/main.ts, scripts/mcp-stdio.ts) made the project
        // service build the whole root program a second time (13 s of CPU
        // and 300 MB more per lint)
        project: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    // the entries hand process.env to loadConfig (src/config.ts reads it)
    ignores: ['src/main.ts', 'src/config.ts', 'src/cli/main.ts', 'src/library/index.ts'],
    rules: {
      'no-console': 'error',
      // Node defines these two globals as getters: every use from the global
      // is a call (seen in profiles of the request path); the import is a
      // plain binding
      'no-restricted-globals': [
        'error',
        { name: 'Buffer', message: "Import it: import { Buffer } from 'node:buffer'." },
        {
          name: 'performance',
          message: "Import it: import { performance } from 'node:perf_hooks'.",
        },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Read configuration in src/config.ts only.',
        },
      ],
    },
  },
  {
    // the plain-JS start and build checks run before tsc, so they are no part
    // of a tsconfig (build-native.mjs is: test/native-heap.test.ts imports it,
    // with allowJs); type-aware rules on them would need a default project of
    // their own, a second TypeScript program that cost 12 s of every lint
    files: [
      'scripts/build-if-stale.mjs',
      'scripts/compile-tests.mjs',
      'scripts/start.mjs',
      'scripts/typecheck-and-lint.mjs',
    ],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['src/main.ts', 'src/config.ts', 'src/cli/main.ts', 'src/library/index.ts'],
    rules: { 'no-console': 'error' },
  },
);
