// One bounded HTTP download: a deadline for the whole exchange (headers and
// body) and a byte limit enforced while streaming, so neither a stalled
// server nor an endless body can hold the updater.

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

export interface DownloadLimits {
  readonly fetch: FetchLike;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly onBytes?: (bytes: number) => void;
}

export class DownloadError extends Error {
  readonly bytes: number;

  constructor(message: string, bytes: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DownloadError';
    this.bytes = bytes;
  }
}

export async function download(url: string, limits: DownloadLimits): Promise<string> {
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
      headers: { 'user-agent': 'ipintel-feed-updater', accept: '*/*' },
    });
    if (!response.ok) throw new DownloadError(`HTTP ${response.status}`, 0);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > limits.maxBytes) {
      throw new DownloadError(`declared size ${declared} exceeds ${limits.maxBytes} bytes`, 0);
    }
    if (response.body === null) throw new DownloadError('empty response body', 0);
    const chunks: Uint8Array[] = [];
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      if (bytes > limits.maxBytes) {
        controller.abort();
        throw new DownloadError(`body exceeds ${limits.maxBytes} bytes`, bytes);
      }
      chunks.push(chunk);
      limits.onBytes?.(bytes);
    }
    // a body shorter than its Content-Length is a cut download even if the
    // stream happened to end cleanly; with a Content-Encoding the header counts
    // compressed bytes, which fetch has already inflated, so it cannot be compared
    const encoding = response.headers.get('content-encoding') ?? 'identity';
    if (encoding === 'identity' && Number.isFinite(declared) && bytes !== declared) {
      throw new DownloadError(`body ended after ${bytes} of ${declared} bytes`, bytes);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    if (timedOut) throw new DownloadError(`timed out after ${limits.timeoutMs} ms`, bytes);
    const detail = error instanceof Error ? error.message : String(error);
    throw new DownloadError(`download failed: ${detail}`, bytes, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}
