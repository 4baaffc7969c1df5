// A synthetic access log for the enrich benchmark: one line per request in
// the combined log format, each starting with a random public IPv4 address
// (special-purpose ranges skipped), from a fixed seed so every run reads the
// same file.
import { isBogon } from '../src/lookups/geoip/bogons.js';
import { formatIpv4 } from '../src/net/ip.js';
import { xorshift32 } from '../scripts/xorshift.js';

const PATHS = ['/', '/index.html', '/api/v1/items?page=2', '/static/app.js', '/login', '/feed.xml'];
const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
  'curl/8.4.0',
];

/** Random public IPv4 addresses, from a seed. */
export function publicAddresses(count: number, seed = 12): string[] {
  // a fixed seed gives the same file every time
  const next = xorshift32(seed);
  const out: string[] = [];
  while (out.length < count) {
    const value = next();
    const text = formatIpv4(value);
    if (!isBogon({ version: 4, text, value })) out.push(text);
  }
  return out;
}

/** `count` lines of access log, as one string. */
export function accessLog(count: number, seed = 12): string {
  const next = xorshift32(seed ^ 0x5bd1e995);
  const lines = publicAddresses(count, seed).map((ip, i) => {
    const r = next();
    const second = String(i % 60).padStart(2, '0');
    return `${ip} - - [26/Nov/2026:10:${String(((i / 60) % 60) | 0).padStart(2, '0')}:${second} +0000] "GET ${PATHS[r % PATHS.length]!} HTTP/1.1" ${r % 17 === 0 ? 404 : 200} ${r % 50_000} "-" "${AGENTS[r % AGENTS.length]!}"`;
  });
  return `${lines.join('\n')}\n`;
}
