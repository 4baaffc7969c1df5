// GET /export/:file — the files EXPORT_DIR's keeper builds (src/export/
// export-keeper.ts), for a fleet's nodes to pull on a timer: only the known
// names (never a path from the request), streamed from disk (a 130 MB file is
// never read into memory), with the file's SHA-256 from the manifest as its
// ETag, its build time as Last-Modified, and 304 for a node that has it. The
// manifest is read per request (a small file; a rebuild replaces it) and the
// file opened after it: a file newer than the manifest belongs to a build
// that has not finished renaming, and the answer waits for it to.
import { open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { AppError } from '../kit/errors.js';
import { defineHandler, type RawBody, type RouteInput } from '../http/route.js';
import { EXPORT_FILES, readManifest, type WrittenFile } from '../kit/export-files.js';

/** The names served: the export's files and its manifest, nothing else. */
const SERVED: ReadonlyMap<string, string> = new Map(
  Object.values(EXPORT_FILES).map((name) => [
    name,
    name.endsWith('.mmdb')
      ? 'application/octet-stream'
      : name.endsWith('.csv')
        ? 'text/csv; charset=utf-8'
        : 'application/json; charset=utf-8',
  ]),
);

/** tries at reading a manifest and a file of the same build while a build renames its files */
const TRIES = 5;

export interface ExportRouteOptions {
  /** EXPORT_DIR; null: not set, every file is 404 */
  dir: string | null;
}

/** An open file of the export with what its headers say. */
interface OpenedFile {
  handle: FileHandle;
  bytes: number;
  etag: string;
  modified: Date;
}

/** The manifest's entry for `name` and the file opened, both of one build; null: none yet. */
async function openExported(dir: string, name: string): Promise<OpenedFile | null> {
  for (let attempt = 0; attempt < TRIES; attempt++) {
    const manifestPath = join(dir, EXPORT_FILES.manifest);
    const manifestStat = await stat(manifestPath).catch(() => null);
    const manifest = manifestStat === null ? null : readManifest(dir);
    if (manifestStat === null || manifest === null) return null;
    const isManifest = name === EXPORT_FILES.manifest;
    const entry: WrittenFile | undefined = isManifest
      ? undefined
      : manifest.files.find((f) => f.name === name);
    if (!isManifest && entry === undefined) return null;
    const handle = await open(join(dir, name), 'r').catch(() => null);
    if (handle === null) return null;
    const opened = await handle.stat();
    // the manifest is renamed after every file of its build: a file newer
    // than it, or of another size, is of the next build, still renaming
    if (isManifest || (opened.mtimeMs <= manifestStat.mtimeMs && opened.size === entry!.bytes)) {
      const etag = isManifest
        ? `"m-${Math.floor(opened.mtimeMs).toString(36)}-${opened.size.toString(36)}"`
        : `"${entry!.sha256}"`;
      return {
        handle,
        bytes: opened.size,
        etag,
        modified: new Date(Date.parse(manifest.builtAt) || opened.mtimeMs),
      };
    }
    await handle.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return null;
}

/** If-None-Match holds the ETag (or `*`); weak forms compared by their opaque part. */
function noneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}

/** If-Modified-Since at or after the build (HTTP dates have whole seconds). */
function notModifiedSince(header: string | undefined, modified: Date): boolean {
  if (header === undefined) return false;
  const since = Date.parse(header);
  return !Number.isNaN(since) && Math.floor(modified.getTime() / 1000) * 1000 <= since;
}

export function exportHandlers({ dir }: ExportRouteOptions) {
  return {
    file: defineHandler({
      summary: 'A file of the export (MMDB, CSV, manifest)',
      description:
        'The files EXPORT_DIR holds, rebuilt after each data swap (docs/export.md): ipintel-city.mmdb, ipintel-asn.mmdb, ipintel-anonymous-ip.mmdb, ipintel-ranges.csv and ipintel-export.json. ETag is the SHA-256 of the file (If-None-Match → 304), Last-Modified its build time (If-Modified-Since → 304). 404 while no build has written the file. An operator endpoint: METRICS_TOKEN (or an API key) guards it, on METRICS_PORT when that is set.',
      tags: ['Service'],
      params: z.object({ file: z.string() }),
      response: z.string(),
      errors: ['UNAUTHORIZED'],
      raw: true,
      // the file is streamed: node:http answers it, never the fast path
      streamed: true,
      handle: async ({ params, ctx }: RouteInput<{ file: string }, unknown>): Promise<RawBody> => {
        const contentType = SERVED.get(params.file);
        if (contentType === undefined) {
          throw new AppError(
            'NOT_FOUND',
            `No such export file: the export has ${[...SERVED.keys()].join(', ')}.`,
          );
        }
        if (dir === null) {
          throw new AppError(
            'NOT_FOUND',
            'No export here: the operator has not set EXPORT_DIR (docs/export.md).',
          );
        }
        const opened = await openExported(dir, params.file);
        if (opened === null) {
          throw new AppError(
            'NOT_FOUND',
            `${params.file} is not built yet: the export is built after start and after each data swap.`,
          );
        }
        const headers = {
          etag: opened.etag,
          'last-modified': opened.modified.toUTCString(),
          // a node may keep it, and asks again (If-None-Match) before using it
          'cache-control': 'no-cache',
        };
        const inm = ctx.headers['if-none-match'];
        const unchanged =
          inm !== undefined
            ? noneMatch(inm, opened.etag)
            : notModifiedSince(ctx.headers['if-modified-since'], opened.modified);
        if (unchanged) {
          await opened.handle.close();
          return { body: null, contentType, status: 304, headers };
        }
        return {
          body: null,
          contentType,
          headers,
          file: { handle: opened.handle, bytes: opened.bytes },
        };
      },
    }),
  };
}
