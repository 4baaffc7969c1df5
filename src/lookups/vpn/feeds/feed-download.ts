// One bounded HTTP download: a deadline for the whole exchange (headers and
// body) and a byte limit enforced while streaming, so neither a stalled
// server nor an endless body can hold the updater. The feeds keep the body in
// memory (`download`); the GeoIP/ASN updater streams it to a file
// (`streamDownload` with a chunk sink, src/lookups/geoip/update/fetch-release.ts).
import { Buffer } from 'node:buffer';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface DownloadLimits {
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  /** bytes so far and the declared total (null when the server does not say) */
  readonly onBytes?: (bytes: number, total: number | null) => void;
  /** extra request headers (credentials, If-None-Match…); never echoed in errors */
  readonly headers?: Readonly<Record<string, string>>;
}

export class DownloadError extends Error {
  readonly bytes: number;
  /** the HTTP status when the server answered with an error */
  readonly status: number | null;

  constructor(
    message: string,
    bytes: number,
    options?: { cause?: unknown; status?: number | null },
  ) {
    super(message, options);
    this.name = 'DownloadError';
    this.bytes = bytes;
    this.status = options?.status ?? null;
  }
}

export interface StreamedDownload {
  /** 304: the copy the request named (If-None-Match / If-Modified-Since) is current */
  readonly notModified: boolean;
  readonly bytes: number;
  readonly headers: Headers;
}

/**
 * Fetches `url` and hands each body chunk to `sink` (awaited, so a slow disk
 * slows the transfer instead of buffering it), within the time and size bounds.
 */
export async function streamDownload(
  url: string,
  limits: DownloadLimits,
  sink: (chunk: Uint8Array) => void | Promise<void>,
): Promise<StreamedDownload> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, limits.timeoutMs);
  let bytes = 0;
  try {
    const response = await limits.fetch(url, {
      signal: controller.signal,
      redirect: 'follow',
      headers: { 'user-agent': 'ipintel-data-updater', accept: '*/*', ...limits.headers },
    });
    if (response.status === 304) {
      await response.body?.cancel();
      return { notModified: true, bytes: 0, headers: response.headers };
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new DownloadError(`HTTP ${response.status}`, 0, { status: response.status });
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limits.maxBytes) {
      throw new DownloadError(`declared size ${declared} exceeds ${limits.maxBytes} bytes`, 0);
    }
    if (response.body === null) throw new DownloadError('empty response body', 0);
    const encoding = response.headers.get('content-encoding') ?? 'identity';
    const total = encoding === 'identity' && Number.isFinite(declared) ? declared : null;
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > limits.maxBytes) {
        controller.abort();
        throw new DownloadError(`body exceeds ${limits.maxBytes} bytes`, bytes);
      }
      await sink(chunk);
      limits.onBytes?.(bytes, total);
    }
    // a body shorter than its Content-Length is a cut download even if the
    // stream happened to end cleanly; with a Content-Encoding the header counts
    // compressed bytes, which fetch has already inflated, so it cannot be compared
    if (total !== null && bytes !== total) {
      throw new DownloadError(`body ended after ${bytes} of ${total} bytes`, bytes);
    }
    return { notModified: false, bytes, headers: response.headers };
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (timedOut) throw new DownloadError(`timed out after ${limits.timeoutMs} ms`, bytes);
    const detail = error instanceof Error ? error.message : String(error);
    throw new DownloadError(`download failed: ${detail}`, bytes, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** The whole body as text (feeds, checksum files: small documents). */
export async function download(url: string, limits: DownloadLimits): Promise<string> {
  return (await downloadDocument(url, limits)).text;
}

/** As download, with the server's Last-Modified (as it sent it; null when it sent none). */
export async function downloadDocument(
  url: string,
  limits: DownloadLimits,
): Promise<{ text: string; lastModified: string | null }> {
  const chunks: Uint8Array[] = [];
  const { headers } = await streamDownload(url, limits, (chunk) => void chunks.push(chunk));
  return {
    text: Buffer.concat(chunks).toString('utf8'),
    lastModified: headers.get('last-modified'),
  };
}
