// `npm run registry-vs-location [CC ...]`: for a few countries (default US, DE,
// RU, BR, JP), the IPv4 addresses in the country by location (what
// GET /ranges?country= lists: the embedded GeoIP answer) against those in it
// by registration (the embedded registry-country source, the RIRs'
// delegations as ip-location-db's geo-whois-asn-country packs them): each
// count, the overlap, and where the addresses registered in the country are
// located instead. For docs/ranges.md ("Which country"); geofeeds and
// overrides are left out (a DATA_DIR of the operator's would add them to the
// location side only). Reads the embedded data; exits 0.
import { Reader } from 'maxmind';
import { NONE } from '../src/data/range-table.js';
import { countryLayers } from '../src/lookups/geoip/location-sources.js';
import { loadEmbedded } from '../src/lookups/geoip/compile/compile-sources.js';
import { GeoIpLookup } from '../src/lookups/geoip/geoip.js';
import { formatIpv4, parseIp } from '../src/net/ip.js';
import { pino } from 'pino';

const countries =
  process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['US', 'DE', 'RU', 'BR', 'JP'];
const tables = await loadEmbedded(pino({ level: 'silent' }));
const geo = new GeoIpLookup({ tables: { geoip: tables.geoip, asn: tables.asn } });
const registry = countryLayers((data) => new Reader<object>(data)).find(
  (l) => l.id === 'registry',
)!;
const { v4 } = tables.geoip.table;

/** the location's country of a table value, asked once per value */
const locatedIn = new Map<number, string | null>();
function locationCountry(value: number, start: number): string | null {
  if (value === NONE) return null;
  let country = locatedIn.get(value);
  if (country === undefined) {
    country = geo.lookup(parseIp(formatIpv4(start))!).country;
    locatedIn.set(value, country);
  }
  return country;
}

// one sweep over both tables' IPv4 starts (each gapless from 0): each merged
// range's two countries, its size added to their pair's
const sizes = new Map<string, number>();
const rs = registry.v4.starts;
const rv = registry.v4.values;
if (rs[0] !== 0 || v4.keys[0] !== 0) throw new Error('a table does not start at 0.0.0.0');
const END = 2 ** 32;
for (let i = 0, j = 0, at = 0; at < END;) {
  const nextR = i + 1 < rs.length ? rs[i + 1]! : END;
  const nextG = j + 1 < v4.keys.length ? v4.keys[j + 1]! : END;
  const end = Math.min(nextR, nextG);
  const byRegistry = rv[i] === NONE ? null : (registry.answers[rv[i]!]!.country ?? null);
  const pair = `${byRegistry ?? '-'},${locationCountry(v4.values[j]!, at) ?? '-'}`;
  sizes.set(pair, (sizes.get(pair) ?? 0) + (end - at));
  if (nextR === end) i++;
  if (nextG === end) j++;
  at = end;
}

const total = (test: (registryCountry: string, locationCountry: string) => boolean): number => {
  let sum = 0;
  for (const [pair, size] of sizes) {
    const [r, l] = pair.split(',') as [string, string];
    if (test(r, l)) sum += size;
  }
  return sum;
};
const fmt = (n: number): string => n.toLocaleString('en-US');
console.log(
  '| country | by location | by registration | both | registered there, located elsewhere (top 3) |',
);
console.log('| --- | ---: | ---: | ---: | --- |');
for (const cc of countries) {
  const byLocation = total((_, l) => l === cc);
  const byRegistry = total((r) => r === cc);
  const both = total((r, l) => r === cc && l === cc);
  const elsewhere = new Map<string, number>();
  for (const [pair, size] of sizes) {
    const [r, l] = pair.split(',') as [string, string];
    if (r === cc && l !== cc) elsewhere.set(l, (elsewhere.get(l) ?? 0) + size);
  }
  const top = [...elsewhere]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([l, n]) => `${l === '-' ? 'none' : l} ${((100 * n) / byRegistry).toFixed(1)} %`)
    .join(', ');
  console.log(`| ${cc} | ${fmt(byLocation)} | ${fmt(byRegistry)} | ${fmt(both)} | ${top} |`);
}
