// `npm run bench:db11`: what IP2Location LITE DB11 costs when the operator
// opts in (issue 42), on a synthetic DB11 of a real file's size (no copy of
// the real one is here): BENCH_DB11_V4_ROWS IPv4 rows (default 3,000,000)
// and BENCH_DB11_V6_ROWS IPv6 rows (default 1,000,000) over 100,000 distinct
// places, seeded, written as IP2Location's ZIPs. Prints how long hashing the
// two ZIPs takes the first time and then, remembered, at every start and
// reload with DB11 (before it finds the compiled table), reading them into a layer (CSV rows, time zones,
// segments: the update's compile pays it, in a worker), and with
// BENCH_DB11_FULL=1 the whole reconciled compile with the embedded DB-IP
// (what the update's worker does), with the table's size beside DB-IP's alone.
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { ZipFile } from 'yazl';
import { db11Input, loadEmbeddedWithExtras } from '../src/lookups/geoip/compile/compile-sources.js';
import { DB11_ENTRIES } from '../src/lookups/geoip/compile/db11.js';
import { loadCompiledSet } from '../src/lookups/geoip/compiled-set.js';
import { INSTALLED_TABLES_DIR } from '../src/lookups/geoip/compile/compile-sources.js';
import { mulberry32 } from './paths.js';

const V4_ROWS = Number(process.env['BENCH_DB11_V4_ROWS'] ?? 3_000_000);
const V6_ROWS = Number(process.env['BENCH_DB11_V6_ROWS'] ?? 1_000_000);
const FULL = process.env['BENCH_DB11_FULL'] === '1';
const PLACES = 100_000;
const COUNTRIES = ['US', 'DE', 'GB', 'FR', 'JP', 'BR', 'IN', 'NL', 'AU', 'ZA'];

const random = mulberry32(42);
const places = Array.from({ length: PLACES }, (_, i) => {
  const lat = (random() * 120 - 55).toFixed(6);
  const lon = (random() * 340 - 170).toFixed(6);
  const country = COUNTRIES[i % COUNTRIES.length]!;
  return `"${country}","Country ${country}","Region ${i % 900}","City ${i}","${lat}","${lon}","-","+01:00"`;
});

/** `rows` gapless ranges over [start, end], each at a seeded place; "-" rows around */
async function writeCsv(path: string, start: bigint, end: bigint, last: bigint, rows: number) {
  const out = createWriteStream(path);
  const write = async (line: string) => {
    if (!out.write(`${line}\r\n`)) await once(out, 'drain');
  };
  const unknown = (from: bigint, to: bigint) =>
    `"${from}","${to}","-","-","-","-","0.000000","0.000000","-","-"`;
  if (start > 0n) await write(unknown(0n, start - 1n));
  const step = (end - start + 1n) / BigInt(rows);
  for (let i = 0n; i < BigInt(rows); i++) {
    const from = start + i * step;
    const to = i === BigInt(rows) - 1n ? end : from + step - 1n;
    await write(`"${from}","${to}",${places[Math.floor(random() * PLACES)]}`);
  }
  if (end < last) await write(unknown(end + 1n, last));
  out.end();
  await once(out, 'close');
}

async function zip(csv: string, name: string, path: string): Promise<void> {
  const z = new ZipFile();
  z.addFile(csv, name);
  z.end();
  const out = createWriteStream(path);
  z.outputStream.pipe(out);
  await once(out, 'close');
}

const ms = (started: number) => Math.round(performance.now() - started);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-bench-db11-'));
  try {
    const paths = { v4: join(dir, 'db11.zip'), v6: join(dir, 'db11-ipv6.zip') };
    // IPv4 from 1.0.0.0; IPv6 over 2000::/3
    await writeCsv(join(dir, 'v4.csv'), 1n << 24n, (1n << 32n) - 1n, (1n << 32n) - 1n, V4_ROWS);
    await writeCsv(
      join(dir, 'v6.csv'),
      1n << 125n,
      (1n << 125n) * 2n - 1n,
      (1n << 128n) - 1n,
      V6_ROWS,
    );
    await zip(join(dir, 'v4.csv'), DB11_ENTRIES.v4, paths.v4);
    await zip(join(dir, 'v6.csv'), DB11_ENTRIES.v6, paths.v6);
    const sizes = {
      v4Csv: statSync(join(dir, 'v4.csv')).size,
      v6Csv: statSync(join(dir, 'v6.csv')).size,
      v4Zip: statSync(paths.v4).size,
      v6Zip: statSync(paths.v6).size,
    };
    let started = performance.now();
    const input = await db11Input(paths, dir);
    const hashMs = ms(started);
    // the next start's: the hashes remembered (compile/file-hashes.ts)
    started = performance.now();
    await db11Input(paths, dir);
    const rememberedMs = ms(started);
    started = performance.now();
    const source = await input.source();
    const readMs = ms(started);
    const layer = {
      v4Segments: source.layer.v4.values.length,
      v6Segments: source.layer.v6?.values.length ?? 0,
      answers: source.layer.answers.length,
    };
    const result: Record<string, unknown> = {
      v4Rows: V4_ROWS,
      v6Rows: V6_ROWS,
      sizes,
      hashMs,
      rememberedMs,
      readMs,
      layer,
      rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
    if (FULL) {
      started = performance.now();
      const log = pino({ level: 'silent' });
      const optIn = { geolite2: null, ipinfoLite: null, db11: paths };
      const set = await loadEmbeddedWithExtras(optIn, join(dir, 'tables'), log);
      const alone = loadCompiledSet(join(INSTALLED_TABLES_DIR, 'geoip.tables'));
      result['full'] = {
        compileMs: ms(started),
        counts: set.manifest.counts,
        dbipAloneCounts: alone.manifest.counts,
        rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
      };
    }
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
