// MmdbGeoSource walks the tree and decodes apart (mmdb-lib internals) to
// memoise per record; without those internals (a future mmdb-lib) it falls
// back to the public get(). Both paths must give the same locations.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import type { Reader } from 'maxmind';
import { embeddedFiles } from '../../../src/lookups/geoip/embedded-data.js';
import { dbipMapper, MmdbGeoSource, openMmdb } from '../../../src/lookups/geoip/mmdb-sources.js';
import { parseIp } from '../../../src/net/ip.js';

/** The reader as a future mmdb-lib might expose it: get() and metadata only. */
function publicOnly(reader: Reader<object>): Reader<object> {
  return {
    get: (address: string) => reader.get(address),
    metadata: reader.metadata,
  } as Reader<object>;
}

describe('MmdbGeoSource', () => {
  let v4: Reader<object>;
  let v6: Reader<object>;
  before(() => {
    const files = embeddedFiles();
    v4 = openMmdb(readFileSync(files.cityV4));
    v6 = openMmdb(readFileSync(files.cityV6));
  });

  it('answers the same through the public get() as through the tree walk', () => {
    // a fixed "time zone" keeps this test about the lookup path, not about time zones
    const map = dbipMapper((lat, lon) => `tz(${lat},${lon})`);
    const internal = new MmdbGeoSource(v4, v6, map, 1_000);
    const fallback = new MmdbGeoSource(publicOnly(v4), publicOnly(v6), map, 1_000);
    const byte = () => Math.floor(Math.random() * 256);
    const addresses = ['8.8.8.8', '81.2.69.142', '2a02:8070::1', '2001:4860:4860::8888', '0.0.0.1'];
    for (let i = 0; i < 500; i++) addresses.push(`${byte()}.${byte()}.${byte()}.${byte()}`);
    let located = 0;
    for (const text of addresses) {
      const ip = parseIp(text);
      assert.ok(ip !== null, text);
      const want = internal.entry(ip);
      const got = fallback.entry(ip);
      assert.deepEqual(got, want, text);
      // the memoised entry comes back the same on a second lookup
      assert.equal(fallback.entry(ip), got, text);
      if (want !== null && want.location.country !== null) located++;
    }
    assert.ok(located > 100, `only ${located} addresses located`);
    assert.equal(internal.lookup(parseIp('8.8.8.8')!)?.country, 'US');
  });
});
