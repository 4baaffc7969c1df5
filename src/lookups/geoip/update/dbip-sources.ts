// A DB-IP update's unpacked MMDB files, kept in DATA_DIR/tables under their
// SHA-256 beside the tables compiled from them (issue 42): while GeoLite2
// City is in use the location table is that release reconciled with it,
// compiled again from them whenever GeoLite2 changes (newest-dbip.ts). Named
// by content, the new release's files are in place before its tables are
// renamed in, and the old ones go after: the manifest in place always finds
// its files. The location tables compiled from replaced files go too, and
// the embedded DB-IP's once a fetched release answers.
import { readdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readTableManifest } from '../../../data/table-file.js';
import type { Manifest } from '../compiled-set.js';
import { keptSourcePath, updateTablesPath } from './paths.js';
import { keptDbipRelease } from '../compile/newest-dbip.js';

const KEPT_SOURCE = /^geoip\.update-source-[0-9a-f]{16}\.mmdb$/;
/** the location tables compile-sources.ts keeps under the hash of their inputs (cachedTables) */
const RECONCILED_TABLES = /^geoip-.*\.tables$/;

/** Moves an update's unpacked files (in DATA_DIR/tables' work folder) to their kept names. */
export async function keepSources(
  dataDir: string,
  files: readonly string[],
  manifest: Manifest,
): Promise<string[]> {
  const kept: string[] = [];
  for (const [i, file] of files.entries()) {
    const sha256 = manifest.source.files[i]?.sha256;
    if (sha256 === undefined) throw new Error(`no checksum recorded for ${basename(file)}`);
    const path = keptSourcePath(dataDir, sha256);
    // one file may hold both families: the same content, the same name
    await rename(file, path);
    kept.push(path);
  }
  return kept;
}

/**
 * Deletes the kept files the update tables in place were not compiled from,
 * and the location tables compiled from those (each as large as the GeoIP data).
 */
export async function dropReplacedSources(
  dataDir: string,
  replaced: Manifest | null,
): Promise<void> {
  const tablesDir = join(dataDir, 'tables');
  const inPlace = readTableManifest<Manifest>(updateTablesPath(dataDir, 'geoip'));
  const wanted = new Set(
    (inPlace?.source.files ?? []).map((f) => basename(keptSourcePath(dataDir, f.sha256))),
  );
  for (const name of await readdir(tablesDir)) {
    if (KEPT_SOURCE.test(name) && !wanted.has(name)) {
      await rm(join(tablesDir, name), { force: true });
    }
  }
  const current = new Set(inPlace?.source.files.map((f) => f.sha256));
  for (const file of replaced?.source.files ?? []) {
    if (!current.has(file.sha256)) await dropTablesOf(tablesDir, file.sha256);
  }
  // the embedded DB-IP's tables with opt-in sources (geoip-geolite2-…,
  // geoip-ipinfo-…, …) are replaced too once a fetched release answers
  if (inPlace !== null && keptDbipRelease(dataDir) !== null) {
    for (const name of await readdir(tablesDir)) {
      const path = join(tablesDir, name);
      if (
        RECONCILED_TABLES.test(name) &&
        readTableManifest<Manifest>(path)?.source.origin === 'embedded'
      ) {
        await rm(path, { force: true });
      }
    }
  }
}

/**
 * Deletes the location tables compiled from a replaced file (named geoip-…
 * by the hash of their inputs, compile-sources.ts). A serving process still
 * paging one keeps reading its open file until it swaps.
 */
export async function dropTablesOf(tablesDir: string, sha256: string): Promise<void> {
  for (const name of await readdir(tablesDir)) {
    if (!RECONCILED_TABLES.test(name)) continue;
    const path = join(tablesDir, name);
    const manifest = readTableManifest<Manifest>(path);
    if (manifest?.source.files.some((f) => f.sha256 === sha256)) {
      await rm(path, { force: true });
    }
  }
}
