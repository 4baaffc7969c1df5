// Real-format GeoIP/ASN releases for the updater tests, small enough to
// compile in a blink: ip-location-db's flat DB-IP City MMDB and ASN CSV,
// DB-IP's GeoIP2-layout Lite MMDB, MaxMind's tar.gz, each with the
// publisher's checksum file, served by the loopback feed server.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from 'tar';
import type { SourceSettings } from '../../src/lookups/geoip/update/source-settings.js';
import { readTableManifest } from '../../src/data/table-file.js';
import type { Manifest } from '../../src/lookups/geoip/compiled-set.js';
import {
  updateGeoData,
  type GeoUpdateOptions,
  type GeoUpdateResult,
} from '../../src/lookups/geoip/update/geo-updater.js';
import type { FeedServer } from './feed-server.js';
import { buildMmdb, cityRecord, type MmdbNetwork } from './mmdb-writer.js';

export const ADDRESS = '81.2.69.142';

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `count` other /16s with a record each, so a release has some size to compare */
function filler(count: number, data: MmdbNetwork['data']): MmdbNetwork[] {
  return Array.from({ length: count }, (_, i) => ({ network: `${i + 11}.1.0.0/16`, data }));
}

/** ip-location-db's flat DB-IP City layout (coordinates as strings). */
export function flatCity(
  city: string,
  country: string,
  options: { others?: number; builtAt?: string; point?: [number, number] } = {},
): Buffer {
  const [latitude, longitude] = options.point ?? [51.5, -0.1];
  const record = (name: string) => ({
    city: name,
    country_code: country,
    state1: 'Somewhere',
    latitude: String(latitude),
    longitude: String(longitude),
  });
  return buildMmdb({
    databaseType: 'DBIP-City-Lite',
    buildEpoch: Date.parse(options.builtAt ?? '2026-11-20T00:00:00Z') / 1000,
    networks: [
      { network: '81.2.69.0/24', data: record(city) },
      ...filler(options.others ?? 20, record('Elsewhere')),
    ],
  });
}

/** ip-location-db's ASN CSV: start,end,asn,"organisation". */
export function asnCsv(asn: number, org: string, others = 20): string {
  const rows = [`81.2.69.0,81.2.69.255,${asn},"${org}"`];
  for (let i = 0; i < others; i++)
    rows.push(`${i + 11}.1.0.0,${i + 11}.1.255.255,64500,"Filler Networks"`);
  return `${rows.join('\n')}\n`;
}

/** DB-IP's own Lite City MMDB: the GeoIP2 layout, no time zone. */
export function geoip2City(city: string, country: string, others = 20): Buffer {
  const record = (name: string) =>
    cityRecord({ country, city: name, latitude: 48.85, longitude: 2.35 });
  return buildMmdb({
    databaseType: 'DBIP-City-Lite',
    networks: [
      { network: '81.2.69.0/24', data: record(city) },
      ...filler(others, record('Elsewhere')),
    ],
  });
}

/** Serves `files` at /latest/<name> with /checksum/<name>.sha256 ("<hex>  <name>"). */
export function publish(server: FeedServer, files: Record<string, Buffer | string>): void {
  for (const [name, body] of Object.entries(files)) {
    server.route(`/latest/${name}`, { body, type: 'application/octet-stream' });
    server.route(`/checksum/${name}.sha256`, { body: `${sha256(body)}  ${name}\n` });
  }
}

/** An ip-location-db release of both data sets. */
export function publishRelease(server: FeedServer, city: Buffer, asn: string): void {
  publish(server, {
    'dbip-city-ipv4.mmdb': city,
    'dbip-city-ipv6.mmdb': city,
    'origin-asn-ipv4.csv': asn,
    'origin-asn-ipv6.csv': '',
  });
}

/** MaxMind's download: a tar.gz holding <edition>_<date>/<edition>.mmdb. */
export async function maxmindTarGz(edition: string, mmdb: Buffer): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-tar-'));
  try {
    const folder = `${edition}_20261124`;
    mkdirSync(join(dir, folder));
    writeFileSync(join(dir, folder, `${edition}.mmdb`), mmdb);
    writeFileSync(join(dir, folder, 'LICENSE.txt'), 'test licence\n');
    const file = join(dir, 'out.tar.gz');
    await create({ gzip: true, cwd: dir, file }, [folder]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function loopbackSettings(
  server: FeedServer,
  over: Partial<SourceSettings> = {},
): SourceSettings {
  return {
    source: 'ip-location-db',
    baseUrl: server.url('/latest'),
    checksumBaseUrl: server.url('/checksum'),
    asnSet: 'origin-asn',
    dbipBaseUrl: server.url('/dbip'),
    maxmindBaseUrl: server.url('/maxmind'),
    maxmind: null,
    ...over,
  };
}

/**
 * Both data sets of the release `server` publishes compiled into `dataDir`
 * with no current data to compare with: a DATA_DIR as a previous update left it.
 */
export function updateFromLoopback(
  server: FeedServer,
  dataDir: string,
  over: Partial<GeoUpdateOptions> = {},
): Promise<GeoUpdateResult[]> {
  return updateGeoData({
    dataDir,
    settings: loopbackSettings(server),
    kinds: ['geoip', 'asn'],
    current: () => null,
    timeoutMs: 5_000,
    maxBytes: 1 << 24,
    ...over,
  });
}

/** How many compiled tables in DATA_DIR/tables were made from `copy` (an opt-in source's file). */
export function tablesFrom(dataDir: string, copy: Buffer): number {
  const tables = join(dataDir, 'tables');
  return readdirSync(tables)
    .filter((name) => name.endsWith('.tables'))
    .map((name) => readTableManifest<Manifest>(join(tables, name)))
    .filter((m) => m?.source.files.some((f) => f.sha256 === sha256(copy))).length;
}
