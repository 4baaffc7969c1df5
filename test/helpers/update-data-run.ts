// scripts/update-data.ts run as an operator runs it: a child process (built,
// or through tsx: entry.ts) with its configuration in the environment. Asynchronous, so that the
// loopback servers of the test's own process keep answering meanwhile.
import { execFile } from 'node:child_process';
import { entryArgs } from './entry.js';

export interface UpdateDataRun {
  /** the exit status: 0 when every data set was current or updated */
  status: number | null;
  stderr: string;
}

export function runUpdateData(
  env: Record<string, string>,
  timeoutMs = 15_000,
): Promise<UpdateDataRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      entryArgs('scripts/update-data.ts'),
      { env: { ...process.env, ...env }, encoding: 'utf8', timeout: timeoutMs },
      (error, _stdout, stderr) =>
        resolve({ status: error === null ? 0 : (error.code as number | null), stderr }),
    );
  });
}
