// `npm run registry-country [FIXTURES_DIR]`: the registry's country of the
// network blocks recorded in ../shared/fixtures (RDAP answers and whois
// texts: the only registry data there is; no RIR delegation file is embedded
// or recorded) against GET /ranges?country=<that country>, the country by
// location: how much of each block the location list of its registry
// country holds, and where the GeoIP data places the block instead. For
// docs/ranges.md; reads the embedded data as the service does; exits 0.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config.js';
import { loadServiceData } from '../src/composition.js';
import { createGeoIpLookup } from '../src/lookups/geoip/geoip.js';
import { createVpnJson } from '../src/lookups/vpn/record-json.js';
import { rangeRequest, rangeText } from '../src/routes/range-routes.js';
import { formatIpv4, parseIp } from '../src/net/ip.js';
import { pino } from 'pino';

interface Block {
  source: string;
  start: number;
  end: number;
  country: string;
}

const v4 = (text: string): number | null => {
  const ip = parseIp(text);
  return ip?.version === 4 ? ip.value : null;
};

/** `a.b.c/len` as whois writes a LACNIC block (missing octets are 0). */
function shortCidr(text: string): [number, number] | null {
  const match = /^(\d+(?:\.\d+){0,3})\/(\d+)$/.exec(text.trim());
  if (match === null) return null;
  const octets = match[1]!.split('.').map(Number);
  while (octets.length < 4) octets.push(0);
  const start = v4(octets.join('.'));
  const length = Number(match[2]);
  return start === null ? null : [start, start + 2 ** (32 - length) - 1];
}

function blocks(dir: string): Block[] {
  const out: Block[] = [];
  for (const name of readdirSync(join(dir, 'rdap'))) {
    const r = JSON.parse(readFileSync(join(dir, 'rdap', name), 'utf8')) as {
      startAddress?: string;
      endAddress?: string;
      country?: string;
    };
    const start = v4(r.startAddress ?? '');
    const end = v4(r.endAddress ?? '');
    // the whole space (IANA's record) says nothing of a country
    if (start === null || end === null || r.country === undefined || end - start > 2 ** 24)
      continue;
    out.push({ source: `rdap/${name}`, start, end, country: r.country });
  }
  for (const name of readdirSync(join(dir, 'whois'))) {
    const text = readFileSync(join(dir, 'whois', name), 'utf8');
    const range = /^(?:inetnum|NetRange):\s*(.+)$/im.exec(text)?.[1]?.trim();
    const country = /^country:\s*([A-Z]{2})\s*$/im.exec(text)?.[1];
    if (range === undefined || country === undefined) continue;
    const dash = range.split(/\s*-\s*/);
    const span =
      dash.length === 2 ? [v4(dash[0]!), v4(dash[1]!)] : (shortCidr(range) ?? [null, null]);
    if (span[0] === null || span[1] === null || span[0] === undefined) continue;
    out.push({ source: `whois/${name}`, start: span[0], end: span[1]!, country });
  }
  return out;
}

const fixtures = resolve(process.argv[2] ?? join('..', 'shared', 'fixtures'));
const config = loadConfig(process.env);
const data = await loadServiceData(config, pino({ level: 'silent' }));
const geoip = createGeoIpLookup(data.geo, data.overrides, data.geofeeds);
const sources = { geoip, vpn: createVpnJson(geoip, data.vpn), feeds: () => data.vpn.current() };
const lists = new Map<string, [number, number][]>();

async function locationList(country: string): Promise<[number, number][]> {
  let found = lists.get(country);
  if (found === undefined) {
    let text = '';
    const request = rangeRequest({ country, family: '4', format: 'plain' }, undefined);
    for await (const chunk of rangeText(sources, request)) text += chunk;
    found = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const [address, length] = line.split('/');
        const start = v4(address!)!;
        return [start, start + 2 ** (32 - Number(length)) - 1];
      });
    lists.set(country, found);
  }
  return found;
}

process.stdout.write(
  '| block (registry record) | registry country | in ?country= of it | where GeoIP places it (share of the block) |\n|---|---|---|---|\n',
);
for (const b of blocks(fixtures)) {
  const list = await locationList(b.country);
  let inside = 0;
  for (const [s, e] of list) {
    const lo = Math.max(s, b.start);
    const hi = Math.min(e, b.end);
    if (lo <= hi) inside += hi - lo + 1;
  }
  const size = b.end - b.start + 1;
  // the block's place by location: each /24 (or address, in a smaller block) asked
  const step = size >= 256 ? 256 : 1;
  const places = new Map<string, number>();
  for (let at = b.start; at <= b.end; at += step) {
    const country = geoip.lookup({ version: 4, value: at, text: formatIpv4(at) }).country ?? 'none';
    places.set(country, (places.get(country) ?? 0) + step);
  }
  const placed = [...places]
    .sort((x, y) => y[1] - x[1])
    .map(([c, n]) => `${c} ${((100 * n) / size).toFixed(1)} %`)
    .join(', ');
  process.stdout.write(
    `| ${formatIpv4(b.start)}–${formatIpv4(b.end)} (${b.source}) | ${b.country} | ${((100 * inside) / size).toFixed(1)} % | ${placed} |\n`,
  );
}
