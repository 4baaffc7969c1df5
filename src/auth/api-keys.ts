// API keys (API_KEYS_FILE, docs/security.md): who may ask, and how much. The
// file is CSV (RFC 4180) with the header `name,key,limit`; `key` is the key
// itself or `sha256:<hex>` of it, so the file need not hold secrets; `limit`
// is requests per RATE_LIMIT_WINDOW_SECONDS, empty for RATE_LIMIT_MAX. Only
// SHA-256 digests are kept in memory. A presented key is hashed once and its
// digest looked up in a Map: a digest's bytes say nothing an attacker can
// steer toward a key (finding a key from a matching prefix of its digest is a
// preimage search), and the digest found is compared again with
// timingSafeEqual, so no comparison leaks how much of a key was right.
import { Buffer } from 'node:buffer';
import { hash, timingSafeEqual } from 'node:crypto';
import { parseCsv } from '../data/csv.js';

export interface ApiKey {
  /** the operator's label: in the access log, never the key */
  name: string;
  /** requests per window */
  limit: number;
  /** the rate-limit bucket of its requests, shared by every holder of the key */
  bucket: string;
  digest: Buffer;
}

/** A file that cannot be used, with every problem found (by line). */
export class ApiKeysFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`API_KEYS_FILE ${file}: refused:\n  ${problems.join('\n  ')}`);
    this.name = 'ApiKeysFileError';
  }
}

/** a key as it may be written in the file: RFC 3986's unreserved characters, unchanged in a header and in a query */
const LITERAL_KEY = /^[A-Za-z0-9._~-]{16,256}$/;
const HASHED_KEY = /^sha256:([0-9a-fA-F]{64})$/;
/** names go into log lines and bucket names as they are */
const NAME = /^[A-Za-z0-9._@-]{1,64}$/;
const LIMIT = /^\d{1,10}$/;
const MAX_LIMIT = 1_000_000_000;
const HEADER = ['name', 'key', 'limit'];
/** past this many, the rest of a broken file's problems are summed up */
const MAX_PROBLEMS = 20;

/** The SHA-256 digest of a key, as a Map key (32 chars, one per byte: "binary" is latin1). */
function digestOf(key: string): string {
  return hash('sha256', key, 'binary');
}

export class ApiKeyTable {
  private readonly byDigest: Map<string, ApiKey>;
  /** the presented key's digest as bytes, for timingSafeEqual (reused: no allocation a request) */
  private readonly scratch = Buffer.alloc(32);

  constructor(keys: readonly ApiKey[]) {
    this.byDigest = new Map(keys.map((k) => [k.digest.toString('latin1'), k]));
  }

  get size(): number {
    return this.byDigest.size;
  }

  /** The key a caller presented, or undefined when it is no key of this table. */
  find(presented: string): ApiKey | undefined {
    const digest = digestOf(presented);
    const key = this.byDigest.get(digest);
    if (key === undefined) return undefined;
    this.scratch.write(digest, 'latin1');
    return timingSafeEqual(key.digest, this.scratch) ? key : undefined;
  }
}

/** The file's text → its keys, or an ApiKeysFileError naming every bad line. */
export function parseApiKeys(file: string, text: string, defaultLimit: number): ApiKeyTable {
  const { records, problems: malformed } = parseCsv(text);
  // a record the CSV cannot hold is refused with the rest of the file, every one by its line
  if (malformed.length > 0) {
    throw new ApiKeysFileError(
      file,
      malformed.map((p) => `line ${p.line}: ${p.reason}`),
    );
  }
  const [header, ...rows] = records;
  const problems: string[] = [];
  if (
    header === undefined ||
    header.fields.map((f) => f.trim().toLowerCase()).join() !== HEADER.join()
  ) {
    problems.push(`line ${header?.line ?? 1}: the first line must be the header name,key,limit`);
  }
  const keys: ApiKey[] = [];
  const names = new Map<string, number>();
  const digests = new Map<string, number>();
  for (const row of header === undefined ? [] : rows) {
    const key = keyOf(row.fields, defaultLimit, (message) =>
      problems.push(`line ${row.line}: ${message}`),
    );
    if (key === null) continue;
    const digest = key.digest.toString('latin1');
    const sameName = names.get(key.name);
    const sameKey = digests.get(digest);
    if (sameName !== undefined)
      problems.push(`line ${row.line}: the name "${key.name}" is already on line ${sameName}`);
    else if (sameKey !== undefined)
      problems.push(`line ${row.line}: the same key as line ${sameKey}`);
    names.set(key.name, row.line);
    digests.set(digest, row.line);
    keys.push(key);
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, MAX_PROBLEMS);
    if (problems.length > MAX_PROBLEMS) shown.push(`… and ${problems.length - MAX_PROBLEMS} more`);
    throw new ApiKeysFileError(file, shown);
  }
  return new ApiKeyTable(keys);
}

/** One row → a key, or null after telling what is wrong (never the key itself). */
function keyOf(
  fields: string[],
  defaultLimit: number,
  problem: (message: string) => void,
): ApiKey | null {
  if (fields.length !== 3) {
    problem(`${fields.length} fields; a row is name,key,limit`);
    return null;
  }
  // none of the three may hold a space: spaces around a comma are a writer's habit, not content
  const [name = '', key = '', limitText = ''] = fields.map((f) => f.trim());
  let ok = true;
  if (!NAME.test(name)) {
    problem('the name must be 1 to 64 letters, digits or . _ @ -');
    ok = false;
  }
  const hashed = HASHED_KEY.exec(key);
  if (hashed === null && !LITERAL_KEY.test(key)) {
    problem(
      'the key must be sha256:<64 hex digits>, or 16 to 256 letters, digits or . _ ~ - (characters that travel unchanged in a header and a URL)',
    );
    ok = false;
  }
  const limit = limitText === '' ? defaultLimit : LIMIT.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) {
    problem(`the limit must be empty (RATE_LIMIT_MAX) or a whole number from 1 to ${MAX_LIMIT}`);
    ok = false;
  }
  if (!ok) return null;
  const digest =
    hashed !== null ? Buffer.from(hashed[1]!, 'hex') : Buffer.from(digestOf(key), 'latin1');
  return { name, limit, bucket: `key:${name}`, digest };
}
