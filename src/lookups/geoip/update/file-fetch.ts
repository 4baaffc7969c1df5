// `fetch` that also reads file:// URLs, so an air-gapped site can point
// DATA_BASE_URL (and DATA_CHECKSUM_BASE_URL, DBIP_BASE_URL) at a folder of
// release files carried in by hand: the same checks as a download (checksum,
// size bound, sanity), no server to run. A missing file answers 404, as a
// web server would.
import { createReadStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { FetchLike } from '../../vpn/feeds/feed-download.js';

export function withFileUrls(fetchHttp: FetchLike): FetchLike {
  return async (url, init) => {
    if (!url.startsWith('file:')) return fetchHttp(url, init);
    let path: string;
    let size: number;
    try {
      path = fileURLToPath(url);
      const stat = statSync(path);
      if (!stat.isFile()) throw new Error('not a file');
      size = stat.size;
    } catch {
      return new Response('not found', { status: 404 });
    }
    const body = Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>;
    return new Response(body, { status: 200, headers: { 'content-length': String(size) } });
  };
}
