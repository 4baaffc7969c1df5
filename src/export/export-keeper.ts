// EXPORT_DIR: the export kept current for a fleet. After each data swap (and
// at start when the folder holds no export of the data in use), the process
// that runs the reloads rebuilds the files in a child process running
// `ipintel export --if-changed` — its own heap, so the serving heap and its
// latency are untouched. One build at a time: a swap during a build queues
// one more (however many come, one), which starts when that one ends. A
// failed build keeps the files there were (each file is renamed into place
// whole, and only once written whole) and is logged and counted.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { clearAbandoned } from '../kit/atomic-file.js';
import { PROJECT_ROOT } from '../kit/project-root.js';
import { dataVersion, type ProvenanceSources } from '../lookups/provenance.js';
import { EXPORT_FLAGS, type ExportBuildCounts, type ExportPart } from '../kit/export-files.js';

/** What the keeper has done, for /metrics (read at scrape time). */

/** Runs one build; resolves with what the child said (its last line), rejects on failure. */
export type ExportBuild = () => Promise<string>;

export class ExportKeeper {
  private running: Promise<void> | null = null;
  private queued: string | null = null;
  private lastVersion: string | null = null;
  readonly counts: ExportBuildCounts = { ok: 0, skipped: 0, failed: 0, lastSuccessAt: null };

  constructor(
    private readonly build: ExportBuild,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The data in use has this version (X-Data-Version's parts): a build is
   * asked for when it differs from the last one seen — at start (the child
   * compares with the folder's manifest and writes nothing when it is
   * current) and after each reload that swapped something.
   */
  dataIs(version: string, reason: string): void {
    if (version === this.lastVersion) return;
    this.lastVersion = version;
    this.request(reason);
  }

  /** Asks for a build: now, or after the one running (at most one waits). */
  request(reason: string): void {
    if (this.running !== null) {
      this.queued = reason;
      return;
    }
    this.running = this.run(reason);
  }

  /** Resolves when no build runs or waits (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private async run(reason: string): Promise<void> {
    const started = this.now();
    try {
      const said = await this.build();
      const skipped = said.startsWith('up to date');
      if (skipped) this.counts.skipped++;
      else this.counts.ok++;
      this.counts.lastSuccessAt = this.now();
      this.log.info({ reason, ms: this.now() - started, result: said }, 'export rebuilt');
    } catch (error) {
      this.counts.failed++;
      this.log.error({ err: error, reason }, 'export build failed; the files there were are kept');
    }
    const next = this.queued;
    this.queued = null;
    this.running = next === null ? null : this.run(next);
  }
}

/** The loaded data an export is made from (ServiceData has these). */
export interface ExportedData {
  geo: { dataSets: ReturnType<ProvenanceSources['dataSets']> };
  vpn: { current(): { feeds: ReturnType<ProvenanceSources['feeds']> } };
  geofeeds: { current: { feeds: ReturnType<ProvenanceSources['feeds']> } };
  overrides: { status: { version: string } };
}

/** The version of everything an export holds, as X-Data-Version says it (its manifest keeps it). */
export function exportDataVersion(data: ExportedData): string {
  return dataVersion(['geoip', 'asn', 'feeds', 'geofeeds', 'overrides'], {
    dataSets: () => data.geo.dataSets,
    feeds: () => data.vpn.current().feeds,
    geofeeds: () => data.geofeeds.current.feeds,
    overridesVersion: () => data.overrides.status.version,
  });
}

/** How long one build may run before it is stopped (the full export takes about a minute). */
const BUILD_TIMEOUT_MS = 30 * 60_000;

/**
 * The build as a child process: the CLI's `export --if-changed` with the
 * service's environment (the same GEOIP_DB, DATA_DIR, feeds, overrides).
 * From source (tsx) the child runs the TypeScript CLI; otherwise the compiled
 * one (dist/src/cli/main.js: the service's bundle ships beside it).
 */
export function childBuild(dir: string, parts: readonly ExportPart[]): ExportBuild {
  const fromSource = import.meta.url.endsWith('.ts');
  const cli = fromSource
    ? join(PROJECT_ROOT, 'src', 'cli', 'main.ts')
    : join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js');
  const args = [
    ...(fromSource ? ['--import', 'tsx'] : []),
    // the export's own (the CLI would otherwise start itself again with them)
    ...EXPORT_FLAGS,
    cli,
    'export',
    '--out',
    dir,
    '--only',
    parts.join(','),
    '--if-changed',
  ];
  return async () => {
    if (!existsSync(cli)) throw new Error(`${cli} is missing: the export runs the CLI`);
    // what a killed build left (its pid is dead) goes first
    await clearAbandoned(dir).catch(() => undefined);
    return new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        // the service's own environment (spawn's default): the same data, the same settings
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: BUILD_TIMEOUT_MS,
      });
      let out = '';
      let err = '';
      child.stdout
        .setEncoding('utf8')
        .on('data', (chunk: string) => (out = (out + chunk).slice(-4096)));
      child.stderr
        .setEncoding('utf8')
        .on('data', (chunk: string) => (err = (err + chunk).slice(-4096)));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        const last = out.trim().split('\n').at(-1) ?? '';
        if (code === 0) resolve(last);
        else reject(new Error(`export exited ${signal ?? code}: ${err.trim() || last}`));
      });
    });
  };
}
