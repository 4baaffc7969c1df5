// `tsx scripts/update-data.ts [--data-dir DIR] [--only id,id]`: downloads the
// VPN / hosting / Tor feeds into DATA_DIR/feeds, one status line per feed on
// stderr. Exit status: 0 when at least one feed was stored, 1 when every feed
// failed (the previous files are kept either way), 2 on bad arguments.
// Also refreshes the IANA RDAP bootstrap into DATA_DIR/rdap-bootstrap.json.
// Settings come from the validated configuration (src/config.ts): DATA_DIR,
// FEED_URL_<ID>, FEEDS_DISABLED, FEED_TIMEOUT_MS, FEED_MAX_BYTES.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { BOOTSTRAP_FILE, refreshBootstrap, writeBootstrapFile } from '../src/lookups/rdap/index.js';
import { updateFeeds, type FeedProgress, type FeedSpec } from '../src/lookups/vpn/feed-updater.js';

function fail(message: string): never {
  process.stderr.write(`update-data: ${message}\n`);
  process.exit(2);
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

let config;
try {
  config = loadConfig(process.env);
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
let feeds: FeedSpec[] = [...config.feeds];
if (values.only !== undefined) {
  const only = new Set(values.only.split(',').map((s) => s.trim()));
  const unknown = [...only].filter(
    (id) => id !== 'rdap-bootstrap' && !feeds.some((f) => f.id === id),
  );
  if (unknown.length > 0) fail(`--only: unknown or disabled feed(s): ${unknown.join(', ')}`);
  feeds = feeds.filter((f) => only.has(f.id));
}
const bootstrapUrl = config.rdapBootstrapUrl;
const withBootstrap =
  bootstrapUrl !== null && (values.only === undefined || values.only.includes('rdap-bootstrap'));
if (feeds.length === 0 && !withBootstrap) fail('no feeds to update (all disabled?)');

const dataDir = values['data-dir'] === undefined ? config.dataDir : resolve(values['data-dir']);
const feedDir = join(dataDir, 'feeds');
const width = Math.max('rdap-bootstrap'.length, ...feeds.map((f) => f.id.length));
process.stderr.write(`updating ${feeds.length} feed(s) into ${feedDir}\n`);
const results = await updateFeeds({
  dataDir: feedDir,
  feeds,
  timeoutMs: config.feedTimeoutMs,
  maxBytes: config.feedMaxBytes,
  onProgress: (event) => report(event, width),
});
let stored = results.filter((r) => r.ok).length;
let attempted = results.length;

// The IANA RDAP bootstrap, so /whois follows registry moves without a release.
if (withBootstrap && bootstrapUrl !== null) {
  attempted++;
  const name = 'rdap-bootstrap'.padEnd(width);
  try {
    const urls = { ipv4: `${bootstrapUrl}ipv4.json`, ipv6: `${bootstrapUrl}ipv6.json` };
    process.stderr.write(`${name}  fetching ${urls.ipv4} and ipv6.json\n`);
    const table = await refreshBootstrap({ fetch, urls, timeoutMs: config.feedTimeoutMs });
    mkdirSync(dataDir, { recursive: true });
    writeBootstrapFile(join(dataDir, BOOTSTRAP_FILE), table);
    process.stderr.write(`${name}  ok      ${table.entries.length} prefixes\n`);
    stored++;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name}  FAILED  ${message} (previous file kept)\n`);
  }
}
process.stderr.write(`${stored} of ${attempted} data set(s) updated\n`);
process.exit(stored === 0 ? 1 : 0);
