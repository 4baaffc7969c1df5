// A slice of the real embedded data (DB-IP City Lite as ip-location-db
// publishes it, RouteViews + DB-IP ASN rows) around the networks a test cares
// about, written as an operator's own files (GEOIP_DB, ASN_DB): the same
// records and network boundaries the service ships, a few thousand networks
// instead of millions, so that a whole export of them is written and read
// back exactly in seconds. test/export/export-exact.test.ts checks the export
// on it in `npm test`, and on the whole embedded data in `npm run test:full`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reader } from 'maxmind';
import { embeddedFiles } from '../../src/lookups/geoip/embedded-data.js';
import { parseAsnCsv } from '../../src/lookups/geoip/asn-csv.js';
import { cidrRanges } from '../../src/net/range-boundaries.js';
import { formatIpv4, formatIpv6, type Ip } from '../../src/net/ip.js';
import { buildMmdb, type MmdbNetwork } from '../helpers/mmdb-writer.js';

type Family = 4 | 6;

export interface Slice {
  family: Family;
  start: bigint;
  end: bigint;
}

export function addressText(family: Family, value: bigint): string {
  if (family === 4) return formatIpv4(Number(value));
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((value >> shift) & 0xffffn));
  return formatIpv6(groups);
}

function valueOf(ip: Ip): bigint {
  if (ip.version === 4) return BigInt(ip.value);
  return ip.groups.reduce((n, group) => (n << 16n) | BigInt(group), 0n);
}

/** The CIDR networks that cover start..end exactly, largest first from the start. */
function networksOf(family: Family, start: bigint, end: bigint): string[] {
  const bits = family === 4 ? 32 : 128;
  const out: string[] = [];
  let at = start;
  while (at <= end) {
    let size = 0;
    // the largest aligned block at `at` that ends at or before `end`
    while (size < bits && (at & ((1n << BigInt(size + 1)) - 1n)) === 0n) {
      if (at + (1n << BigInt(size + 1)) - 1n > end) break;
      size++;
    }
    out.push(`${addressText(family, at)}/${bits - size}`);
    at += 1n << BigInt(size);
  }
  return out;
}

/** The slices `networks` (CIDR texts, IPv4 and IPv6) cover. */
export function slicesOf(networks: readonly string[]): Slice[] {
  const { v4, v6 } = cidrRanges(networks);
  return [
    ...v4.map((r) => ({ family: 4 as const, start: BigInt(r.start), end: BigInt(r.end) })),
    ...v6.map((r) => ({ family: 6 as const, start: r.start, end: r.end })),
  ];
}

/**
 * The city records of the real files' leaves that meet `slices` (each leaf
 * whole, as the file has it), walked leaf by leaf with the reader's own
 * prefix lengths.
 */
function cityNetworks(slices: readonly Slice[]): MmdbNetwork[] {
  const files = embeddedFiles();
  const readers = {
    4: new Reader<Record<string, string>>(readFileSync(files.cityV4)),
    6: new Reader<Record<string, string>>(readFileSync(files.cityV6)),
  };
  const seen = new Set<string>();
  const out: MmdbNetwork[] = [];
  for (const { family, start, end } of slices) {
    const bits = family === 4 ? 32 : 128;
    let at = start;
    while (at <= end) {
      const [record, length] = readers[family].getWithPrefixLength(addressText(family, at));
      const size = 1n << BigInt(bits - length);
      const first = at - (at % size);
      const network = `${addressText(family, first)}/${length}`;
      if (record !== null && !seen.has(network)) {
        seen.add(network);
        out.push({ network, data: record });
      }
      at = first + size;
    }
  }
  return out;
}

/**
 * The CSV's rows that start in the first octet (IPv4) or group (IPv6) of a
 * slice: the few that parsing all of the file's million rows (seconds) would
 * find, less a row that starts below that octet and runs into it.
 */
function rowsStartingIn(csv: string, family: Family, slices: readonly Slice[]): string {
  const shift = family === 4 ? 24n : 112n;
  const heads = new Set<number>();
  for (const { start, end } of slices) {
    for (let head = start >> shift; head <= end >> shift; head++) heads.add(Number(head));
  }
  const separator = family === 4 ? '.' : ':';
  const radix = family === 4 ? 10 : 16;
  return csv
    .split('\n')
    .filter((line) => heads.has(parseInt(line.slice(0, line.indexOf(separator)), radix)))
    .join('\n');
}

/** The ASN rows that meet `slices`, each whole, as the CIDR networks that cover it. */
function asnNetworks(slices: readonly Slice[]): MmdbNetwork[] {
  const files = embeddedFiles();
  const out: MmdbNetwork[] = [];
  for (const [family, file] of [
    [4, files.asnV4],
    [6, files.asnV6],
  ] as const) {
    const wanted = slices.filter((s) => s.family === family);
    const { rows } = parseAsnCsv(rowsStartingIn(readFileSync(file, 'utf8'), family, wanted));
    for (const row of rows) {
      if (row.start.version !== family) continue;
      const start = valueOf(row.start);
      const end = valueOf(row.end);
      if (!wanted.some((s) => s.start <= end && start <= s.end)) continue;
      const data = {
        autonomous_system_number: row.asn,
        ...(row.org === null ? {} : { autonomous_system_organization: row.org }),
      };
      for (const network of networksOf(family, start, end)) out.push({ network, data });
    }
  }
  return out;
}

/** GEOIP_DB and ASN_DB files in `dir` holding the real data's slices; their paths and sizes. */
export function writeSlicedData(
  dir: string,
  slices: readonly Slice[],
): { geoipDb: string; asnDb: string; cityNetworks: number; asnNetworks: number } {
  const city = cityNetworks(slices);
  const asn = asnNetworks(slices);
  const geoipDb = join(dir, 'city-slice.mmdb');
  const asnDb = join(dir, 'asn-slice.mmdb');
  // "city": ip-location-db's own name for its flat DB-IP City files
  writeFileSync(geoipDb, buildMmdb({ databaseType: 'city', networks: city }));
  writeFileSync(asnDb, buildMmdb({ databaseType: 'GeoLite2-ASN', networks: asn }));
  return { geoipDb, asnDb, cityNetworks: city.length, asnNetworks: asn.length };
}
