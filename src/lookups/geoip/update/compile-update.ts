// A downloaded release into compiled tables: the same compiler as the
// embedded data (src/lookups/geoip/compile/compile.ts), then the sanity checks, then the
// tables written to the path the job names. Runs in a worker thread
// (compile-worker.ts) so the service keeps answering while it works.
import { readFileSync } from 'node:fs';
import { parseAsnCsv } from '../asn-csv.js';
import { dbipMapper, maxmindMapper } from '../record-map.js';
import { createTimezoneResolver } from '../timezone.js';
import { NetworkSink, compileAsnRanges, compileMmdb } from '../compile/compile.js';
import { pino } from 'pino';
import {
  DataError,
  builtAt,
  compileLocationTable,
  installedTimezones,
  loadUserFile,
  manifest,
  mmdbReader,
  sha256File,
} from '../compile/compile-sources.js';
import type { OptInFiles } from './paths.js';
import {
  countsOf,
  saveCompiledSet,
  type CompiledSet,
  type DataSetKind,
  type LocationProvenance,
  type Manifest,
  type UpdateProvenance,
} from '../compiled-set.js';
import {
  loadDbipWithExtras,
  loadNewestDbipWithExtras,
  type DbipRelease,
} from '../compile/newest-dbip.js';
import { sanityProblem, type Baseline } from './sanity.js';
import { DBIP_SOURCE_ID, GEOLITE2_SOURCE_ID } from '../location-sources.js';

export type UpdateLayout = 'dbip-flat' | 'maxmind-city' | 'maxmind-asn' | 'asn-csv';

export interface CompileJob {
  kind: DataSetKind;
  layout: UpdateLayout;
  /** unpacked local files: [IPv4, IPv6] for per-family releases, [one] for a file holding both */
  files: string[];
  name: string;
  version: string | null;
  licence: string;
  attribution: { text: string; url: string } | null;
  update: UpdateProvenance;
  /** where the tables are written (the caller renames them into place) */
  output: string;
  baseline: Baseline | null;
  minRatio: number;
}

async function compileFiles(job: CompileJob): Promise<{
  compiled: Omit<CompiledSet, 'manifest'>;
  builtAt: string | null;
  location?: LocationProvenance;
}> {
  if (job.layout === 'asn-csv') {
    const parsed = job.files.map((f) => parseAsnCsv(readFileSync(f, 'utf8')));
    const rows = parsed.flatMap((p) => p.rows);
    if (rows.length === 0) throw new DataError('the ASN CSV holds no valid row');
    return { compiled: compileAsnRanges(rows), builtAt: null };
  }
  const readers = [];
  for (const file of job.files) {
    try {
      readers.push(await mmdbReader(readFileSync(file)));
    } catch (cause) {
      throw new DataError(`${file.split('/').pop()} is not a readable MMDB file`, { cause });
    }
  }
  const v4 = readers[0]!;
  const v6 = readers[1] ?? v4;
  const type = v4.metadata.databaseType;
  const wantsAsn = job.kind === 'asn';
  if (wantsAsn !== /ASN|ISP/i.test(type)) {
    throw new DataError(
      `database type "${type}" is not ${wantsAsn ? 'an ASN' : 'a City'} database`,
    );
  }
  if (wantsAsn) return { compiled: compileMmdb(v4, v6, new NetworkSink()), builtAt: builtAt(v4) };
  // DB-IP Lite carries no time zone: the install-time index fills it, as for the embedded data
  const resolver = createTimezoneResolver(installedTimezones());
  const { compiled, location } = await compileLocationTable({
    // MaxMind's release is GeoLite2 City; the others are DB-IP Lite City
    id: job.update.publisher === 'maxmind' ? GEOLITE2_SOURCE_ID : DBIP_SOURCE_ID,
    v4,
    v6,
    map: (job.layout === 'dbip-flat' ? dbipMapper : maxmindMapper)(resolver),
    info: {
      name: job.name,
      version: job.version,
      builtAt: builtAt(v4),
      licence: job.licence,
      attribution: job.attribution,
    },
  });
  return { compiled, builtAt: builtAt(v4), location };
}

/** Compiles, checks and writes the job's tables; throws DataError saying why not. */
export async function compileUpdate(job: CompileJob): Promise<Manifest> {
  const { compiled, builtAt: built, location } = await compileFiles(job);
  const counts = countsOf(compiled.table, compiled);
  const problem = sanityProblem(
    { table: compiled.table, counts, location },
    job.baseline,
    job.minRatio,
  );
  if (problem !== null) throw new DataError(problem);
  const set: CompiledSet = {
    ...compiled,
    manifest: manifest(job.kind, compiled, {
      name: job.name,
      source: {
        origin: 'update',
        layout: job.layout,
        version: job.version,
        builtAt: built,
        files: job.files.map((f) => sha256File(f)),
        update: job.update,
      },
      licence: job.licence,
      attribution: job.attribution,
      location,
    }),
  };
  saveCompiledSet(job.output, set);
  return set.manifest;
}

/**
 * The GeoIP location table reconciled with a fresh opt-in source (GeoLite2
 * City, IPinfo Lite) and the others in use, compiled
 * ahead of the load that will want it: the tables are kept in `cacheDir`
 * under the hash of their inputs (compile-sources.ts), where that load then
 * finds them — a serving process swaps them in without compiling on its
 * main thread. The hash is of the file's content, so a download may be
 * compiled from its work folder before it is renamed into place.
 */
export interface ReconcileJob {
  /** GEOIP_DB, or null for DB-IP: `dbip`'s release, else the newest in `dataDir` */
  geoipDb: string | null;
  /** the opt-in files, the fresh one from its work folder */
  optIn: OptInFiles;
  dataDir: string;
  cacheDir: string;
  /**
   * a new DB-IP release, its files kept (the DB-IP update): compiled as it
   * is, a failure failing the job; absent: the DB-IP a load would reconcile
   * (newest-dbip.ts: the release kept in `dataDir`, else the embedded one)
   */
  dbip?: DbipRelease;
}

export async function compileReconciled(job: ReconcileJob): Promise<Manifest> {
  const log = pino({ level: 'silent' });
  const set =
    job.geoipDb === null
      ? job.dbip
        ? await loadDbipWithExtras(job.dbip, job.optIn, job.cacheDir, log)
        : await loadNewestDbipWithExtras(job.dataDir, job.optIn, job.cacheDir, log)
      : await loadUserFile(
          {
            kind: 'geoip',
            path: job.geoipDb,
            variable: 'GEOIP_DB',
            cacheDir: job.cacheDir,
            geolite2: job.optIn.geolite2,
            ipinfoLite: job.optIn.ipinfoLite,
            db11: job.optIn.db11,
          },
          log,
        );
  return set.manifest;
}
