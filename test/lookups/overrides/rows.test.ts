// The overrides file's parser and checks: RFC 4180 quoting, every problem
// with its line number, hostile bytes refused rather than thrown on.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCsv } from '../../../src/data/csv.js';
import { parseOverridesInSlices } from '../../../src/lookups/overrides/rows.js';

/** the service's parse, with no pause between its slices */
const parseOverrides = (text: string) => parseOverridesInSlices(text, () => Promise.resolve());

describe('parseCsv (RFC 4180)', () => {
  const table: { input: string; want: { line: number; fields: string[] }[] }[] = [
    {
      input: 'a,b\r\n1,2\r\n',
      want: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    },
    // a bare LF, no final line break, a blank line skipped
    {
      input: 'a,b\n\n1,2',
      want: [
        { line: 1, fields: ['a', 'b'] },
        { line: 3, fields: ['1', '2'] },
      ],
    },
    // quotes: a comma, a doubled quote, a line break inside; the next record's line counts it
    {
      input: '"x, y","say ""hi""","two\nlines"\nz,,',
      want: [
        { line: 1, fields: ['x, y', 'say "hi"', 'two\nlines'] },
        { line: 3, fields: ['z', '', ''] },
      ],
    },
    // a byte-order mark is not part of the first name
    { input: '\ufeffnetwork\n', want: [{ line: 1, fields: ['network'] }] },
  ];
  for (const { input, want } of table) {
    it(`parses ${JSON.stringify(input)}`, () => {
      const result = parseCsv(input);
      assert.deepEqual(result.problems, []);
      assert.deepEqual(result.records, want);
    });
  }

  const broken: { input: string; line: number; reason: RegExp }[] = [
    { input: 'a\n"never closed', line: 2, reason: /never closed/ },
    { input: 'a\n"x"y,1', line: 2, reason: /after a closing quote/ },
    { input: 'a\nx"y', line: 2, reason: /quote inside an unquoted field/ },
  ];
  for (const { input, line, reason } of broken) {
    it(`refuses ${JSON.stringify(input)} at line ${line}`, () => {
      const [problem] = parseCsv(input).problems;
      assert.equal(problem?.line, line);
      assert.match(problem?.reason ?? '', reason);
    });
  }
});

describe('parseOverridesInSlices', () => {
  it('reads every column, in any order, with the values of their kinds', async () => {
    const { rows, problems } = await parseOverrides(
      [
        'network,label,isMobile,asn,timezone,latitude,longitude,country,region,city,org,isp,isVpn,isProxy,isHosting,provider',
        '192.0.2.0/24,lab,FALSE,AS64500,Europe/Berlin,52.520008,-13.4,de,Berlin,Berlin,Org,Isp,true,false,True,Acme VPN',
        '2001:DB8::/32,,,,,,,,,,,,,,,',
      ].join('\n'),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(rows[0], {
      line: 2,
      cidr: rows[0]!.cidr,
      label: 'lab',
      fields: {
        isMobile: false,
        asn: 64500,
        timezone: 'Europe/Berlin',
        latitude: 52.52, // the data's precision: 4 decimals
        longitude: -13.4,
        country: 'DE',
        region: 'Berlin',
        city: 'Berlin',
        org: 'Org',
        isp: 'Isp',
        isVpn: true,
        isProxy: false,
        isHosting: true,
        provider: 'Acme VPN',
      },
    });
    assert.equal(rows[0].cidr.text, '192.0.2.0/24');
    // no label: the network names the row; nothing set is nothing overridden
    assert.deepEqual(
      { label: rows[1]!.label, fields: rows[1]!.fields },
      {
        label: '2001:db8::/32',
        fields: {},
      },
    );
  });

  it('reports every bad line with its number and reason, and keeps no row', async () => {
    const { rows, problems } = await parseOverrides(
      [
        'network,country,latitude,asn,isVpn,timezone',
        '10.0.0.0/8,DE,,,,', // good
        '10.0.0.0/33,,,,,', // 3
        '10.1.0.0,,,,,', // 4: a bare address is not a range here
        '10.2.0.0/16,XX,200,AS-1,yes,Mars/Base', // 5: five problems
        '10.3.0.0/16,,,', // 6: too few fields
        '10.0.0.0/8,FR,,,,', // 7: the same network again
        '10.4.0.0/16,EU,,4294967296,,', // 8
      ].join('\n'),
    );
    assert.equal(rows.length, 1);
    assert.deepEqual(
      problems.map((p) => p.line),
      [3, 4, 5, 5, 5, 5, 5, 6, 7, 8, 8],
    );
    const text = problems.map((p) => `${p.line}: ${p.reason}`).join('\n');
    for (const want of [
      /3: "10\.0\.0\.0\/33" is not a CIDR range/,
      /5: country: "XX" is not an ISO 3166-1/,
      /5: latitude: "200" is not a number from -90 to 90/,
      /5: asn: "AS-1" is not an AS number/,
      /5: isVpn: "yes" is not true or false/,
      /5: timezone: "Mars\/Base" is not an IANA time zone/,
      /6: 4 fields where the header has 6/,
      /7: 10\.0\.0\.0\/8 is given on line 2 too/,
      /8: country: "EU"/,
      /8: asn: "4294967296"/,
    ]) {
      assert.match(text, want);
    }
  });

  it('refuses a header that does not start with network, an unknown or a repeated column', async () => {
    const table = [
      { header: 'cidr,city', reason: /first column must be "network"/ },
      { header: 'network,colour', reason: /unknown column "colour"/ },
      { header: 'network,city,city', reason: /column "city" is given twice/ },
    ];
    for (const { header, reason } of table) {
      const { problems } = await parseOverrides(`${header}\n`);
      assert.equal(problems[0]?.line, 1, header);
      assert.match(problems[0]?.reason ?? '', reason);
    }
  });

  it('an empty file or a header alone is no overrides, not an error', async () => {
    assert.deepEqual(await parseOverrides(''), { rows: [], problems: [] });
    assert.deepEqual(await parseOverrides('network,city\r\n'), { rows: [], problems: [] });
  });

  it('hostile bytes are problems, never a throw', async () => {
    const table = [
      'network,city\n10.0.0.0/8,a\u0000b\n',
      'network,city\n10.0.0.0/8,' + 'x'.repeat(201) + '\n',
      'network,latitude\n10.0.0.0/8,1e3\n',
      'network,latitude\n10.0.0.0/8,NaN\n',
      'network,city\n\u{1F600}/8,x\n',
      'network,city\n10.0.0.0/8,"\n',
    ];
    for (const input of table) {
      const { rows, problems } = await parseOverrides(input);
      assert.equal(rows.length, 0, input);
      assert.equal(problems[0]?.line, 2, input);
    }
  });
});

describe('a large file', () => {
  it('is read in slices, pausing between them, every row kept in file order', async () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => `10.${i >> 8}.${i & 255}.0/24,c${i}`);
    let pauses = 0;
    const { rows, problems } = await parseOverridesInSlices(
      ['network,city', ...lines].join('\n'),
      () => {
        pauses++;
        return Promise.resolve();
      },
    );
    assert.deepEqual(problems, []);
    assert.equal(rows.length, 5_000);
    assert.equal(rows[4_999]!.fields.city, 'c4999');
    assert.equal(rows[4_999]!.line, 5_001);
    assert.ok(pauses >= 2, `${pauses} pauses for 5 000 rows`);
  });
});

describe('the example of docs/overrides.md', () => {
  it('is a file the service takes', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../../docs/overrides.md', import.meta.url), 'utf8');
    const example = /```csv\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const { rows, problems } = await parseOverrides(example);
    assert.deepEqual(problems, []);
    assert.equal(rows.length, 5);
  });
});
