// A lower bound for `npm run bench:floor`: the least a GeoIP answer can cost
// on node:http under CONTRACT.md, with no layers. One hand-inlined handler
// parses /ip/<address>, counts the rate limit in a Map, reads (or, on a miss,
// computes with the service's own GeoIP lookup and stores) a 50,000-entry LRU,
// writes the contract's headers and a batched access line. No routing, no
// validation, no metrics registry, no error handling: not a server to run,
// a yardstick for what the service's layers cost.
import { createServer } from 'node:http';
import { LRUCache } from 'lru-cache';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { loadServiceData } from '../src/deps.js';
import { createGeoIpLookup } from '../src/lookups/geoip/geoip.js';
import { parseIp, type Ip } from '../src/net/ip.js';

const config = loadConfig({ LOG_LEVEL: 'warn' });
const data = await loadServiceData(config, pino({ level: 'warn' }));
const geoip = createGeoIpLookup(data.geo);
const destination = pino.destination({ fd: 1, sync: false });
const FALLBACK = parseIp('8.8.8.8') as Ip;
const ATTRIBUTION = 'IP Geolocation by DB-IP <https://db-ip.com> (CC BY 4.0)';
const LIMIT = 1_000_000_000;

interface Entry {
  body: string;
  bytes: number;
  expiresAt: number;
}
const cache = new LRUCache<string, Entry>({ max: 50_000 });
const windows = new Map<string, { count: number; resetAt: number }>();
let lines: string[] = [];
let timer: NodeJS.Timeout | null = null;
let sequence = 0;
const flush = (): void => {
  timer = null;
  destination.write(lines.join(''));
  lines = [];
};

const server = createServer((req, res) => {
  const started = performance.now();
  const url = req.url ?? '/';
  const requestId = `floor-${(++sequence).toString(36)}`;
  const peer = req.socket.remoteAddress ?? '';
  let window = windows.get(peer);
  if (window === undefined) {
    window = { count: 0, resetAt: Date.now() + 60_000 };
    windows.set(peer, window);
  }
  window.count++;
  const ip = parseIp(url.slice(4)) ?? FALLBACK;
  const key = `geoip:1:${ip.text}`;
  let entry = cache.get(key);
  const hit = entry !== undefined;
  if (entry === undefined) {
    const body = `{"data":${geoip.lookupJson(ip)}}`;
    entry = { body, bytes: Buffer.byteLength(body), expiresAt: Date.now() + 86_400_000 };
    cache.set(key, entry);
  }
  res.writeHead(200, {
    'ratelimit-limit': LIMIT,
    'ratelimit-remaining': LIMIT - window.count,
    'ratelimit-reset': 60,
    'cache-control': `public, max-age=${Math.floor((entry.expiresAt - Date.now()) / 1000)}`,
    'x-cache': hit ? 'HIT' : 'MISS',
    'x-data-attribution': ATTRIBUTION,
    'content-type': 'application/json; charset=utf-8',
    'content-length': entry.bytes,
    'access-control-allow-origin': '*',
    'x-request-id': requestId,
  });
  res.end(entry.body);
  const ms = Math.round((performance.now() - started) * 100) / 100;
  lines.push(
    `{"level":30,"time":${Date.now()},"reqId":"${requestId}","method":"GET","url":"${url}","status":200,"ip":"${peer}","ms":${ms},"msg":"request"}\n`,
  );
  timer ??= setTimeout(flush, 50);
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1');
