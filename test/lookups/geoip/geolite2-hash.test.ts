// The GeoLite2 City file's SHA-256 names the location table compiled with
// it; hashing a full copy (~60 MB) at every start and reload cost ~0.2 s, so
// it is remembered in the tables' folder with the file's change stamp: an
// unchanged file is taken at its recorded hash (stat'ed, not read), a
// changed one is hashed again. Real files on disk, no mock.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { geolite2Input } from '../../../src/lookups/geoip/compile/compile-sources.js';
import { buildMmdb, cityRecord } from '../../helpers/mmdb-writer.js';

const dir = mkdtempSync(join(tmpdir(), 'ipintel-geolite2-hash-'));
const tables = join(dir, 'tables');
mkdirSync(tables);
const path = join(dir, 'GeoLite2-City.mmdb');
const memo = join(tables, 'geolite2-city.hash.json');
after(() => rmSync(dir, { recursive: true, force: true }));

const city = (name: string) =>
  buildMmdb({
    databaseType: 'GeoLite2-City',
    networks: [{ network: '81.2.69.0/24', data: cityRecord({ country: 'GB', city: name }) }],
  });
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('the GeoLite2 file hash, remembered by change stamp', () => {
  it('is hashed once and recorded; an unchanged file is then taken at its recorded hash', async () => {
    const first = city('London');
    writeFileSync(path, first);
    assert.equal((await geolite2Input(path, tables)).file.sha256, sha256(first));
    const recorded = JSON.parse(readFileSync(memo, 'utf8')) as { sha256: string }[];
    assert.equal(recorded[0]?.sha256, sha256(first));
    // the record is what answers while the stamp holds: the file is not read to hash it
    writeFileSync(memo, JSON.stringify([{ ...recorded[0], sha256: 'f'.repeat(64) }]));
    assert.equal((await geolite2Input(path, tables)).file.sha256, 'f'.repeat(64));
  });

  it('a replaced file is hashed again; the source it compiles from is the file on disk', async () => {
    const next = city('Manchester');
    writeFileSync(join(dir, 'next.mmdb'), next);
    // replaced as an update does, by a rename (a new inode)
    renameSync(join(dir, 'next.mmdb'), path);
    const input = await geolite2Input(path, tables);
    assert.equal(input.file.sha256, sha256(next));
    assert.equal(input.file.bytes, next.length);
    assert.match((await input.source()).info.name, /GeoLite2 City \(GeoLite2-City\)/);
  });

  it('a missing file is refused, naming the variable', async () => {
    await assert.rejects(
      geolite2Input(join(dir, 'absent.mmdb'), tables),
      /GEOLITE2_CITY_DB: cannot open/,
    );
  });
});
