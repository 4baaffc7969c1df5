// The MMDB writer against mmdb-lib's reader (the `maxmind` package, which
// the compiler uses too): every value type and size class of the data
// section, pointers of every width, 24-, 28- and 32-bit tree records, the
// IPv4 subtree at ::/96 with its ::ffff:0:0/96 alias, and the metadata.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { Reader } from 'maxmind';
import { runCli } from '../../src/cli/run.js';
import { wordsOf } from '../../src/net/range-boundaries.js';
import {
  encodeStandalone,
  MmdbDataWriter,
  MmdbDouble,
  MmdbUint,
  type MmdbValue,
} from '../../src/export/mmdb-data.js';
import { ALIAS_TO_IPV4, buildTree, mmdbFileParts, NO_DATA } from '../../src/export/mmdb-tree.js';

const META = {
  databaseType: 'GeoIP2-City',
  languages: ['en'],
  description: { en: 'test' },
  buildEpoch: 1_800_000_000,
};

/** A file of IPv4 intervals [start, value] (numbers) and IPv6 ones (bigints) over `data`. */
function file(
  v4: [number, number][],
  v6: [bigint, number][],
  data: MmdbDataWriter,
  recordSize: 24 | 28 | 32 = 24,
) {
  const starts = wordsOf([
    ...v4.map(([s]) => BigInt(s)),
    1n << 32n,
    0xffffn << 32n,
    0x10000n << 32n,
    ...v6.map(([s]) => s),
  ]);
  const values = Uint32Array.from([
    ...v4.map(([, v]) => v),
    NO_DATA,
    ALIAS_TO_IPV4,
    NO_DATA,
    ...v6.map(([, v]) => v),
  ]);
  const tree = buildTree({ starts, values }, data.length, recordSize);
  return new Reader<Record<string, unknown>>(
    Buffer.concat(mmdbFileParts(tree, data.contents(), META)),
  );
}

/** A written value as mmdb-lib reads it back (uint64s stay bigints). */
function plain(v: MmdbValue): unknown {
  return v instanceof MmdbUint
    ? v.bits === 64
      ? v.value
      : Number(v.value)
    : v instanceof MmdbDouble
      ? v.value
      : Array.isArray(v)
        ? v.map(plain)
        : typeof v === 'object'
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
          : v;
}

describe('the data section', () => {
  it('writes every type and size class as mmdb-lib reads it, sharing repeated values', () => {
    const data = new MmdbDataWriter();
    const values: MmdbValue[] = [];
    // strings across the size classes (<29, <285, <65821, beyond) and non-ASCII
    for (const length of [0, 1, 28, 29, 284, 285, 65_820, 65_821, 70_000]) {
      values.push({ text: 'x'.repeat(length), name: 'Zürich 東京' });
    }
    values.push({
      u16: new MmdbUint(16, 65_535),
      u32: new MmdbUint(32, 4_294_967_295),
      u64: new MmdbUint(64, 2n ** 64n - 1n),
      zero: new MmdbUint(32, 0),
      d: new MmdbDouble(-0.0931),
      yes: true,
      no: false,
      list: ['a', ['b', { deep: 'c' }], []],
      empty: {},
    });
    // a repeated value far into the section: pointers of the 2-, 3- and 4-byte forms
    for (let i = 0; i < 40; i++)
      values.push({ filler: `${i}-${'y'.repeat(20_000)}`, shared: 'Zürich 東京' });
    // first written past 526,336 bytes: pointed at with the 4-byte form
    values.push({ first: 'a text written late' }, { again: 'a text written late' });
    const offsets = values.map((v) => data.write(v));
    assert.equal(data.write(values[0]!), offsets[0], 'a record written before is pointed at');
    const v4: [number, number][] = [[0, NO_DATA]];
    values.forEach((_, i) =>
      v4.push([0x01000000 + 256 * i, offsets[i]!], [0x01000000 + 256 * i + 1, NO_DATA]),
    );
    const reader = file(v4, [], data, 32);
    const at = (i: number) => reader.get(`1.0.${i}.0`);
    values.forEach((v, i) => {
      const got = at(i) as Record<string, unknown>;
      const want = plain(v) as Record<string, unknown>;
      if ('u64' in want) {
        assert.equal(String(got['u64']), String(want['u64']));
        delete got['u64'];
        delete want['u64'];
      }
      assert.deepEqual(got, want, `record ${i}`);
    });
    assert.equal(reader.get('1.0.0.1'), null);
  });

  it("a template's records read as whole maps: the shared members written once, each record's own member or none", () => {
    const data = new MmdbDataWriter();
    // far enough into the section that the template's pointers take their 3-byte form
    data.write({ filler: 'z'.repeat(3_000) });
    const place = Object.freeze({
      city: Object.freeze({ names: Object.freeze({ en: 'Zürich' }) }),
      country: Object.freeze({ iso_code: 'CH' }),
    });
    const template = data.template(place, 'location');
    assert.equal(template.count, 2);
    const locations: (MmdbValue | null)[] = [
      { latitude: new MmdbDouble(47.3769), longitude: new MmdbDouble(8.5417) },
      { latitude: new MmdbDouble(47.4), time_zone: 'Europe/Zurich' },
      null,
    ];
    const offsets: number[] = [];
    for (const location of locations) {
      const before = data.length;
      offsets.push(data.writeWith(template, location));
      const whole = location === null ? place : { ...place, location };
      assert.ok(
        data.length - before < encodeStandalone(whole).length,
        'the shared members are pointers, not copies',
      );
    }
    // no shared member at all: the record is its own member alone
    const bare = data.template({}, 'location');
    offsets.push(data.writeWith(bare, { time_zone: 'UTC' }));
    const reader = file(
      [
        [0, NO_DATA],
        ...offsets.map((offset, i): [number, number] => [0x01000000 + 256 * i, offset]),
      ],
      [],
      data,
    );
    locations.forEach((location, i) => {
      assert.deepEqual(
        reader.get(`1.0.${i}.0`),
        plain(location === null ? place : { ...place, location }),
        `record ${i}`,
      );
    });
    assert.deepEqual(reader.get('1.0.3.0'), { location: { time_zone: 'UTC' } });
  });
});

describe('the search tree', () => {
  for (const recordSize of [24, 28, 32] as const) {
    it(`${recordSize}-bit records: IPv4 as itself, as ::ffff:a.b.c.d and as ::a.b.c.d; IPv6`, () => {
      const data = new MmdbDataWriter();
      const a = data.write({ n: 'a' });
      const b = data.write({ n: 'b' });
      const c = data.write({ n: 'c' });
      const reader = file(
        [
          [0, NO_DATA],
          [0x08080800, a],
          [0x08080900, NO_DATA],
          [0xfffffffe, b],
        ],
        [
          [0x20010db8n << 96n, c],
          [(0x20010db8n << 96n) + (1n << 64n) + 5n, NO_DATA],
        ],
        data,
        recordSize,
      );
      assert.equal(reader.metadata.recordSize, recordSize);
      assert.equal(reader.metadata.databaseType, 'GeoIP2-City');
      assert.equal(reader.metadata.ipVersion, 6);
      for (const ip of ['8.8.8.8', '::ffff:8.8.8.255', '::8.8.8.0']) {
        assert.deepEqual(reader.get(ip), { n: 'a' }, ip);
      }
      assert.equal(reader.get('8.8.9.0'), null);
      assert.equal(reader.get('8.8.7.255'), null);
      assert.deepEqual(reader.get('255.255.255.255'), { n: 'b' });
      assert.deepEqual(reader.get('2001:db8::1'), { n: 'c' });
      assert.deepEqual(
        reader.get('2001:db8:0:1::4'),
        { n: 'c' },
        'the last address before the end',
      );
      assert.equal(reader.get('2001:db8:0:1::5'), null);
      assert.equal(reader.get('2001:db7::1'), null);
    });
  }
});

describe('ipintel export', () => {
  const usage = async (args: string[]) => {
    let errors = '';
    const stderr = new PassThrough();
    stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const outcome = await runCli(args, {
      env: {},
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr,
    });
    return { outcome, errors };
  };

  it('without --out: usage, exit 2', async () => {
    const { outcome, errors } = await usage(['export']);
    assert.deepEqual(outcome, { code: 2 });
    assert.match(errors, /export needs --out DIR/);
  });

  it('--only with a file it does not write: usage, exit 2', async () => {
    const { outcome, errors } = await usage([
      'export',
      '--out',
      '/nonexistent',
      '--only',
      'city,geo',
    ]);
    assert.deepEqual(outcome, { code: 2 });
    assert.match(errors, /--only takes city,asn,anonymous-ip,csv/);
  });
});
