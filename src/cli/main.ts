#!/usr/bin/env -S GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=131072 node --max-semi-space-size=2
// The composition root of the `ipintel` command (package.json `bin`): hands
// argv, the environment and the standard streams to ./run.ts, then exits with
// its status — or starts the service (`serve`: src/main.ts, in a process of
// its own) or becomes the data updater (`update-data`,
// ./update-data.ts, which reads the process itself). See `ipintel --help`.
//
// The flags on the first line are the bulk path's (`ipintel enrich`): a
// small young generation keeps a run over millions of lines well under
// 150 MB (its garbage dies young; larger semi-spaces only hold more of it),
// and huge pages for the tables' large buffers make reading them a fifth
// cheaper (docs/operations.md). The service wants a larger young generation
// (4 MB), so `serve` starts it in a process of its own with `npm start`'s flags.
import { spawn } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './run.js';
import { SERVICE_FLAGS } from './service-flags.js';
import { EXPORT_FLAGS } from '../kit/export-files.js';

/**
 * A program as a child process with its own node flags (the others of this
 * one kept): signals are passed on (SIGHUP reloads, SIGTERM and SIGINT stop
 * it) and its exit is this process's.
 */
function runAsChild(entry: string, ownFlags: readonly string[], args: string[]): void {
  const flags = process.execArgv.filter((flag) => !flag.startsWith('--max-semi-space-size'));
  const child = spawn(process.execPath, [...flags, ...ownFlags, entry, ...args], {
    stdio: 'inherit',
  });
  child.on('error', (error) => {
    process.stderr.write(`ipintel: cannot start ${entry}: ${error.message}\n`);
    process.exit(1);
  });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const pass = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, pass);
  child.on('exit', (code, signal) => {
    for (const s of signals) process.off(s, pass);
    if (signal === null) process.exit(code ?? 1);
    process.kill(process.pid, signal);
  });
}

/** The service (src/main.ts) with the service's flags. */
function serve(args: string[]): void {
  // built, the service's bundle (dist/bundle/main.js, what `npm start` runs);
  // under tsx, src/main.ts
  const entry = fileURLToPath(
    extname(import.meta.url) === '.ts'
      ? new URL('../main.ts', import.meta.url)
      : new URL('../../bundle/main.js', import.meta.url),
  );
  runAsChild(entry, SERVICE_FLAGS, args);
}

/** `ipintel export` started without its flags (EXPORT_FLAGS): this CLI again, with them. */
function needsExportFlags(args: readonly string[]): boolean {
  return args[0] === 'export' && !EXPORT_FLAGS.every((flag) => process.execArgv.includes(flag));
}

// `ipintel enrich big.log | head`: a closed pipe ends the output, not in an error
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

if (needsExportFlags(process.argv.slice(2))) {
  runAsChild(fileURLToPath(import.meta.url), EXPORT_FLAGS, process.argv.slice(2));
} else {
  const outcome = await runCli(process.argv.slice(2), {
    env: process.env,
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
  });

  if ('code' in outcome) {
    // the network clients may hold sockets open: exit once the output is written
    process.stdout.write('', () => process.exit(outcome.code));
  } else {
    // the started program parses process.argv itself: it sees only its own arguments
    process.argv.splice(2, process.argv.length - 2, ...outcome.args);
    if (outcome.become === 'serve') serve(outcome.args);
    else {
      const { updateDataMain } = await import('./update-data.js');
      await updateDataMain(outcome.args, process.env);
    }
  }
}
