// The web page's static files, served under /assets/ with a content hash in
// each name (`page.3f9a0c1e2b4d.js`), so they can be cached for a year
// (`immutable`) and a new release is a new name. Each is compressed once,
// when the set is built (brotli at its best quality, gzip), and the smallest
// variant the client accepts is sent: no per-request compression.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { ContentEncoding } from './negotiate.js';

export const ASSET_PREFIX = '/assets/';

export interface AssetSource {
  /** the name without a hash, e.g. page.js */
  name: string;
  contentType: string;
  body: Buffer;
}

export interface Asset {
  /** the served file name, with its content hash */
  file: string;
  contentType: string;
  variants: Readonly<Record<ContentEncoding, Buffer>>;
}

export interface AssetSet {
  /** the URL of an asset by its plain name (page.js → /assets/page.<hash>.js) */
  url(name: string): string;
  /** an asset by its served (hashed) file name */
  get(file: string): Asset | undefined;
  /** every asset, for the page-weight figures */
  all(): readonly Asset[];
}

function hashedName(name: string, body: Buffer): string {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const dot = name.lastIndexOf('.');
  return `${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** The compressed forms, made on libuv's thread pool: the event loop keeps answering meanwhile. */
export async function compressVariants(body: Buffer): Promise<Record<ContentEncoding, Buffer>> {
  const [br, gz] = await Promise.all([
    brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    }),
    gzipAsync(body, { level: 9 }),
  ]);
  return { identity: body, gzip: gz, br };
}

/**
 * A script's imports of assets named before it (`from './render.js'`) are
 * rewritten to their hashed names before its own hash is taken, so a change
 * in an imported module renames the importer too: list modules after what
 * they import.
 */
function linked(source: AssetSource, earlier: ReadonlyMap<string, Asset>): Buffer {
  if (!source.contentType.startsWith('text/javascript')) return source.body;
  let text = source.body.toString('utf8');
  for (const [name, asset] of earlier) {
    text = text.replaceAll(`from './${name}'`, `from './${asset.file}'`);
  }
  return Buffer.from(text);
}

export async function buildAssetSet(sources: readonly AssetSource[]): Promise<AssetSet> {
  const byName = new Map<string, Asset>();
  const byFile = new Map<string, Asset>();
  for (const source of sources) {
    const body = linked(source, byName);
    const asset: Asset = {
      file: hashedName(source.name, body),
      contentType: source.contentType,
      variants: await compressVariants(body),
    };
    byName.set(source.name, asset);
    byFile.set(asset.file, asset);
  }
  return {
    url: (name) => {
      const asset = byName.get(name);
      if (asset === undefined) throw new Error(`no asset named ${name}`);
      return `${ASSET_PREFIX}${asset.file}`;
    },
    get: (file) => byFile.get(file),
    all: () => [...byFile.values()],
  };
}
