// IPinfo Lite as an uncalibrated location source (issue 42), fetched with
// the operator's own token (IPINFO_TOKEN) by `update-data` and its schedule:
// `${IPINFO_BASE_URL}/ipinfo_lite.mmdb?token=…` (IPinfo's documented
// download; the token in the query, so the URL is shown and recorded as
// `?token=[redacted]`). IPinfo publishes no checksum beside it: the server's
// ETag/Last-Modified make the next request conditional when it sends them,
// and a download identical to the copy in place changes nothing. The file
// must be IPinfo's (its database type says "ipinfo", in any case: IPinfo
// names its files' types "ipinfo <file>.mmdb", and which file name the Lite
// download carries is not documented) with country-level records
// (`country_code` on each);
// then the steps every opt-in source takes (opt-in-update.ts) put it in
// DATA_DIR/ipinfo-lite.mmdb.
import type { Reader } from 'maxmind';
import { walkMmdb } from '../compile/mmdb-walk.js';
import type { Secret } from './update-config.js';
import {
  mmdbCheck,
  updateOptIn,
  type OptInUpdateOptions,
  type OptInUpdateResult,
} from './opt-in-update.js';
import { fetchedIpinfoLitePath } from './paths.js';
import type { Artifact } from './sources.js';

export const IPINFO_LITE_UPDATE_ID = 'ipinfo-lite';
const FILE = 'ipinfo_lite.mmdb';

export type IpinfoLiteUpdateOptions = OptInUpdateOptions & {
  ipinfo: { baseUrl: string; token: Secret };
};

/** The download, its token only in `url` (secret: never logged). */
export function ipinfoLiteArtifact(baseUrl: string, token: string): Artifact {
  const base = `${baseUrl.replace(/\/+$/, '')}/${FILE}`;
  return {
    name: FILE,
    url: `${base}?token=${encodeURIComponent(token)}`,
    shownUrl: `${base}?token=[redacted]`,
    checksumUrl: null,
    headers: {},
    packing: 'plain',
  };
}

/** Records read to check the shape: the first ones of the IPv4 tree. */
const SAMPLE = 64;

interface DecodingReader {
  resolveDataPointer(pointer: number): unknown;
}

/** The first records of the IPv4 tree (at most SAMPLE), decoded. */
function sampleRecords(reader: Reader<object>): unknown[] {
  const records: unknown[] = [];
  const { nodeCount } = reader.metadata;
  const decoder = reader as unknown as DecodingReader;
  const stop = new Error('sampled');
  try {
    walkMmdb(reader, 4, (leaf) => {
      if (leaf.alias || leaf.pointer <= nodeCount) return;
      records.push(decoder.resolveDataPointer(leaf.pointer));
      if (records.length >= SAMPLE) throw stop;
    });
  } catch (error) {
    if (error !== stop) throw error;
  }
  return records;
}

/** Why a readable MMDB file is not IPinfo Lite (null: it is). */
export function ipinfoLiteProblem(reader: Reader<object>): string | null {
  const type = reader.metadata.databaseType;
  if (!/ipinfo/i.test(type)) return `database type "${type}" is not an IPinfo database`;
  let records: unknown[];
  try {
    records = sampleRecords(reader);
  } catch {
    return 'the records of the downloaded file cannot be read';
  }
  const code = (r: unknown) => (r as { country_code?: unknown } | null)?.country_code;
  if (records.length === 0) return 'the downloaded file holds no record';
  if (!records.every((r) => typeof code(r) === 'string')) {
    return 'its records are not IPinfo Lite records (no country_code string in each)';
  }
  if (!records.some((r) => /^[A-Z]{2}$/.test(code(r) as string))) {
    return 'its records name no two-letter country_code';
  }
  return null;
}

export function updateIpinfoLite(options: IpinfoLiteUpdateOptions): Promise<OptInUpdateResult> {
  const { baseUrl, token } = options.ipinfo;
  return updateOptIn(
    {
      kind: IPINFO_LITE_UPDATE_ID,
      label: 'ipinfo (uncalibrated location source)',
      release: { name: 'IPinfo Lite', artifacts: [ipinfoLiteArtifact(baseUrl, token.reveal())] },
      targets: [fetchedIpinfoLitePath(options.dataDir)],
      problemOf: mmdbCheck(ipinfoLiteProblem),
      withFresh: (inUse, [fresh]) => ({ ...inUse, ipinfoLite: fresh! }),
      refused: 'IPINFO_TOKEN refused',
    },
    options,
  );
}
