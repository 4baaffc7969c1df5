// The typecheck and the typed lint in one process over the same TypeScript
// programs (npm test's checks, scripts/run-tests.mjs --checks): `npm run
// typecheck` (tsc on tsconfig.json and web/) and `npm run lint`'s eslint each
// build the whole program of each tsconfig and type every file, twice the
// work; here the programs are built and checked once and ESLint's type-aware
// rules read the checker's types from them (parserOptions.programs). The
// same diagnostics and rules as the two commands, which stay for use alone;
// prettier's check (the rest of `npm run lint`) runs beside, as it did.
//
//   node scripts/typecheck-and-lint.mjs     exit 1 on a type error or a lint problem
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ESLint } from 'eslint';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/** the tsconfigs `npm run typecheck` checks, with what it adds on the command line */
const PROJECTS = [
  { config: join(ROOT, 'tsconfig.json'), options: { noEmit: true } },
  { config: join(ROOT, 'web', 'tsconfig.json'), options: {} },
];
function createProgram({ config, options }) {
  const parsed = ts.getParsedCommandLineOfConfigFile(config, options, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error(`cannot read ${config}`);
  return ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
  });
}

const programs = PROJECTS.map(createProgram);
const diagnostics = programs.flatMap((program) => [...ts.getPreEmitDiagnostics(program)]);
if (diagnostics.length > 0) {
  process.stdout.write(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => '\n',
    }),
  );
}

// the programs for the files they hold; the others (the plain scripts that
// eslint.config.js lints without types) keep the configuration's own options
const typed = [
  ...new Set(
    programs.flatMap((program) =>
      program
        .getSourceFiles()
        .map((file) => relative(ROOT, file.fileName))
        .filter((file) => !file.startsWith('..') && !file.startsWith('node_modules/')),
    ),
  ),
];
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfig: [
    { files: typed, languageOptions: { parserOptions: { programs, project: false } } },
  ],
});
const results = await eslint.lintFiles(['.']);
const formatter = await eslint.loadFormatter('stylish');
const lintOutput = await formatter.format(results);
if (lintOutput !== '') process.stdout.write(lintOutput);
const lintProblems = results.reduce((n, r) => n + r.errorCount + r.warningCount, 0);
process.stdout.write(`${diagnostics.length} type error(s), ${lintProblems} lint problem(s)\n`);
process.exit(diagnostics.length === 0 && lintProblems === 0 ? 0 : 1);
