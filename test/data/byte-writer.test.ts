// writeAscii takes two ways (a loop for short texts, Buffer#write from
// NATIVE_WRITE_FROM chars): both write the same bytes as Buffer.from(text,
// 'latin1') — ASCII, and fragments held one char a byte (UTF-8 bytes as
// latin1) — at any offset, and return the offset after them.
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { writeAscii } from '../../src/data/byte-writer.js';

describe('writeAscii', () => {
  it('writes every length from 0 to 200 at an offset exactly as latin1 does, both ways', () => {
    const utf8AsLatin1 = Buffer.from('São Paulo — Zürich “Ωμέγα” ', 'utf8').toString('latin1');
    for (const alphabet of ['{"city":"London"},0123456789', utf8AsLatin1]) {
      for (let length = 0; length <= 200; length++) {
        const text = alphabet.repeat(Math.ceil(length / alphabet.length) + 1).slice(0, length);
        const out = Buffer.alloc(length + 10, 0xee);
        const end = writeAscii(out, 7, text);
        assert.equal(end, 7 + length, `offset after ${length} chars`);
        assert.deepEqual(
          out.subarray(7, end),
          Buffer.from(text, 'latin1'),
          `the ${length} chars' bytes`,
        );
        assert.deepEqual(out.subarray(0, 7), Buffer.alloc(7, 0xee), 'nothing before the offset');
        assert.deepEqual(out.subarray(end), Buffer.alloc(3, 0xee), 'nothing after the text');
      }
    }
  });
});
