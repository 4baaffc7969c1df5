// The data updater, as `ipintel update-data` and `npm run update-data`
// (scripts/update-data.ts), with [--data-dir DIR] [--only id,id]: refreshes
// the VPN / hosting / Tor feeds (DATA_DIR/feeds), the IANA RDAP bootstrap and
// the GeoIP and ASN data sets (DATA_DIR/tables), one status line per data set
// on stderr (live progress in a terminal). Exit status: 0 when at least one
// data set is current, 1 when every one failed (the previous data is kept
// either way), 2 on bad arguments or configuration. The work is
// src/update/update-data.ts; settings come from the validated configuration
// (src/config.ts). The entry that calls it reads the process's arguments
// and environment.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../config.js';
import { UsageError, runUpdateData } from '../update/update-data.js';

function fail(message: string): never {
  process.stderr.write(`update-data: ${message}\n`);
  process.exit(2);
}

/** Runs the update with these arguments and this environment, then exits with its status. */
export async function updateDataMain(args: string[], env: NodeJS.ProcessEnv): Promise<never> {
  const { values } = (() => {
    try {
      return parseArgs({
        args,
        options: { 'data-dir': { type: 'string' }, only: { type: 'string' } },
      });
    } catch (error) {
      return fail(error instanceof Error ? error.message : String(error));
    }
  })();

  let config;
  try {
    config = loadConfig(env);
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  try {
    const status = await runUpdateData({
      config,
      dataDir: values['data-dir'] === undefined ? config.dataDir : resolve(values['data-dir']),
      only: values.only === undefined ? null : new Set(values.only.split(',').map((s) => s.trim())),
      out: process.stderr,
      log: pino({ level: 'warn' }, pino.destination(2)),
    });
    process.exit(status);
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }
}
