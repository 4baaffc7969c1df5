// The export's file names, parts and manifest: what the CLI, the config, the
// keeper and GET /export/… share (no MMDB code behind it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const EXPORT_FILES = {
  city: 'ipintel-city.mmdb',
  asn: 'ipintel-asn.mmdb',
  anonymous: 'ipintel-anonymous-ip.mmdb',
  csv: 'ipintel-ranges.csv',
  manifest: 'ipintel-export.json',
} as const;

/** The files an export can write (the manifest is always written). */
export type ExportPart = 'city' | 'asn' | 'anonymous-ip' | 'csv';
export const EXPORT_PARTS: readonly ExportPart[] = ['city', 'asn', 'anonymous-ip', 'csv'];
/** the file each part writes */
export const PART_FILES = {
  city: 'city',
  asn: 'asn',
  'anonymous-ip': 'anonymous',
  csv: 'csv',
} as const satisfies Record<ExportPart, keyof typeof EXPORT_FILES>;

export interface WrittenFile {
  name: string;
  bytes: number;
  sha256: string;
}
/** What ipintel-export.json says (the fields readers of it use). */
export interface ExportManifest {
  builtAt: string;
  version: string;
  dataVersion?: string;
  files: WrittenFile[];
}

/** The folder's manifest, or null when it has none (or one that cannot be read). */
export function readManifest(dir: string): ExportManifest | null {
  try {
    const manifest = JSON.parse(
      readFileSync(join(dir, EXPORT_FILES.manifest), 'utf8'),
    ) as ExportManifest;
    return Array.isArray(manifest.files) ? manifest : null;
  } catch {
    return null;
  }
}

/** What EXPORT_DIR's builds came to (src/export/export-keeper.ts), for /metrics. */
export interface ExportBuildCounts {
  /** builds that wrote new files, found them current, or failed */
  ok: number;
  skipped: number;
  failed: number;
  /** when the last build ended with current files (epoch ms), or null */
  lastSuccessAt: number | null;
}

/**
 * `ipintel export`'s node flags (src/cli/main.ts starts it again with them,
 * and the EXPORT_DIR keeper's child has them): its lookups make millions of
 * short-lived addresses and texts, and 64 MB semi-spaces let them die young
 * rather than be copied, a sixth of its CPU time (docs/export.md).
 */
export const EXPORT_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
