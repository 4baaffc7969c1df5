// Runs the test files, TEST_CONCURRENCY (default 3) at a time, each in a node
// process of its own with the spec reporter, and prints each file's output
// whole when it ends, then the totals and how long each file took, slowest
// first. `node --test` runs files the same way but reports no time per file,
// and the time per file is what tells where a slow suite's time goes.
//
// - The files run compiled, with plain node: first dist/ is built when it is
//   older than its sources (scripts/build-if-stale.mjs, without the type
//   check: the checks below do that), then the whole test tree is compiled
//   to dist/test/ (scripts/compile-tests.mjs, about a second), and each file
//   runs as dist/test/<file>.js, importing src/ from dist/src/. Under tsx
//   each file's process spent ~0.6 s of CPU compiling the file and what it
//   imports. Files are still named, reported and timed by their source
//   (test/….test.ts); source maps put a failure at its line in the source.
// - `--checks` (npm test) also runs the typecheck and the lint beside the
//   files, not before them: they are half a minute of one core, and the test
//   files leave a core idle much of the time (spawned services starting,
//   loopback round trips, timeouts waited for). The typecheck and eslint run
//   as one process sharing the TypeScript programs
//   (scripts/typecheck-and-lint.mjs), prettier's check beside it.
// - The slowest files of the last whole run start first (their times are kept
//   in dist/test-times.json), so that no long file starts last and runs alone;
//   without that record, files start in name order.
// - `--full` (npm run test:full) runs the files whose checks have a full size
//   (they import test/helpers/scale.ts) at that size (TEST_FULL=1): the whole
//   embedded data where `npm test` checks a slice of it, every split where it
//   checks a few. CI runs both.
// - `--and-full` (`npm test -- --and-full`, what .ci/run runs) runs both in one pool:
//   every file as `npm test` runs it, and the full-size files once more with
//   TEST_FULL=1 (named `<file> (TEST_FULL=1)`), slowest first among them all,
//   so that the two sets share the cores instead of the second waiting for
//   the first's last files.
// - TEST_TIMES_FILE=<path> also writes this run's times as JSON;
//   `TEST_TIMES_FILE=test/file-times.json npm test` refreshes the committed
//   record a fresh clone orders its files by.
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { buildIfStale } from './build-if-stale.mjs';
import { compileTests, compiledPath } from './compile-tests.mjs';

const TIMES_RECORD = 'dist/test-times.json';
const COMMITTED_TIMES = 'test/file-times.json';
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

function findTests(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return findTests(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * CPU seconds (user + system) of a command and of every descendant it waited
 * for: bash's `times` after the command, written to a pipe of its own. Wall
 * seconds on a busy machine (2 files at a time, the checks beside them, other
 * work) say how long a file waited as much as what it cost; CPU seconds are
 * what it cost, and what a suite's budget of cores × wall is spent on.
 */
const TIMED = '"$@"; status=$?; times >&3; exit $status';

function cpuSeconds(timesOutput) {
  // second line: the children's user and system times, as 1m2.345s 0m0.678s
  const children = timesOutput.trim().split('\n')[1] ?? '';
  let total = 0;
  for (const [, minutes, seconds] of children.matchAll(/(\d+)m([\d.]+)s/g)) {
    total += Number(minutes) * 60 + Number(seconds);
  }
  return total;
}

/** Runs one command; resolves with its output, exit status, wall and CPU seconds and the spec reporter's counts. */
function run(name, command, args, env = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn('bash', ['-c', TIMED, name, command, ...args], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let output = '';
    let timesOutput = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
    child.stdio[3].setEncoding('utf8').on('data', (chunk) => (timesOutput += chunk));
    child.on('close', (code, signal) => {
      const counts = {};
      for (const count of COUNTS) {
        const match = new RegExp(`^ℹ ${count} (\\d+)$`, 'm').exec(output);
        counts[count] = match ? Number(match[1]) : 0;
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = cpuSeconds(timesOutput);
      resolve({ name, output, ok: code === 0, code: code ?? signal, seconds, cpu, counts });
    });
  });
}

function report(result) {
  process.stdout.write(
    `\n# ${result.name} (${result.seconds.toFixed(1)} s, ${result.cpu.toFixed(1)} s CPU)\n${result.output}`,
  );
  if (!result.ok) process.stdout.write(`# ${result.name} FAILED (exit ${result.code})\n`);
}

/**
 * Seconds per file of the last whole run here, else the committed record of
 * a whole run (a fresh clone, as in CI: without it the slowest files could
 * start last), else an empty record.
 */
function lastTimes() {
  for (const path of [TIMES_RECORD, COMMITTED_TIMES]) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')).times ?? {};
    } catch {
      // not there: the next one
    }
  }
  return {};
}

const FLAGS = ['--checks', '--full', '--and-full'];
const args = process.argv.slice(2);
const withChecks = args.includes('--checks');
const full = args.includes('--full');
const andFull = args.includes('--and-full');
const named = args.filter((arg) => !FLAGS.includes(arg));
const whole = named.length === 0 && !full;
const known = lastTimes();
const SCALED = /from '(\.\.\/)+helpers\/scale\.js'|from '\.\/scale\.js'/;
const scaled = (file) => SCALED.test(readFileSync(file, 'utf8'));
/** what runs: each file with its name in the report and the environment it adds */
const asIs = (file) => ({ file, name: file, env: {} });
const atFullSize = (file) => ({ file, name: `${file} (TEST_FULL=1)`, env: { TEST_FULL: '1' } });
const found = named.length > 0 ? named : findTests('test').sort();
const planned = full
  ? found.filter(scaled).map(asIs)
  : [...found.map(asIs), ...(andFull ? found.filter(scaled).map(atFullSize) : [])];
// a full-size run with no time in the record starts first: they are the longest
const lastSeconds = ({ name, env }) => known[name] ?? (env.TEST_FULL === undefined ? 0 : 1e6);
const files = named.length > 0 ? planned : planned.sort((a, b) => lastSeconds(b) - lastSeconds(a));
if (full) process.env.TEST_FULL = '1';
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 3));
const started = performance.now();

// the files import dist/src/ and their children run dist/ (test/helpers/entry.ts):
// never older than the sources. Before the checks start: a build that fails ends the run
buildIfStale({ check: false });

// the typecheck and eslint in one process over the same programs (what
// `npm run typecheck` and eslint in `npm run lint` check, on half the CPU),
// and the rest of `npm run lint`, prettier's check. Prettier keeps which
// files it found formatted (by their content, its version and options:
// node_modules/.cache/prettier/), so a run after a small edit reads those
// again but formats only the changed ones: ~1 s of CPU instead of ~16 s
const CHECKS = [
  ['typecheck and eslint', ['scripts/typecheck-and-lint.mjs']],
  [
    'prettier --check',
    [
      'node_modules/prettier/bin/prettier.cjs',
      '--check',
      '--cache',
      '--cache-strategy',
      'content',
      '.',
    ],
  ],
];
const checks = withChecks
  ? CHECKS.map(([name, args]) =>
      run(name, process.execPath, args).then((result) => {
        report(result);
        return result;
      }),
    )
  : [];

// the whole test tree, compiled afresh by every run (about a second): a
// file never runs an older compile. A file that does not compile fails the
// run (esbuild's message names it) and no file runs; the checks still report
const compiling = performance.now();
const compileFailure = await compileTests().then(
  ({ files: sources }) => {
    const seconds = (performance.now() - compiling) / 1000;
    process.stdout.write(
      `# compiled ${sources} test sources to dist/test/ in ${seconds.toFixed(1)} s\n`,
    );
    return null;
  },
  (error) => ({
    name: 'compile the tests (scripts/compile-tests.mjs)',
    output: `${error instanceof Error ? error.message : String(error)}\n`,
    ok: false,
    code: 1,
    seconds: (performance.now() - compiling) / 1000,
    cpu: 0,
  }),
);
if (compileFailure !== null) report(compileFailure);
const queue = compileFailure === null ? files : [];

const results = [];
let next = 0;
async function worker() {
  while (next < queue.length) {
    const { file, name, env } = queue[next++];
    const result = await run(
      name,
      process.execPath,
      ['--enable-source-maps', '--test-reporter=spec', compiledPath(file)],
      env,
    );
    results.push(result);
    report(result);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
const checked = await Promise.all(checks);
const wall = (performance.now() - started) / 1000;

const totals = Object.fromEntries(
  COUNTS.map((count) => [count, results.reduce((sum, r) => sum + r.counts[count], 0)]),
);
const failed = [compileFailure ?? [], ...checked, ...results].flat().filter((r) => !r.ok);
const bySlowest = [...checked, ...results].sort((a, b) => b.seconds - a.seconds);
const busy = results.reduce((sum, r) => sum + r.seconds, 0);
const cpu = [...checked, ...results].reduce((sum, r) => sum + r.cpu, 0);
process.stdout.write(
  `\n# time per file, slowest first (${files.length} files, ${busy.toFixed(1)} s of file time, ${concurrency} at a time; ${cpu.toFixed(1)} s of CPU with the checks)\n` +
    bySlowest
      .map(
        (r) =>
          `#   ${r.seconds.toFixed(1).padStart(6)} s  ${r.cpu.toFixed(1).padStart(6)} s CPU  ${r.name}`,
      )
      .join('\n') +
    '\n',
);
process.stdout.write(
  `\n${COUNTS.map((count) => `ℹ ${count} ${totals[count]}`).join('\n')}\nℹ files ${files.length}, checks ${checked.length} (${failed.length} failed)\nℹ duration_ms ${Math.round(wall * 1000)}\n`,
);
for (const r of failed) process.stdout.write(`✖ ${r.name} failed (exit ${r.code})\n`);

const round = (seconds) => Number(seconds.toFixed(2));
const times = Object.fromEntries(bySlowest.map((r) => [r.name, round(r.seconds)]));
const cpuTimes = Object.fromEntries(bySlowest.map((r) => [r.name, round(r.cpu)]));
const record = `${JSON.stringify({ wall: round(wall), cpu: round(cpu), times, cpuTimes }, null, 2)}\n`;
if (whole && compileFailure === null && existsSync(dirname(TIMES_RECORD))) {
  writeFileSync(TIMES_RECORD, record);
}
if (process.env.TEST_TIMES_FILE) {
  mkdirSync(dirname(process.env.TEST_TIMES_FILE), { recursive: true });
  writeFileSync(process.env.TEST_TIMES_FILE, record);
}
process.exit(failed.length === 0 && totals.fail === 0 ? 0 : 1);
