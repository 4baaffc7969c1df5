// Fetches one release into a work folder: the published checksums first (an
// unchanged release is not downloaded again), then each file, streamed to
// disk within the size and time bounds and hashed on the way, verified,
// then unpacked (gunzip as a stream; MaxMind's tar.gz through `tar`).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readdirSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { once } from 'node:events';
import { createGunzip } from 'node:zlib';
import { download, streamDownload, type DownloadLimits } from '../../vpn/feeds/feed-download.js';
import type { FetchedArtifact } from '../compiled-set.js';
import type { Artifact, Release } from './sources.js';

class UpdateError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'UpdateError';
  }
}

export type ReleaseFetch =
  { status: 'unchanged' } | { status: 'fetched'; files: string[]; artifacts: FetchedArtifact[] };

/** A .sha256 file: the hex digest, maybe followed by a file name. */
function parseChecksum(text: string, name: string): string {
  const digest = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!/^[0-9a-f]{64}$/.test(digest)) {
    throw new UpdateError(`${name}.sha256 holds no SHA-256 digest`);
  }
  return digest;
}

/** The artifact as last fetched, when the current data came from the same publisher. */
function previousOf(
  artifact: Artifact,
  previous: readonly FetchedArtifact[],
): FetchedArtifact | null {
  return previous.find((a) => a.name === artifact.name) ?? null;
}

async function fetchToFile(
  artifact: Artifact,
  path: string,
  limits: DownloadLimits,
  before: FetchedArtifact | null,
): Promise<FetchedArtifact | 'not-modified'> {
  const conditional: Record<string, string> = {};
  if (before?.etag) conditional['if-none-match'] = before.etag;
  if (before?.lastModified) conditional['if-modified-since'] = before.lastModified;
  const hash = createHash('sha256');
  const out = createWriteStream(path, { flags: 'wx' });
  try {
    const got = await streamDownload(
      artifact.url,
      { ...limits, headers: { ...artifact.headers, ...conditional } },
      async (chunk) => {
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
      },
    );
    out.end();
    await once(out, 'close');
    if (got.notModified) return 'not-modified';
    return {
      name: artifact.name,
      url: artifact.shownUrl ?? artifact.url,
      sha256: hash.digest('hex'),
      bytes: got.bytes,
      etag: got.headers.get('etag'),
      lastModified: got.headers.get('last-modified'),
    };
  } catch (error) {
    out.destroy();
    throw new UpdateError(`${artifact.name}: ${(error as Error).message}`, { cause: error });
  }
}

async function unpack(artifact: Artifact, path: string, dir: string): Promise<string> {
  try {
    if (artifact.packing === 'gzip') {
      const target = path.replace(/\.gz$/, '');
      await pipeline(createReadStream(path), createGunzip(), createWriteStream(target));
      return target;
    }
    if (artifact.packing === 'tar.gz') {
      const into = join(dir, 'untar');
      await mkdir(into);
      // only the .mmdb leaves the archive, flattened: no path in it reaches outside `into`;
      // tar is imported here, by the MaxMind updates that need it, not at every start-up
      const { extract } = await import('tar');
      await extract({
        file: path,
        cwd: into,
        strict: true,
        filter: (p) => p.endsWith('.mmdb'),
        strip: 1,
      });
      const found = readdirSync(into).find((f) => f.endsWith('.mmdb'));
      if (found === undefined) throw new Error('no .mmdb file in the archive');
      return join(into, found);
    }
    return path;
  } catch (error) {
    throw new UpdateError(`${artifact.name}: cannot unpack: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

export interface FetchOptions {
  limits: DownloadLimits;
  /** what was fetched last time for the data answering now (its manifest's update artifacts) */
  previous: readonly FetchedArtifact[];
  /** an empty folder for the downloads */
  workDir: string;
  onArtifact?: (artifact: Artifact) => void;
}

export async function fetchRelease(
  release: Pick<Release, 'artifacts'>,
  options: FetchOptions,
): Promise<ReleaseFetch> {
  const { limits, previous, workDir } = options;
  const small = { fetch: limits.fetch, timeoutMs: limits.timeoutMs, maxBytes: 64 * 1024 };
  const published: (string | null)[] = [];
  for (const artifact of release.artifacts) {
    if (artifact.checksumUrl === null) published.push(null);
    else {
      const text = await download(artifact.checksumUrl, {
        ...small,
        headers: artifact.headers,
      }).catch((error: unknown) => {
        throw new UpdateError(`${artifact.name}.sha256: ${(error as Error).message}`, {
          cause: error,
        });
      });
      published.push(parseChecksum(text, artifact.name));
    }
  }
  const befores = release.artifacts.map((a) => previousOf(a, previous));
  const unchanged = release.artifacts.every((a, i) => {
    const before = befores[i];
    if (before === null || before === undefined) return false;
    // with a checksum: the same digest; without (DB-IP's monthly name): the same
    // file name, asked again with If-None-Match/If-Modified-Since when the server gave validators
    if (published[i] !== null) return before.sha256 === published[i];
    return before.etag === null && before.lastModified === null;
  });
  if (unchanged) return { status: 'unchanged' };
  const files: string[] = [];
  const artifacts: FetchedArtifact[] = [];
  for (const [i, artifact] of release.artifacts.entries()) {
    options.onArtifact?.(artifact);
    const path = join(workDir, `${i}-${artifact.name.replace(/[^A-Za-z0-9._-]/g, '_')}`);
    const got = await fetchToFile(
      artifact,
      path,
      limits,
      published[i] === null ? befores[i]! : null,
    );
    if (got === 'not-modified') return { status: 'unchanged' };
    const expected = published[i];
    if (expected !== null && expected !== undefined && got.sha256 !== expected) {
      throw new UpdateError(
        `${artifact.name}: checksum mismatch (published ${expected.slice(0, 12)}…, downloaded ${got.sha256.slice(0, 12)}…)`,
      );
    }
    artifacts.push(got);
    files.push(await unpack(artifact, path, workDir));
  }
  return { status: 'fetched', files, artifacts };
}
