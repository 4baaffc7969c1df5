// ip-location-db's ASN CSV: RFC 4180 quoting, bad rows counted not fatal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAsnCsv, splitCsvLine } from '../../../src/lookups/geoip/asn-csv.js';

describe('splitCsvLine', () => {
  const table: { line: string; want: string[]; note?: string }[] = [
    {
      line: '1.0.0.0,1.0.0.255,13335,Cloudflare',
      want: ['1.0.0.0', '1.0.0.255', '13335', 'Cloudflare'],
    },
    {
      line: '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      want: ['1.0.0.0', '1.0.0.255', '13335', 'Cloudflare, Inc.'],
      note: 'a comma inside quotes',
    },
    {
      line: 'a,b,1,"The ""Best"" ISP"',
      want: ['a', 'b', '1', 'The "Best" ISP'],
      note: 'doubled quotes are one quote',
    },
    { line: '"",x', want: ['', 'x'], note: 'an empty quoted field' },
    { line: '""""', want: ['"'], note: 'a field that is one quote' },
    { line: 'a,,c', want: ['a', '', 'c'] },
    { line: 'a,b,', want: ['a', 'b', ''], note: 'a trailing empty field' },
    { line: '', want: [''] },
    { line: ',', want: ['', ''] },
    { line: '"a,b","c,d"', want: ['a,b', 'c,d'] },
    {
      line: '"unterminated, quote',
      want: ['unterminated, quote'],
      note: 'runs to the end of the line',
    },
    { line: '"Ünïcødé, 株式会社"', want: ['Ünïcødé, 株式会社'] },
  ];
  for (const { line, want, note } of table) {
    it(`${JSON.stringify(line)}${note ? ` (${note})` : ''}`, () => {
      assert.deepEqual(splitCsvLine(line), want);
    });
  }
});

describe('parseAsnCsv', () => {
  it('reads IPv4 and IPv6 rows, CRLF or LF, skipping blank lines', () => {
    const text = [
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      '8.8.8.0,8.8.8.255,15169,Google LLC\r',
      '',
      '2001:4860::,2001:4860:ffff:ffff:ffff:ffff:ffff:ffff,15169,Google LLC',
      '',
    ].join('\n');
    const { rows, rejected } = parseAsnCsv(text);
    assert.equal(rejected, 0);
    assert.deepEqual(
      rows.map((r) => [r.start.text, r.end.text, r.asn, r.org]),
      [
        ['1.0.0.0', '1.0.0.255', 13335, 'Cloudflare, Inc.'],
        ['8.8.8.0', '8.8.8.255', 15169, 'Google LLC'],
        ['2001:4860::', '2001:4860:ffff:ffff:ffff:ffff:ffff:ffff', 15169, 'Google LLC'],
      ],
    );
  });

  it('an empty or blank organisation is null', () => {
    const { rows } = parseAsnCsv(
      '1.0.0.0,1.0.0.255,1,\n2.0.0.0,2.0.0.255,2,"  "\n3.0.0.0,3.0.0.255,3',
    );
    assert.deepEqual(
      rows.map((r) => r.org),
      [null, null, null],
    );
  });

  it('counts and skips bad rows instead of failing', () => {
    const bad = [
      'garbage',
      '1.0.0.0,1.0.0.255,notanumber,X',
      '1.0.0.0,1.0.0.255,-1,X',
      '1.0.0.0,1.0.0.255,1.5,X',
      '1.0.0.0,1.0.0.255,4294967296,X', // over 32 bits
      '1.0.0.0,2001:db8::,1,X', // mixed families
      '010.0.0.0,10.0.0.255,1,X',
      ',,,',
      '"1.0.0.0,1.0.0.255",1,X',
    ];
    const { rows, rejected } = parseAsnCsv([...bad, '9.9.9.0,9.9.9.255,19281,Quad9'].join('\n'));
    assert.equal(rejected, bad.length);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.asn, 19281);
  });

  it('accepts the largest 32-bit ASN', () => {
    const { rows } = parseAsnCsv('1.0.0.0,1.0.0.255,4294967295,X');
    assert.equal(rows[0]?.asn, 4294967295);
  });
});
