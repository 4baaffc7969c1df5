// RFC 4180 CSV: quoted fields with commas, line breaks and doubled quotes;
// CRLF or LF; records named by the line they start on; hostile text refused
// with its line, never a crash.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCsv } from '../../src/data/csv.js';

describe('parseCsv', () => {
  const cases: { input: string; want: { line: number; fields: string[] }[] }[] = [
    {
      input: 'a,b,c\n1,2,3\n',
      want: [
        { line: 1, fields: ['a', 'b', 'c'] },
        { line: 2, fields: ['1', '2', '3'] },
      ],
    },
    // CRLF as RFC 4180 writes it, and no line break after the last record
    {
      input: 'a,b\r\n1,2',
      want: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    },
    // empty fields, an empty last field
    { input: 'x,,\n', want: [{ line: 1, fields: ['x', '', ''] }] },
    // a quoted comma, a doubled quote, a quoted line break: the next record starts on line 3
    {
      input: '"a,b","say ""hi""","two\nlines"\nnext,1,2\n',
      want: [
        { line: 1, fields: ['a,b', 'say "hi"', 'two\nlines'] },
        { line: 3, fields: ['next', '1', '2'] },
      ],
    },
    // blank lines are skipped but counted; a byte order mark is not part of the first field
    {
      input: '\ufeffname\n\n\nlast\n',
      want: [
        { line: 1, fields: ['name'] },
        { line: 4, fields: ['last'] },
      ],
    },
    { input: '', want: [] },
    // a line holding one empty field, quoted or not, is as blank as an empty one
    { input: '""\n', want: [] },
  ];
  for (const { input, want } of cases) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(want.map((r) => r.fields))}`, () => {
      assert.deepEqual(parseCsv(input), { records: want, problems: [] });
    });
  }

  const broken: { input: string; line: number }[] = [
    { input: 'a,b\n"never closed,1\n', line: 2 },
    { input: 'a\n"x"y,1\n', line: 2 },
    { input: 'a\nx"y\n', line: 2 },
    // a problem is named by the line its record starts on
    { input: 'a\n"two\nlines"oops\n', line: 2 },
  ];
  for (const { input, line } of broken) {
    it(`${JSON.stringify(input)} → a problem on line ${line}`, () => {
      assert.deepEqual(
        parseCsv(input).problems.map((p) => p.line),
        [line],
      );
    });
  }

  it('hostile text: random bytes give records and problems, each with its line, never a throw', () => {
    let seed = 27;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = ['"', ',', '\n', '\r', 'a', ' ', '\0', '\ufeff', '""'];
    for (let i = 0; i < 2000; i++) {
      const text = Array.from(
        { length: next() % 30 },
        () => alphabet[next() % alphabet.length],
      ).join('');
      const { records, problems } = parseCsv(text);
      for (const r of records) assert.ok(r.line >= 1 && Array.isArray(r.fields), `seed ${seed}`);
      for (const p of problems) assert.ok(p.line >= 1 && p.reason.length > 0, `seed ${seed}`);
    }
  });
});
