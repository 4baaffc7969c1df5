// The files of the web page: the script modules, style sheet and icon from
// web/ (the browser runs them as they are in the repository: no bundler, no
// build step) and the world map drawn from world-atlas. Built once per
// process, on the first page or asset request — not at start-up: the map's
// libraries are imported then, and the compression runs on the thread pool.
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../kit/project-root.js';
import { buildAssetSet, type AssetSet } from './assets.js';
import type { PageAssets } from './page-html.js';

const WEB_DIR = join(PROJECT_ROOT, 'web');
const SCRIPT = 'text/javascript; charset=utf-8';

let built: Promise<AssetSet> | null = null;

export function pageAssetSet(): Promise<AssetSet> {
  built ??= buildPageAssets().catch((error: unknown) => {
    built = null; // the next request tries again
    throw error;
  });
  return built;
}

async function buildPageAssets(): Promise<AssetSet> {
  const { loadWorldTopology, renderWorldMap } = await import('./world-map.js');
  // modules after the modules they import (see buildAssetSet)
  return buildAssetSet([
    { name: 'render.js', contentType: SCRIPT, body: read('render.js') },
    { name: 'page.js', contentType: SCRIPT, body: read('page.js') },
    { name: 'page.css', contentType: 'text/css; charset=utf-8', body: read('page.css') },
    { name: 'icon.svg', contentType: 'image/svg+xml', body: read('icon.svg') },
    {
      name: 'world.svg',
      contentType: 'image/svg+xml',
      body: Buffer.from(renderWorldMap(loadWorldTopology())),
    },
  ]);
}

export function pageAssetUrls(set: AssetSet): PageAssets {
  return {
    js: set.url('page.js'),
    css: set.url('page.css'),
    icon: set.url('icon.svg'),
    map: set.url('world.svg'),
  };
}

function read(name: string): Buffer {
  return readFileSync(join(WEB_DIR, name));
}
