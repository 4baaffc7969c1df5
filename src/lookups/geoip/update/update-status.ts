// The outcome of the last GeoIP/ASN update per data set, kept beside the
// tables (DATA_DIR/tables/update-status.json) so that a run of
// `npm run update-data` shows in the service's /metrics too. Written whole
// and renamed in; a DATA_DIR that cannot be written loses only this record
// (the log line and the in-process metric still say what failed).
import { readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../../../kit/atomic-file.js';
import { join } from 'node:path';
import type { DataSetKind } from '../compiled-set.js';

export type UpdateOutcome = 'updated' | 'unchanged' | 'failed';

export interface KindStatus {
  /** when the last run ended */
  checkedAt: string;
  outcome: UpdateOutcome;
  error: string | null;
  /** the last run that ended with current data (updated or unchanged) */
  succeededAt: string | null;
}

/** the data sets an update records: GeoIP, ASN and the fetched opt-in sources */
export type UpdatedSet = DataSetKind | 'geolite2-city' | 'ipinfo-lite' | 'ip2location-db11';

export type UpdateStatus = Partial<Record<UpdatedSet, KindStatus>>;

function statusPath(dataDir: string): string {
  return join(dataDir, 'tables', 'update-status.json');
}

export function readStatus(dataDir: string): UpdateStatus {
  try {
    const doc = JSON.parse(readFileSync(statusPath(dataDir), 'utf8')) as unknown;
    return typeof doc === 'object' && doc !== null ? doc : {};
  } catch {
    return {};
  }
}

export async function recordOutcome(
  dataDir: string,
  result: { kind: UpdatedSet; outcome: UpdateOutcome; error: string | null },
  at: Date,
): Promise<void> {
  const status = readStatus(dataDir);
  const before = status[result.kind];
  status[result.kind] = {
    checkedAt: at.toISOString(),
    outcome: result.outcome,
    error: result.error,
    succeededAt: result.outcome === 'failed' ? (before?.succeededAt ?? null) : at.toISOString(),
  };
  const path = statusPath(dataDir);
  try {
    await writeFileAtomic(path, `${JSON.stringify(status, null, 2)}\n`);
  } catch {
    // not writable: the caller logs the outcome and counts it in its own metrics
  }
}

/** The status file, re-read only when it changed (it is read at every scrape). */
export function statusReader(dataDir: string): () => UpdateStatus {
  let seen = -1;
  let status: UpdateStatus = {};
  return () => {
    let mtime = 0;
    try {
      mtime = statSync(statusPath(dataDir)).mtimeMs;
    } catch {
      mtime = 0;
    }
    if (mtime !== seen) {
      seen = mtime;
      status = mtime === 0 ? {} : readStatus(dataDir);
    }
    return status;
  };
}
