// Writes the export into a folder: ipintel-city.mmdb, ipintel-asn.mmdb,
// ipintel-anonymous-ip.mmdb, ipintel-ranges.csv and ipintel-export.json (what
// was written, from which data, with each file's SHA-256). Each file is
// written under a temporary name unique to this run and renamed into place,
// so a reader (nginx, a fleet's curl, the service serving them) sees the old
// file or the new one, never half of one.
import { createHash } from 'node:crypto';
import { partialName } from '../atomic-file.js';
import { closeSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
import type { DataSetInfo } from '../lookups/geoip/load.js';
import {
  collectExport,
  type CsvSink,
  type ExportFile,
  type ExportSources,
} from './build-export.js';
import { buildTree, mmdbFileParts } from './mmdb-tree.js';
import { CSV_HEADER } from './records.js';
import { EXPORT_FILES, EXPORT_PARTS, type ExportPart, type WrittenFile } from '../export-files.js';

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
  private readonly fd: number;
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private closed = false;

  constructor(
    private readonly dir: string,
    private readonly name: string,
  ) {
    // a name clearAbandoned recognises when the writer was killed (src/atomic-file.ts)
    this.temp = partialName(join(dir, name));
    this.fd = openSync(this.temp, 'wx', 0o644);
  }

  write(chunk: Buffer | string): void {
    const text = typeof chunk === 'string';
    this.hash.update(chunk);
    this.bytes += text ? writeSync(this.fd, chunk) : writeAll(this.fd, chunk);
  }

  commit(): WrittenFile {
    this.closed = true;
    closeSync(this.fd);
    renameSync(this.temp, join(this.dir, this.name));
    return { name: this.name, bytes: this.bytes, sha256: this.hash.digest('hex') };
  }

  /** Drops a file not committed (a failed run leaves no temporary file behind). */
  abandon(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    rmSync(this.temp, { force: true });
  }
}

function writeAll(fd: number, chunk: Buffer): number {
  let done = 0;
  while (done < chunk.length) done += writeSync(fd, chunk, done, chunk.length - done);
  return done;
}

/** The CSV's pieces gathered into 1 MB writes, encoded as they come (no row is one string). */
class BufferedBytes implements CsvSink {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private size = 0;

  constructor(private readonly file: AtomicFile) {}

  // short pieces are copied in JS: Buffer#write and #copy cross into C++ per
  // call, which cost more than the copy for a few dozen bytes (8 million rows)
  ascii(text: string): void {
    if (this.size + text.length > this.buffer.length) this.flush();
    if (text.length > this.buffer.length) {
      this.file.write(text);
      return;
    }
    const buffer = this.buffer;
    let at = this.size;
    for (let i = 0; i < text.length; i++) buffer[at++] = text.charCodeAt(i);
    this.size = at;
  }

  bytes(bytes: Buffer): void {
    if (this.size + bytes.length > this.buffer.length) this.flush();
    if (bytes.length > this.buffer.length) this.file.write(bytes);
    else {
      this.buffer.set(bytes, this.size);
      this.size += bytes.length;
    }
  }

  flush(): void {
    if (this.size === 0) return;
    this.file.write(this.buffer.subarray(0, this.size));
    this.size = 0;
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

export function writeExport(
  sources: ExportSources,
  dir: string,
  c: ExportContext,
  parts: readonly ExportPart[] = EXPORT_PARTS,
): ExportResult {
  mkdirSync(dir, { recursive: true });
  const open: AtomicFile[] = [];
  const start = (name: string) => {
    const file = new AtomicFile(dir, name);
    open.push(file);
    return file;
  };
  try {
    const csvFile = parts.includes('csv') ? start(EXPORT_FILES.csv) : null;
    const csv = csvFile === null ? null : new BufferedBytes(csvFile);
    csv?.ascii(`${CSV_HEADER}\n`);
    const collected = collectExport(sources, csv);
    csv?.flush();
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
      ...(csvFile === null ? [] : [csvFile]),
    ];
    const written = files.map((f) => f.commit());
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
    return { files: written, intervals: collected.intervals, rows: collected.rows, builtAt };
  } finally {
    for (const file of open) file.abandon();
  }
}
