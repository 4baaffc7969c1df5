#!/usr/bin/env node
// The composition root of the MCP stdio server (`npm run mcp`, the `bin`
// entry): reads the environment like src/main.ts, loads the data, builds the
// app without listening and serves its tools on stdin/stdout. stdout is the
// protocol stream, so every log line and message goes to stderr.
import { pino } from 'pino';
import { ConfigError, loadConfig } from '../src/config.js';
import { buildService, loadServiceData, VERSION } from '../src/composition.js';
import { DataError } from '../src/lookups/geoip/load.js';
import { serveStdio } from '../src/mcp/stdio.js';

function fail(message: string): never {
  process.stderr.write(`ipintel-mcp: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const log = pino({ level: config.logLevel, name: 'ipintel-mcp' }, pino.destination(2));
  let data;
  try {
    data = await loadServiceData(config, log);
  } catch (error) {
    if (error instanceof DataError) fail(error.message);
    throw error;
  }
  const app = buildService(config, data, log);
  const server = await serveStdio({
    version: VERSION,
    log,
    call: (path, raw, ctx) => app.call(path, raw, ctx),
  });
  log.info({ version: VERSION }, 'ipintel MCP server on stdio');
  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ reason }, 'ipintel MCP server stopping');
    server
      .close()
      .catch((error: unknown) => log.warn({ err: error }, 'close failed'))
      .finally(() => {
        log.flush();
        process.exit(0);
      });
  };
  // the client ends the session by closing our stdin (then signals, if we linger)
  process.stdin.once('end', () => stop('stdin closed'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => fail(`failed to start: ${String(error)}`));
