// `npm run geofeed-coverage`: how much address space each stored relay list
// and geofeed in DATA_DIR/feeds covers (IPv4 addresses, IPv6 /64s and /48s),
// for BENCHMARKS.md. Reads the feeds as the service does; exits 0.
import { loadConfig } from '../src/config.js';
import { geofeedCoverage } from './geofeed/coverage.js';
import { readGeofeeds } from '../src/lookups/geofeed/geofeed-holder.js';
import { feedsDir } from '../src/lookups/vpn/feeds/feed-store.js';

const config = loadConfig(process.env);
const { stored, problems } = await readGeofeeds(feedsDir(config.dataDir));
for (const problem of problems) process.stderr.write(`skipped: ${problem}\n`);
const rows = geofeedCoverage(stored).map((c) => [
  c.feed,
  c.kind,
  String(c.prefixes),
  c.ipv4Addresses.toLocaleString('en-US'),
  c.ipv6Slash64s.toLocaleString('en-US'),
  c.ipv6Slash48s.toLocaleString('en-US'),
]);
const header = ['feed', 'kind', 'prefixes', 'IPv4 addresses', 'IPv6 /64s', 'IPv6 /48s'];
process.stdout.write(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|\n`);
for (const row of rows) process.stdout.write(`| ${row.join(' | ')} |\n`);
