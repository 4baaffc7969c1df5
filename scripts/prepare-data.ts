// Compiles the embedded data sets into the installation's tables (tables/,
// beside the code), once, at `npm install` (the `prepare` script) or by hand
// with `npm run prepare-data`:
//  1. the time zone of every distinct DB-IP location, resolved with geo-tz's
//     full boundary data (exact polygons; the default "alike since 1970" data
//     would answer Europe/Berlin for Oslo) — DB-IP Lite carries no time zone;
//  2. the GeoIP and ASN range tables with their record fragments.
// Each step is skipped when its output was made from the same source files.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  INSTALLED_TABLES_DIR,
  TIMEZONE_INDEX_FILE,
  compileEmbedded,
  sha256File,
} from '../src/lookups/geoip/compile/compile-sources.js';
import { embeddedFiles } from '../src/lookups/geoip/embedded-data.js';
import { scanRecords } from './geoip/mmdb-scan.js';
import { TimezoneIndex, locationKey } from '../src/lookups/geoip/timezone.js';

const log = pino({ level: 'info' }, pino.destination(2));

async function buildTimezoneIndex(dir: string): Promise<TimezoneIndex> {
  const path = join(dir, TIMEZONE_INDEX_FILE);
  const files = embeddedFiles();
  const stamp = [files.cityV4, files.cityV6].map((f) => sha256File(f).sha256).join(',');
  try {
    const index = TimezoneIndex.deserialize(readFileSync(path), stamp);
    if (index !== null) {
      log.info({ path }, 'time-zone index is current');
      return index;
    }
  } catch {
    // missing: built below
  }
  const { find } = await import('geo-tz/all');
  const started = performance.now();
  const points = new Map<number, [number, number]>();
  for (const file of [files.cityV4, files.cityV6]) {
    for (const record of scanRecords(readFileSync(file))) {
      const r = record as { latitude?: unknown; longitude?: unknown } | null;
      if (typeof r?.latitude === 'number' && typeof r.longitude === 'number') {
        points.set(locationKey(r.latitude, r.longitude), [r.latitude, r.longitude]);
      }
    }
  }
  log.info({ locations: points.size }, 'resolving the time zone of every DB-IP location');
  const entries: [number, string][] = [];
  let done = 0;
  for (const [key, [latitude, longitude]] of points) {
    const zone = find(latitude, longitude)[0];
    if (zone !== undefined) entries.push([key, zone]);
    if (++done % 100_000 === 0) log.info({ done, of: points.size }, 'time zones');
  }
  const index = TimezoneIndex.fromEntries(entries);
  writeFileSync(`${path}.tmp`, index.serialize(stamp));
  renameSync(`${path}.tmp`, path);
  log.info(
    { path, entries: index.size, seconds: Math.round((performance.now() - started) / 100) / 10 },
    'time-zone index written',
  );
  return index;
}

mkdirSync(INSTALLED_TABLES_DIR, { recursive: true });
const timezones = await buildTimezoneIndex(INSTALLED_TABLES_DIR);
const result = await compileEmbedded(INSTALLED_TABLES_DIR, timezones, log);
log.info(
  {
    dir: INSTALLED_TABLES_DIR,
    geoip: result.geoip.manifest.counts,
    asn: result.asn.manifest.counts,
    rebuilt: result.rebuilt,
  },
  'compiled tables ready',
);
