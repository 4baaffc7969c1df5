// IP2Location LITE DB11's CSV rows (compile/db11.ts): each documented field
// mapped, "-" and 0,0 read as unknown, the zone resolved from the point (the
// file's own time_zone is a UTC offset), hostile lines refused with a reason;
// the rows of a whole file into gapless segments of both families, the IPv6
// file's IPv4-mapped rows left to the IPv4 file; a ZIP read line by line.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  DB11_ENTRIES,
  SegmentsBuilder,
  db11Row,
  readDb11,
} from '../../../src/lookups/geoip/compile/db11.js';
import { AnswerSet } from '../../../src/lookups/geoip/compile/layers.js';
import {
  notZip,
  zipEntryInfo,
  zipEntryLines,
} from '../../../src/lookups/geoip/compile/zip-file.js';
import { NONE } from '../../../src/data/range-table.js';
import { db11Csv, v4, v6, zipOf, type Db11Place } from '../../helpers/db11-release.js';

const zone = (latitude: number, longitude: number) => `Zone/${latitude},${longitude}`;

describe('db11Row: one CSV line', () => {
  const cases: { line: string; want: ReturnType<typeof db11Row> }[] = [
    {
      line: '"1359103232","1359103487","GB","United Kingdom of Great Britain and Northern Ireland","England","London","51.508530","-0.125740","EC1A","+01:00"',
      want: {
        from: 1359103232n,
        to: 1359103487n,
        location: {
          country: 'GB',
          region: 'England',
          city: 'London',
          latitude: 51.5085,
          longitude: -0.1257,
          timezone: 'Zone/51.5085,-0.1257',
        },
      },
    },
    // an unassigned range: no answer
    {
      line: '"0","16777215","-","-","-","-","0.000000","0.000000","-","-"',
      want: { from: 0n, to: 16777215n, location: null },
    },
    // a country without a point: no coordinates, no zone
    {
      line: '"16777216","16777471","AU","Australia","-","-","0.000000","0.000000","-","+10:00"',
      want: {
        from: 16777216n,
        to: 16777471n,
        location: {
          country: 'AU',
          region: null,
          city: null,
          latitude: null,
          longitude: null,
          timezone: null,
        },
      },
    },
    // a 128-bit IPv6 bound
    {
      line: '"340282366920938463463374607431768211455","340282366920938463463374607431768211455","-","-","-","-","0.000000","0.000000","-","-"',
      want: { from: 2n ** 128n - 1n, to: 2n ** 128n - 1n, location: null },
    },
    { line: '"1","2","GB"', want: "3 fields, not DB11's 10" },
    { line: '"x","2","GB","a","b","c","1","2","-","-"', want: 'ip_from/ip_to not decimal' },
    { line: '"9","2","GB","a","b","c","1","2","-","-"', want: 'ip_to before ip_from' },
    {
      line: '"1","2","GB"x,"a"',
      want: 'text after a closing quote (a quote inside a field is written "")',
    },
    { line: '"-1","2","GB","a","b","c","1","2","-","-"', want: 'ip_from/ip_to not decimal' },
  ];
  for (const { line, want } of cases) {
    it(`${line.slice(0, 60)} → ${typeof want === 'string' ? want : 'a row'}`, () =>
      assert.deepEqual(db11Row(line, zone), want));
  }
});

describe('SegmentsBuilder: rows in address order into gapless segments', () => {
  it('a gap reads as no answer; equal neighbours are one segment; the rest of the space none', () => {
    const b = new SegmentsBuilder(1);
    b.add(0n, 99n, 0);
    b.add(100n, 199n, 0);
    b.add(300n, 399n, 1);
    const s = b.finish();
    assert.deepEqual([...s.starts], [0, 200, 300, 400]);
    assert.deepEqual([...s.values], [0, NONE, 1, NONE]);
  });

  it('IPv6 starts are four words, most significant first', () => {
    const b = new SegmentsBuilder(4);
    b.add(v6('2e00::'), v6('2e00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 3);
    const s = b.finish();
    assert.deepEqual([...s.starts], [0, 0, 0, 0, 0x2e000000, 0, 0, 0, 0x2e010000, 0, 0, 0]);
    assert.deepEqual([...s.values], [NONE, 3, NONE]);
  });

  it('an overlap (rows out of order) and a range past the space are refused', () => {
    const b = new SegmentsBuilder(1);
    b.add(0n, 99n, 0);
    assert.throws(() => b.add(50n, 60n, 0), /overlaps/);
    assert.throws(() => new SegmentsBuilder(1).add(0n, 1n << 32n, 0), /past the address space/);
  });
});

const place = (from: bigint, to: bigint, country: string, city: string): Db11Place => ({
  from,
  to,
  country,
  countryName: `Country ${country}`,
  region: 'Region',
  city,
  latitude: 52.37403,
  longitude: 4.88969,
  zip: '1000',
  offset: '+01:00',
});

describe('a whole file, through its ZIP', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ipintel-db11-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the IPv6 file: its own rows kept, its IPv4-mapped rows left to the IPv4 file', async () => {
    const csv = db11Csv(
      [
        place(v6('::ffff:5102:4500'), v6('::ffff:5102:45ff'), 'GB', 'London'),
        place(v6('2e00::'), v6('2e00:ffff:ffff:ffff:ffff:ffff:ffff:ffff'), 'NL', 'Amsterdam'),
      ],
      6,
    );
    const path = join(dir, 'v6.zip');
    writeFileSync(path, await zipOf(DB11_ENTRIES.v6, csv));
    assert.equal(await notZip(path), null);
    assert.equal(
      (await zipEntryInfo(path, DB11_ENTRIES.v6))?.modifiedAt,
      '2026-11-01T00:00:00.000Z',
    );
    const set = new AnswerSet();
    const builder = new SegmentsBuilder(4);
    const counts = await readDb11(zipEntryLines(path, DB11_ENTRIES.v6), 6, builder, set, zone);
    assert.deepEqual(counts, { rows: 5, rejected: 0, firstProblem: null });
    assert.deepEqual(
      set.answers.map((a) => a.city),
      ['Amsterdam'],
    );
    assert.deepEqual([...builder.finish().values], [NONE, 0, NONE]);
  });

  it('a text body is no ZIP: its first line says why', async () => {
    const path = join(dir, 'refused.zip');
    writeFileSync(path, 'NO PERMISSION\r\n');
    assert.equal(await notZip(path), 'NO PERMISSION');
  });

  it('a rejected row is counted with its line; the others are read', async () => {
    const text = `${db11Csv([place(v4('81.2.69.0'), v4('81.2.69.255'), 'GB', 'London')], 4)}"oops"\r\n`;
    const path = join(dir, 'v4.zip');
    writeFileSync(path, await zipOf(DB11_ENTRIES.v4, text));
    const counts = await readDb11(
      zipEntryLines(path, DB11_ENTRIES.v4),
      4,
      new SegmentsBuilder(1),
      new AnswerSet(),
      zone,
    );
    assert.deepEqual(counts, {
      rows: 3,
      rejected: 1,
      firstProblem: "line 4: 1 fields, not DB11's 10",
    });
  });
});
