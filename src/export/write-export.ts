// Writes the export into a folder: ipintel-city.mmdb, ipintel-asn.mmdb,
// ipintel-anonymous-ip.mmdb, ipintel-ranges.csv and ipintel-export.json (what
// was written, from which data, with each file's SHA-256). Each file is
// written under a temporary name unique to this run and renamed into place,
// so a reader (nginx, a fleet's curl, the service serving them) sees the old
// file or the new one, never half of one.
import { partialName } from '../kit/atomic-file.js';
import { closeSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import type { DataSetInfo } from '../lookups/geoip/load.js';
import { collectExport, type ExportFile, type ExportSources } from './build-export.js';
import { CsvInWorker } from './csv-in-worker.js';
import { HashedOutput } from './hashed-output.js';
import { buildTree, mmdbFileParts } from './mmdb-tree.js';
import { CSV_HEADER } from './records.js';
import {
  EXPORT_FILES,
  EXPORT_PARTS,
  type ExportPart,
  type WrittenFile,
} from '../kit/export-files.js';

/** The names readers check (geoip2's city()/asn()/anonymous_ip(), Go's geoip2 and others). */
const DATABASE_TYPES = {
  city: 'GeoIP2-City',
  asn: 'GeoLite2-ASN',
  anonymous: 'GeoIP2-Anonymous-IP',
} as const;

export interface ExportContext {
  version: string;
  dataSets: readonly DataSetInfo[];
  feeds: readonly string[];
  overridesVersion: string;
  /** the data's version as X-Data-Version says it: a build of the same data is not needed again */
  dataVersion: string;
  /** ms since the epoch */
  now: number;
}

export interface ExportResult {
  files: WrittenFile[];
  intervals: number;
  rows: number;
  builtAt: string;
}

/** A file written in pieces under a temporary name, hashed on the way, renamed at the end. */
class AtomicFile {
  private readonly temp: string;
  /** the open file (the CSV worker writes it by this number) */
  readonly fd: number;
  private readonly out: HashedOutput;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {
    // a name clearAbandoned recognises when the writer was killed (src/kit/atomic-file.ts)
    this.temp = partialName(join(dir, name));
    this.fd = openSync(this.temp, 'wx', 0o644);
    this.out = new HashedOutput(this.fd);
  }

  write(chunk: Buffer | string): void {
    this.out.write(chunk);
  }

  /** `written`: what another writer of the fd (the CSV worker) wrote, else this one's writes. */
  commit(written: { bytes: number; sha256: string } = this.out.finish()): WrittenFile {
    this.closed = true;
    closeSync(this.fd);
    renameSync(this.temp, join(this.dir, this.name));
    return { name: this.name, bytes: written.bytes, sha256: written.sha256 };
  }

  /** Drops a file not committed (a failed run leaves no temporary file behind). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.temp, { force: true });
  }
}

/** Who made the data in a file, and under which licence: travels with the file. */
function description(kind: string, c: ExportContext): Record<string, string> {
  const sources = c.dataSets
    .map((d) => {
      const credit = d.attribution === null ? '' : `; ${d.attribution.text} <${d.attribution.url}>`;
      return `${d.name} (${d.licence}${credit})`;
    })
    .join('; ');
  const feeds = c.feeds.length === 0 ? 'none' : c.feeds.join(', ');
  return {
    en:
      `ipintel ${c.version} ${kind}: the answers of its API, built ${new Date(c.now).toISOString()}. ` +
      `Data: ${sources}. Detection feeds: ${feeds}. Operator overrides: ${c.overridesVersion}.`,
  };
}

/**
 * Writes the export. The CSV is written by a worker thread from the intervals
 * as they are found (csv-in-worker.ts), while this thread looks them up and
 * writes the MMDB files: on two cores the wall time is the longer of the two.
 */
export async function writeExport(
  sources: ExportSources,
  dir: string,
  c: ExportContext,
  parts: readonly ExportPart[] = EXPORT_PARTS,
): Promise<ExportResult> {
  mkdirSync(dir, { recursive: true });
  const open: AtomicFile[] = [];
  const start = (name: string) => {
    const file = new AtomicFile(dir, name);
    open.push(file);
    return file;
  };
  let csv: CsvInWorker | null = null;
  try {
    const csvFile = parts.includes('csv') ? start(EXPORT_FILES.csv) : null;
    csv = csvFile === null ? null : new CsvInWorker(csvFile.fd, CSV_HEADER);
    await csv?.start();
    const collected = collectExport(sources, csv);
    const mmdb = (kind: keyof typeof DATABASE_TYPES, file: ExportFile, label: string) => {
      if (!parts.includes(kind === 'anonymous' ? 'anonymous-ip' : kind)) return [];
      const out = start(EXPORT_FILES[kind]);
      const tree = buildTree(file.intervals, file.data.length);
      for (const part of mmdbFileParts(tree, file.data.contents(), {
        databaseType: DATABASE_TYPES[kind],
        languages: ['en'],
        description: description(label, c),
        buildEpoch: Math.floor(c.now / 1000),
      })) {
        out.write(part);
      }
      return [out];
    };
    const files = [
      ...mmdb('city', collected.city, 'City'),
      ...mmdb('asn', collected.asn, 'ASN'),
      ...mmdb('anonymous', collected.anonymous, 'Anonymous IP'),
    ];
    const csvDone = csv === null ? null : await csv.finish();
    csv = null;
    const written = files.map((f) => f.commit());
    if (csvFile !== null && csvDone !== null) written.push(csvFile.commit(csvDone));
    const builtAt = new Date(c.now).toISOString();
    const manifest = start(EXPORT_FILES.manifest);
    manifest.write(
      `${JSON.stringify(
        {
          builtAt,
          version: c.version,
          dataSets: c.dataSets.map((d) => ({
            name: d.name,
            licence: d.licence,
            attribution: d.attribution,
          })),
          feeds: c.feeds,
          overrides: c.overridesVersion,
          dataVersion: c.dataVersion,
          files: written,
        },
        null,
        2,
      )}\n`,
    );
    manifest.commit();
    open.length = 0;
    return { files: written, intervals: collected.intervals, rows: csvDone?.rows ?? 0, builtAt };
  } finally {
    // a failure stops the worker before its file is closed and removed
    await csv?.stop();
    for (const file of open) file.abandon();
  }
}
