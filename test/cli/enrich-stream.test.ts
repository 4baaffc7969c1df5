// enrichStream: lines split across chunks, CRLF, a line without a break in
// MAX_LINE bytes cut there (memory stays bounded; never inside a UTF-8
// character), the last line without a final break.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough, Readable } from 'node:stream';
import { enrichStream, MAX_LINE } from '../../src/cli/enrich-stream.js';

/** Runs enrichStream over `chunks` with an enricher that writes each line's length. */
async function lengths(chunks: string[]): Promise<{ out: string; count: number }> {
  const output = new PassThrough();
  let out = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => (out += chunk));
  const count = await enrichStream(
    Readable.from(chunks.map((c) => Buffer.from(c))),
    output,
    {
      header: 'len\n',
      line: (input, start, end, out) => out.writeText(`${end - start}\n`),
    },
    null,
  );
  return { out, count };
}

describe('enrichStream', () => {
  it('joins a line split across chunks and drops the CR of CRLF', async () => {
    assert.deepEqual(await lengths(['ab', 'c\r\nde\n', 'f']), {
      out: 'len\n3\n2\n1\n',
      count: 3,
    });
  });

  it('cuts a line with no break in MAX_LINE bytes there', async () => {
    const long = 'x'.repeat(MAX_LINE * 2 + 5);
    const chunks = [];
    for (let i = 0; i < long.length; i += 1 << 16) chunks.push(long.slice(i, i + (1 << 16)));
    chunks.push('\nok\n');
    assert.deepEqual(await lengths(chunks), {
      out: `len\n${MAX_LINE}\n${MAX_LINE}\n5\n2\n`,
      count: 4,
    });
  });

  it('cuts a long line before a UTF-8 character that straddles the limit, never inside it', async () => {
    // 'é' is two bytes; after one byte of 'x' the limit falls inside an 'é'
    const bytes = Buffer.from(`x${'é'.repeat(MAX_LINE)}\n`);
    const chunks = [];
    for (let i = 0; i < bytes.length; i += 1 << 16) chunks.push(bytes.subarray(i, i + (1 << 16)));
    const pieces: string[] = [];
    await enrichStream(
      Readable.from(chunks),
      new PassThrough().resume(),
      {
        header: '',
        line: (input, start, end) => {
          pieces.push(`${end - start} ${input.toString('utf8', start, end).includes('\uFFFD')}`);
        },
      },
      null,
    );
    assert.deepEqual(pieces, [`${MAX_LINE - 1} false`, `${MAX_LINE} false`, `2 false`]);
  });
});
