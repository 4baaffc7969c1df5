// `ipintel`'s argument parsing (node:util parseArgs) and dispatch, with its
// I/O passed in: the process entry (./main.ts) hands it argv, the
// environment and the standard streams, and turns its outcome into an exit
// status or into the service (`serve`) or the data updater (`update-data`).
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../config.js';
import { AppError, type ErrorCode } from '../kit/errors.js';
import {
  ENRICH_HELP,
  EXPORT_HELP,
  lookupHelp,
  MAIN_HELP,
  RANGES_HELP,
  SERVE_HELP,
  UPDATE_HELP,
} from './help.js';
import type { ExportPart } from '../kit/export-files.js';
import { handlersFor, LOOKUP_COMMANDS, runHandler, type LookupCommand } from './lookups.js';

export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
}

/** An exit status, or a process the entry hands over to. */
export type CliOutcome = { code: number } | { become: 'serve' | 'update-data'; args: string[] };

export const EXIT_OK = 0;
export const EXIT_LOOKUP_FAILED = 1;
export const EXIT_USAGE = 2;

/** Errors that say the command line is wrong, not that a lookup failed. */
const USAGE_CODES = new Set<ErrorCode>([
  'INVALID_IP',
  'INVALID_DOMAIN',
  'INVALID_TYPE',
  'INVALID_RANGE',
  'IPV4_ONLY',
  'BAD_REQUEST',
]);

/** A failed lookup's exit status: usage when the API would refuse the input with 400. */
function failureCode(error: AppError): number {
  return USAGE_CODES.has(error.code) ? EXIT_USAGE : EXIT_LOOKUP_FAILED;
}

class UsageError extends Error {}

interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

function parse(args: string[], options: ParseArgsConfig['options']): Parsed {
  try {
    return parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

export async function runCli(argv: string[], io: CliIo): Promise<CliOutcome> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`ipintel: ${error.message}\nTry 'ipintel --help'.\n`);
      return { code: EXIT_USAGE };
    }
    io.stderr.write(`ipintel: ${describe(error)}\n`);
    return { code: error instanceof AppError ? failureCode(error) : EXIT_LOOKUP_FAILED };
  }
}

function describe(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

async function dispatch(argv: string[], io: CliIo): Promise<CliOutcome> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h') {
    io.stdout.write(MAIN_HELP);
    return { code: first === undefined ? EXIT_USAGE : EXIT_OK };
  }
  if (first === '--version') {
    io.stdout.write(`${(await import('../composition.js')).VERSION}\n`);
    return { code: EXIT_OK };
  }
  if (first === 'serve' || first === 'update-data') {
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(first === 'serve' ? SERVE_HELP : UPDATE_HELP);
      return { code: EXIT_OK };
    }
    if (first === 'serve' && rest.length > 0) {
      throw new UsageError(`serve takes no arguments (configure it with environment variables)`);
    }
    return { become: first, args: rest };
  }
  if (first === 'enrich') return enrich(rest, io);
  if (first === 'export') return exportFiles(rest, io);
  if (first === 'ranges') return ranges(rest, io);
  const named = LOOKUP_COMMANDS.find((c) => c.name === first);
  return lookup(named ?? LOOKUP_COMMANDS[0]!, named === undefined ? argv : rest, io);
}

function configOf(io: CliIo): { config: Readonly<Config>; log: Logger } {
  let config;
  try {
    config = loadConfig(io.env);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  // quiet unless LOG_LEVEL says otherwise: the output is the answer
  const level = io.env['LOG_LEVEL'] === undefined ? 'warn' : config.logLevel;
  return { config, log: pino({ level, name: 'ipintel' }, pino.destination(2)) };
}

async function lookup(command: LookupCommand, args: string[], io: CliIo): Promise<CliOutcome> {
  const { values, positionals } = parse(args, {
    json: { type: 'boolean' },
    ...(command.name === 'dns' ? { type: { type: 'string' } } : {}),
  });
  if (values['help'] === true) {
    io.stdout.write(lookupHelp(command.name));
    return { code: EXIT_OK };
  }
  if (positionals.length === 0) {
    throw new UsageError(`${command.name} needs at least one argument`);
  }
  const { config, log } = configOf(io);
  const handler = (await handlersFor(command.needs, config, log))[command.handler]!;
  const { TOOLS } = await import('../mcp/tools.js');
  const tool = TOOLS.find((t) => t.name === command.tool)!;
  const type = typeof values['type'] === 'string' ? values['type'] : undefined;
  let code = EXIT_OK;
  for (const value of positionals) {
    try {
      const record = await runHandler(handler, command.raw(value, type));
      io.stdout.write(
        values['json'] === true
          ? `${JSON.stringify(record)}\n`
          : `${tool.render(record, command.args(value, type))}\n`,
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      io.stderr.write(`ipintel: ${describe(error)}\n`);
      code = Math.max(code, failureCode(error));
    }
  }
  return { code };
}

async function exportFiles(args: string[], io: CliIo): Promise<CliOutcome> {
  const { values, positionals } = parse(args, {
    out: { type: 'string' },
    only: { type: 'string' },
    'if-changed': { type: 'boolean' },
  });
  if (values['help'] === true) {
    io.stdout.write(EXPORT_HELP);
    return { code: EXIT_OK };
  }
  if (positionals.length > 0) throw new UsageError('export takes no arguments but --out DIR');
  const out = values['out'];
  if (typeof out !== 'string' || out === '') throw new UsageError('export needs --out DIR');
  const [{ exportData }, { EXPORT_PARTS }] = await Promise.all([
    import('../export/run-export.js'),
    import('../kit/export-files.js'),
  ]);
  const only = values['only'];
  const parts = typeof only === 'string' ? only.split(',') : EXPORT_PARTS;
  const unknown = parts.filter((p) => !(EXPORT_PARTS as readonly string[]).includes(p));
  if (unknown.length > 0 || parts.length === 0) {
    throw new UsageError(
      `--only takes ${EXPORT_PARTS.join(',')} (any of them), not ${String(only)}`,
    );
  }
  const { config, log } = configOf(io);
  const started = performance.now();
  const ifChanged = values['if-changed'] === true;
  const result = await exportData(config, log, out, Date.now(), parts as ExportPart[], {
    ifChanged,
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result === null) {
    io.stdout.write(`up to date: ${out} holds an export of the data in use (${seconds} s)\n`);
    return { code: EXIT_OK };
  }
  for (const f of result.files)
    io.stdout.write(`${f.name}\t${f.bytes} bytes\tsha256 ${f.sha256}\n`);
  io.stdout.write(
    `${result.intervals} intervals, ${result.rows} CSV rows, written to ${out} in ${seconds} s\n`,
  );
  return { code: EXIT_OK };
}

async function ranges(args: string[], io: CliIo): Promise<CliOutcome> {
  const option = { type: 'string' } as const;
  const { values, positionals } = parse(args, {
    country: option,
    asn: option,
    kind: option,
    provider: option,
    family: option,
    format: option,
    name: option,
  });
  if (values['help'] === true) {
    io.stdout.write(RANGES_HELP);
    return { code: EXIT_OK };
  }
  if (positionals.length > 0) throw new UsageError('ranges takes options only (see --help)');
  const text = (key: string) => (typeof values[key] === 'string' ? values[key] : undefined);
  const query = {
    country: text('country'),
    asn: text('asn'),
    kind: text('kind'),
    provider: text('provider'),
    family: text('family'),
    format: text('format') ?? 'plain',
    name: text('name'),
  };
  const [{ rangeRequest, rangeText }, { loadGeo }, { pipeline }, { Readable }] = await Promise.all([
    import('../routes/range-routes.js'),
    import('./load.js'),
    import('node:stream/promises'),
    import('node:stream'),
  ]);
  // the request checked before any data is loaded: a wrong option costs nothing
  const request = rangeRequest(query, undefined);
  const { config, log } = configOf(io);
  const needsVpn =
    query.provider !== undefined ||
    (request.filter.kinds !== null && [...request.filter.kinds].some((k) => k !== 'bogon'));
  const { geoip, vpnJson, holder } = await loadGeo(config, log, needsVpn);
  const sources = {
    geoip,
    vpn: vpnJson,
    feeds: holder === null ? null : () => holder.current(),
  };
  await pipeline(Readable.from(rangeText(sources, request)), io.stdout, { end: false });
  return { code: EXIT_OK };
}

async function enrich(args: string[], io: CliIo): Promise<CliOutcome> {
  const { values, positionals } = parse(args, {
    vpn: { type: 'boolean' },
    format: { type: 'string' },
  });
  if (values['help'] === true) {
    io.stdout.write(ENRICH_HELP);
    return { code: EXIT_OK };
  }
  const format = values['format'] ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'csv') {
    throw new UsageError(`--format is jsonl or csv, not ${JSON.stringify(format)}`);
  }
  if (positionals.length > 1) throw new UsageError('enrich reads one FILE (or standard input)');
  const file = positionals[0];
  const { config, log } = configOf(io);
  const vpn = values['vpn'] === true;
  const [{ loadGeo }, { createEnricher }, { enrichStream, fileChunks }] = await Promise.all([
    import('./load.js'),
    import('./enrich.js'),
    import('./enrich-stream.js'),
  ]);
  const { geoip, vpnJson } = await loadGeo(config, log, vpn);
  const enricher = createEnricher(format, {
    geoip,
    ...(vpnJson === null ? {} : { vpn: (ip) => vpnJson.record(ip) }),
  });
  const started = performance.now();
  const rate = (lines: number) => Math.round(lines / ((performance.now() - started) / 1000));
  const progress = io.stderr.isTTY
    ? {
        tick: (lines: number) => io.stderr.write(`\r${lines} lines, ${rate(lines)} lines/s`),
        done: (lines: number) =>
          io.stderr.write(`\r${lines} lines, ${rate(lines)} lines/s, done\n`),
      }
    : null;
  try {
    const input = file === undefined ? io.stdin : fileChunks(file);
    await enrichStream(input, io.stdout, enricher, progress);
  } catch (error) {
    const reason =
      (error as { code?: string }).code === 'ENOENT' ? 'no such file' : describe(error);
    throw new Error(`enrich: cannot read ${file ?? 'standard input'}: ${reason}`);
  }
  return { code: EXIT_OK };
}
