// `tsx scripts/update-data.ts [--data-dir DIR] [--only id,id]`: downloads the
// VPN / hosting / Tor feeds into DATA_DIR/feeds, one status line per feed on
// stderr. Exit status: 0 when at least one feed was stored, 1 when every feed
// failed (the previous files are kept either way), 2 on bad arguments.
// Reads the proposed variables: DATA_DIR, FEED_URL_<ID>, FEEDS_DISABLED,
// FEED_TIMEOUT_MS, FEED_MAX_BYTES.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { feedOverridesFromEnv, resolveFeeds } from '../src/lookups/vpn/default-feeds.js';
import { updateFeeds, type FeedProgress, type FeedSpec } from '../src/lookups/vpn/feed-updater.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// the same folder whether run from scripts/ (tsx) or dist/scripts/ (built)
const PROJECT_ROOT = ROOT.endsWith('/dist') ? dirname(ROOT) : ROOT;

function fail(message: string): never {
  process.stderr.write(`update-data: ${message}\n`);
  process.exit(2);
}

function positiveInt(name: string): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === '') return undefined;
  if (!/^[1-9]\d*$/.test(text))
    fail(`${name} must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function report(event: FeedProgress, width: number): void {
  const name = event.feed.padEnd(width);
  if (event.phase === 'start') process.stderr.write(`${name}  fetching ${event.url}\n`);
  if (event.phase === 'done') {
    process.stderr.write(
      `${name}  ok      ${size(event.bytes).padStart(10)}  ${event.prefixes} prefixes\n`,
    );
  }
  if (event.phase === 'failed') {
    process.stderr.write(
      `${name}  FAILED  ${size(event.bytes).padStart(10)}  ${event.error} (previous file kept)\n`,
    );
  }
}

const { values } = (() => {
  try {
    return parseArgs({ options: { 'data-dir': { type: 'string' }, only: { type: 'string' } } });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
})();

let feeds: FeedSpec[] = [];
try {
  feeds = resolveFeeds(feedOverridesFromEnv(process.env));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
if (values.only !== undefined) {
  const only = new Set(values.only.split(',').map((s) => s.trim()));
  const unknown = [...only].filter((id) => !feeds.some((f) => f.id === id));
  if (unknown.length > 0) fail(`--only: unknown or disabled feed(s): ${unknown.join(', ')}`);
  feeds = feeds.filter((f) => only.has(f.id));
}
if (feeds.length === 0) fail('no feeds to update (all disabled?)');

const dataDir = values['data-dir'] ?? process.env.DATA_DIR ?? join(PROJECT_ROOT, 'data');
const feedDir = join(resolve(dataDir), 'feeds');
const width = Math.max(...feeds.map((f) => f.id.length));
process.stderr.write(`updating ${feeds.length} feed(s) into ${feedDir}\n`);
const timeoutMs = positiveInt('FEED_TIMEOUT_MS');
const maxBytes = positiveInt('FEED_MAX_BYTES');
const results = await updateFeeds({
  dataDir: feedDir,
  feeds,
  ...(timeoutMs === undefined ? {} : { timeoutMs }),
  ...(maxBytes === undefined ? {} : { maxBytes }),
  onProgress: (event) => report(event, width),
});
const stored = results.filter((r) => r.ok).length;
process.stderr.write(`${stored} of ${results.length} feed(s) updated\n`);
process.exit(stored === 0 ? 1 : 0);
