// One bounded JSON GET for RDAP (RFC 7480): redirects followed by hand so
// their number is capped and their target checked, the body read with a
// byte limit, and parsed as JSON whatever Content-Type says (rdap.org and
// some RIRs label it differently). Every failure becomes an AppError.
import { Buffer } from 'node:buffer';
import { AppError } from '../../kit/errors.js';

export type FetchFn = typeof fetch;

export interface HttpOptions {
  fetch: FetchFn;
  /** aborts the whole exchange; its firing is reported as UPSTREAM_TIMEOUT */
  signal: AbortSignal;
  maxBytes: number;
  maxRedirects: number;
}

export interface JsonAnswer {
  /** the URL that finally answered, after redirects */
  url: string;
  json: unknown;
}

// RFC 7480 §5.2 lets servers redirect with any of these
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT = 'application/rdap+json, application/json';

export async function getJson(url: string, options: HttpOptions): Promise<JsonAnswer> {
  const host = hostOf(url);
  try {
    const { response, finalUrl } = await followRedirects(url, options);
    if (response.status === 404) {
      await discard(response);
      throw new AppError('NOT_FOUND', `The registry (${hostOf(finalUrl)}) holds no record for it.`);
    }
    if (response.status !== 200) {
      await discard(response);
      const why = response.status === 429 ? 'rate-limited the query' : 'answered';
      throw new AppError(
        'UPSTREAM_ERROR',
        `The RDAP server ${hostOf(finalUrl)} ${why} (HTTP ${response.status}).`,
      );
    }
    const body = await readBounded(response, options.maxBytes, hostOf(finalUrl));
    return { url: finalUrl, json: parseJson(body, hostOf(finalUrl)) };
  } catch (error) {
    throw asAppError(error, options.signal, host);
  }
}

async function followRedirects(
  url: string,
  options: HttpOptions,
): Promise<{ response: Response; finalUrl: string }> {
  let current = url;
  for (let hop = 0; ; hop++) {
    const response = await options.fetch(current, {
      headers: { accept: ACCEPT },
      redirect: 'manual',
      signal: options.signal,
    });
    if (!REDIRECTS.has(response.status)) return { response, finalUrl: current };
    await discard(response);
    if (hop >= options.maxRedirects) {
      throw new AppError(
        'UPSTREAM_ERROR',
        `RDAP redirected more than ${options.maxRedirects} times.`,
      );
    }
    current = redirectTarget(current, response.headers.get('location'));
  }
}

function redirectTarget(from: string, location: string | null): string {
  let target: URL | null = null;
  try {
    if (location !== null && location !== '') target = new URL(location, from);
  } catch {
    target = null;
  }
  // only web URLs: a Location of file:, data: or javascript: is refused
  if (target === null || (target.protocol !== 'https:' && target.protocol !== 'http:')) {
    throw new AppError('UPSTREAM_ERROR', `RDAP server ${hostOf(from)} sent an unusable redirect.`);
  }
  return target.href;
}

async function readBounded(response: Response, maxBytes: number, host: string): Promise<Buffer> {
  const tooLarge = () =>
    new AppError('UPSTREAM_ERROR', `The RDAP answer from ${host} exceeds ${maxBytes} bytes.`);
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await discard(response);
    throw tooLarge();
  }
  if (response.body === null) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  // undici types the body loosely; the bytes of a fetch body are Uint8Arrays
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function parseJson(body: Buffer, host: string): unknown {
  // a UTF-8 BOM is legal in the wild though RFC 8259 §8.1 forbids sending it
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError('UPSTREAM_ERROR', `The RDAP server ${host} answered with non-JSON.`, {
      cause: error,
    });
  }
}

async function discard(response: Response): Promise<void> {
  // frees the keep-alive socket; a failure here changes nothing for us
  await response.body?.cancel().catch(() => undefined);
}

function asAppError(error: unknown, signal: AbortSignal, host: string): AppError {
  if (signal.aborted) {
    return new AppError('UPSTREAM_TIMEOUT', `The RDAP server ${host} did not answer in time.`, {
      cause: error,
    });
  }
  if (error instanceof AppError) return error;
  return new AppError('UPSTREAM_ERROR', `The RDAP server ${host} could not be reached.`, {
    cause: error,
  });
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the registry';
  }
}
