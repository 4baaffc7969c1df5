// The files of the web page: the script, style sheet and icon from web/ (the
// browser runs them as they are in the repository: no bundler, no build
// step) and the world map drawn from world-atlas. Built on the first page
// or asset request, once per process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../config.js';
import { buildAssetSet, type AssetSet } from './assets.js';
import type { PageAssets } from './page-html.js';
import { loadWorldTopology, renderWorldMap } from './world-map.js';

const WEB_DIR = join(PROJECT_ROOT, 'web');

let built: AssetSet | null = null;

export function pageAssetSet(): AssetSet {
  // modules after the modules they import (see buildAssetSet)
  built ??= buildAssetSet([
    { name: 'render.js', contentType: 'text/javascript; charset=utf-8', body: read('render.js') },
    { name: 'page.js', contentType: 'text/javascript; charset=utf-8', body: read('page.js') },
    { name: 'page.css', contentType: 'text/css; charset=utf-8', body: read('page.css') },
    { name: 'icon.svg', contentType: 'image/svg+xml', body: read('icon.svg') },
    {
      name: 'world.svg',
      contentType: 'image/svg+xml',
      body: Buffer.from(renderWorldMap(loadWorldTopology())),
    },
  ]);
  return built;
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
