// IP2Location LITE DB11 as an uncalibrated city source (issue 42), fetched
// with the operator's own download token (IP2LOCATION_TOKEN) by
// `update-data` and its schedule: IP2Location's documented download,
// `${IP2LOCATION_BASE_URL}/?token=…&file=DB11LITECSV` and `…=DB11LITECSVIPV6`,
// each a ZIP holding one CSV (the token in the query, so the URLs are shown
// and recorded as `token=[redacted]`). IP2Location answers a refused token
// or an exhausted quota ("NO PERMISSION", "THIS FILE CAN ONLY BE DOWNLOADED
// 5 TIMES PER HOUR") with a line of text and status 200: a body that is not
// a ZIP is refused with that text. Each ZIP must hold its CSV, its first rows
// must read as DB11 rows, and its CSV must not be far smaller than the copy's;
// then the steps every opt-in source takes (opt-in-update.ts) put the two
// ZIPs in DATA_DIR (compile/db11.ts reads them).
import { DB11_ENTRIES, db11Row } from '../compile/db11.js';
import { notZip, zipEntryInfo, zipEntryLines } from '../compile/zip-file.js';
import type { Secret } from './update-config.js';
import { updateOptIn, type OptInUpdateOptions, type OptInUpdateResult } from './opt-in-update.js';
import { fetchedDb11Paths } from './paths.js';
import type { Artifact } from './sources.js';

export const DB11_UPDATE_ID = 'ip2location-db11';

export type Db11UpdateOptions = OptInUpdateOptions & {
  ip2location: { baseUrl: string; token: Secret };
};

/** IP2Location's two downloads, the token only in `url` (secret: never logged). */
export function db11Artifacts(baseUrl: string, token: string): Artifact[] {
  const base = `${baseUrl.replace(/\/+$/, '')}/`;
  return [
    ['DB11LITECSV', 'IP2LOCATION-LITE-DB11.CSV.ZIP'],
    ['DB11LITECSVIPV6', 'IP2LOCATION-LITE-DB11.IPV6.CSV.ZIP'],
  ].map(([code, name]) => ({
    name: name!,
    url: `${base}?token=${encodeURIComponent(token)}&file=${code}`,
    shownUrl: `${base}?token=[redacted]&file=${code}`,
    checksumUrl: null,
    headers: {},
    packing: 'plain' as const,
  }));
}

/** Rows read to check the shape: the first ones of each CSV. */
const SAMPLE = 16;

/** Why the CSV `entry` of a readable ZIP does not read as DB11 (null: it does). */
async function shapeProblem(path: string, entry: string): Promise<string | null> {
  let line = 0;
  for await (const text of zipEntryLines(path, entry)) {
    line++;
    const row = db11Row(text, () => null);
    if (typeof row === 'string') return `${entry} line ${line} is not a DB11 row: ${row}`;
    if (line >= SAMPLE) break;
  }
  return line === 0 ? `${entry} is empty` : null;
}

/** Why one fetched ZIP may not replace the copy at `before` (null: it may). */
async function zipProblem(
  fresh: string,
  entry: string,
  before: string | null,
  minRatio: number,
): Promise<string | null> {
  const text = await notZip(fresh);
  if (text !== null) return `IP2Location answered "${text}" instead of a ZIP`;
  let info;
  try {
    info = await zipEntryInfo(fresh, entry);
  } catch (error) {
    return `the downloaded file is not a readable ZIP (${(error as Error).message})`;
  }
  if (info === null) return `${entry} is not in the downloaded ZIP`;
  const shape = await shapeProblem(fresh, entry).catch((e: unknown) => `${entry}: ${String(e)}`);
  if (shape !== null) return shape;
  const was = before === null ? null : await zipEntryInfo(before, entry).catch(() => null);
  if (was !== null && info.bytes < was.bytes * minRatio) {
    return `${entry} has ${info.bytes} bytes, far fewer than the ${was.bytes} of the current copy (at least ${Math.ceil(was.bytes * minRatio)} expected)`;
  }
  return null;
}

export function updateDb11(options: Db11UpdateOptions): Promise<OptInUpdateResult> {
  const { baseUrl, token } = options.ip2location;
  const paths = fetchedDb11Paths(options.dataDir);
  const entries = [DB11_ENTRIES.v4, DB11_ENTRIES.v6];
  return updateOptIn(
    {
      kind: DB11_UPDATE_ID,
      label: 'ip2location (uncalibrated location source)',
      release: { name: 'IP2Location LITE DB11', artifacts: db11Artifacts(baseUrl, token.reveal()) },
      targets: [paths.v4, paths.v6],
      problemOf: async (fresh, before, minRatio) => {
        for (const [i, file] of fresh.entries()) {
          const problem = await zipProblem(file, entries[i]!, before?.[i] ?? null, minRatio);
          if (problem !== null) return problem;
        }
        return null;
      },
      withFresh: (inUse, [v4, v6]) => ({ ...inUse, db11: { v4: v4!, v6: v6! } }),
      refused: 'IP2LOCATION_TOKEN refused',
    },
    options,
  );
}
