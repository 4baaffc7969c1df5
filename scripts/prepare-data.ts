// Derives the fast run-time tables from the embedded data sets, once, at
// `npm install` (the `prepare` script) or by hand with `npm run prepare-data`:
//  - the ASN table in binary form (the CSV takes ~1 s to parse at start-up);
//  - the time zone of every distinct DB-IP location, resolved with geo-tz's
//    full boundary data (exact polygons; the default "alike since 1970" data
//    would answer Europe/Berlin for Oslo).
// Both files are stamped with their sources, so a data update rebuilds them.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { TIMEZONE_INDEX_FILE, embeddedFiles } from '../src/lookups/geoip/embedded-data.js';
import { loadEmbeddedAsnTable, timezoneIndexStamp } from '../src/lookups/geoip/load.js';
import { scanRecords } from '../src/lookups/geoip/mmdb-scan.js';
import { TimezoneIndex, locationKey } from '../src/lookups/geoip/timezone.js';

const log = pino({ level: 'info' }, pino.destination(2));

async function buildTimezoneIndex(dataDir: string): Promise<void> {
  const path = join(dataDir, TIMEZONE_INDEX_FILE);
  const stamp = timezoneIndexStamp();
  try {
    if (TimezoneIndex.deserialize(readFileSync(path), stamp)) {
      log.info({ path }, 'time-zone index is current');
      return;
    }
  } catch {
    // missing: built below
  }
  const { find } = await import('geo-tz/all');
  const started = performance.now();
  const points = new Map<number, [number, number]>();
  const files = embeddedFiles();
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
}

const config = loadConfig(process.env);
mkdirSync(config.dataDir, { recursive: true });
const table = await loadEmbeddedAsnTable(config.dataDir, log);
log.info({ ranges: table.size }, 'ASN table ready');
await buildTimezoneIndex(config.dataDir);
