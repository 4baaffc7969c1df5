#!/usr/bin/env node
// The composition root of the `ipintel` command (package.json `bin`): hands
// argv, the environment and the standard streams to ./run.ts, then exits with
// its status — or becomes the service (`serve`, src/main.ts) or the data
// updater (`update-data`, scripts/update-data.ts), which read the process
// themselves. See `ipintel --help`.
import { runCli } from './run.js';

// `ipintel enrich big.log | head`: a closed pipe ends the output, not in an error
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

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
  if (outcome.become === 'serve') await import('../main.js');
  else await import('../../scripts/update-data.js');
}
