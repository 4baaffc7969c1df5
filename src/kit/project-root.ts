// The installation's root folder (where package.json, resources/ and tables/
// are). Its own module, importing nothing of ours, so that the configuration
// and the modules it configures (the compiler, the page's assets, the ASN
// classes) all read it from below and no import runs back up to config.ts.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findProjectRoot(): string {
  // this module runs from src/ (tsx), dist/src/ (built) or dist/bundle/ (the
  // service's bundle): the root is the nearest folder up with a package.json
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot();
