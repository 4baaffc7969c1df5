// A refreshed IANA bootstrap kept in DATA_DIR (written by `npm run
// update-data`), so registry moves reach a running install without a new
// release; the snapshot shipped in bootstrap-snapshot.ts stays the fallback.
import { readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../../kit/atomic-file.js';
import { parseCidr } from '../../net/cidr-match.js';
import { buildTable, type BootstrapEntry, type BootstrapTable } from './bootstrap.js';
import { RIRS } from './registries.js';
import type { Rir } from './types.js';

export const BOOTSTRAP_FILE = 'rdap-bootstrap.json';

interface StoredBootstrap {
  publication: BootstrapTable['publication'];
  entries: { cidr: string; baseUrl: string; rir: Rir | null }[];
}

export function serialiseBootstrap(table: BootstrapTable): string {
  const stored: StoredBootstrap = {
    publication: table.publication,
    entries: table.entries.map((e) => ({ cidr: e.cidr.text, baseUrl: e.baseUrl, rir: e.rir })),
  };
  return JSON.stringify(stored);
}

/** null when the text is not a stored table (then the shipped snapshot is used). */
export function parseStoredBootstrap(text: string): BootstrapTable | null {
  let stored: StoredBootstrap;
  try {
    stored = JSON.parse(text) as StoredBootstrap;
  } catch {
    return null;
  }
  if (!Array.isArray(stored.entries) || stored.entries.length === 0) return null;
  const entries: BootstrapEntry[] = [];
  for (const e of stored.entries) {
    const cidr = typeof e.cidr === 'string' ? parseCidr(e.cidr) : null;
    const okUrl = typeof e.baseUrl === 'string' && /^https?:\/\/.+\/$/.test(e.baseUrl);
    const rir = RIRS.includes(e.rir as Rir) ? e.rir : null;
    if (cidr === null || !okUrl) return null;
    entries.push({ cidr, baseUrl: e.baseUrl, rir });
  }
  return buildTable(entries, stored.publication ?? { ipv4: null, ipv6: null });
}

export function readBootstrapFile(path: string): BootstrapTable | null {
  try {
    return parseStoredBootstrap(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

export function writeBootstrapFile(path: string, table: BootstrapTable): void {
  writeFileAtomicSync(path, serialiseBootstrap(table));
}
