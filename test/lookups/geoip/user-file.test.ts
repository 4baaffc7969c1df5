// An operator's GEOIP_DB/ASN_DB is compiled the first time it is seen and
// kept under its SHA-256: the next load reads the tables; a kept file that is
// damaged is compiled again; a cache folder that cannot be written falls back
// to the OS temp folder; a file of the wrong kind is a DataError. With
// GEOLITE2_CITY_DB, the GeoLite2 file is only hashed to find kept tables: it
// is opened as an MMDB (and refused when it is not one) only to compile.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import {
  DataError,
  geolite2Input,
  loadUserFile,
  sha256File,
} from '../../../src/lookups/geoip/compile/compile-sources.js';
import { ip } from '../../helpers/addresses.js';
import { buildMmdb, cityRecord } from '../../helpers/mmdb-writer.js';

/** A logger whose messages the test can read. */
function recordingLog(): { log: pino.Logger; messages: string[] } {
  const messages: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        messages.push((JSON.parse(line) as { msg: string }).msg);
      }
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), messages };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

let dir: string;
let city: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-user-file-'));
  city = join(dir, `city-${process.pid}-${Date.now()}.mmdb`);
  await writeFile(
    city,
    buildMmdb({
      databaseType: 'GeoLite2-City',
      // a build date of this run: no tables kept by an earlier run have this SHA-256
      buildEpoch: Math.floor(Date.now() / 1000) + process.pid,
      networks: [{ network: '81.2.69.0/24', data: cityRecord({ country: 'GB', city: 'London' }) }],
    }),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

function options(cacheDir: string) {
  return { kind: 'geoip' as const, path: city, variable: 'GEOIP_DB', cacheDir };
}

describe('loadUserFile', () => {
  it('compiles once, keeps the tables under the SHA-256, and reads them the next time', async () => {
    const cacheDir = join(dir, 'cache');
    const first = recordingLog();
    const compiled = await loadUserFile(options(cacheDir), first.log);
    await settle();
    assert.ok(first.messages.includes('GEOIP_DB compiled'), first.messages.join('; '));
    const sha = sha256File(city).sha256;
    assert.deepEqual(await readdir(cacheDir), [`geoip-${sha.slice(0, 16)}.tables`]);
    assert.equal(compiled.manifest.source.files[0]?.sha256, sha);

    const second = recordingLog();
    const cached = await loadUserFile(options(cacheDir), second.log);
    await settle();
    assert.deepEqual(second.messages, [], 'nothing compiled the second time');
    const london = ip('81.2.69.142');
    assert.ok(london.version === 4);
    const index = cached.table.findV4(london.value);
    assert.equal(cached.records.text(cached.locations!.place(index)).includes('"London"'), true);
  });

  it('a damaged kept file is compiled again and replaced', async () => {
    const cacheDir = join(dir, 'damaged');
    await loadUserFile(options(cacheDir), recordingLog().log);
    const [name] = await readdir(cacheDir);
    await writeFile(join(cacheDir, name!), 'not tables any more');
    const again = recordingLog();
    await loadUserFile(options(cacheDir), again.log);
    await settle();
    assert.ok(again.messages.includes('GEOIP_DB compiled'), again.messages.join('; '));
    // the replacement reads as tables again
    const third = recordingLog();
    await loadUserFile(options(cacheDir), third.log);
    await settle();
    assert.deepEqual(third.messages, []);
  });

  it('a cache folder that cannot be written: the tables go to the OS temp folder, with a warning', async () => {
    const blocker = join(dir, 'a-file');
    await writeFile(blocker, 'a file where a folder should be');
    const logged = recordingLog();
    const set = await loadUserFile(options(join(blocker, 'tables')), logged.log);
    await settle();
    const kept = join(
      tmpdir(),
      'ipintel-tables',
      `geoip-${set.manifest.source.files[0]!.sha256.slice(0, 16)}.tables`,
    );
    try {
      assert.ok(
        logged.messages.includes('could not keep the compiled tables; trying elsewhere'),
        logged.messages.join('; '),
      );
      assert.ok(existsSync(kept), kept);
    } finally {
      await rm(kept, { force: true });
    }
  });

  it('a file of the other kind, or no file: DataError naming the variable', async () => {
    const asn = join(dir, 'asn.mmdb');
    await writeFile(asn, buildMmdb({ databaseType: 'GeoLite2-ASN', networks: [] }));
    await assert.rejects(
      loadUserFile({ ...options(join(dir, 'kinds')), path: asn }, recordingLog().log),
      (error: unknown) =>
        error instanceof DataError && /^GEOIP_DB: database type "GeoLite2-ASN"/.test(error.message),
    );
    await mkdir(join(dir, 'kinds'), { recursive: true });
    await assert.rejects(
      loadUserFile(
        { ...options(join(dir, 'kinds')), path: join(dir, 'missing.mmdb') },
        recordingLog().log,
      ),
      (error: unknown) =>
        error instanceof DataError && /^GEOIP_DB: cannot open/.test(error.message),
    );
  });

  it('GEOLITE2_CITY_DB: hashed to find kept tables, opened as an MMDB only to compile', async () => {
    // a text file: reading and hashing it is all that is done until it is compiled with
    const text = join(dir, 'not-an-mmdb.txt');
    await writeFile(text, 'not an MMDB file');
    const lazy = await geolite2Input(text);
    assert.equal(lazy.files[0]?.sha256, sha256File(text).sha256);
    await assert.rejects(
      lazy.source(),
      (error: unknown) =>
        error instanceof DataError &&
        /^GEOLITE2_CITY_DB: cannot open .* as an MMDB file/.test(error.message),
    );
    await assert.rejects(
      geolite2Input(join(dir, 'missing.mmdb')),
      (error: unknown) =>
        error instanceof DataError && /^GEOLITE2_CITY_DB: cannot open/.test(error.message),
    );
    // a City file as GeoLite2: compiled with once, then the kept tables answer
    const cacheDir = join(dir, 'with-geolite2');
    const first = recordingLog();
    const compiled = await loadUserFile({ ...options(cacheDir), geolite2: city }, first.log);
    await settle();
    assert.ok(first.messages.includes('GEOIP_DB compiled'), first.messages.join('; '));
    assert.ok(compiled.manifest.location?.sources.some((source) => source.id === 'geolite2'));
    const second = recordingLog();
    const kept = await loadUserFile({ ...options(cacheDir), geolite2: city }, second.log);
    await settle();
    assert.deepEqual(second.messages, [], 'nothing compiled the second time');
    assert.deepEqual(kept.manifest, compiled.manifest);
  });
});
