// X-Request-Id: echoed when sane, generated (and unique) otherwise; the
// error envelope is the shape of docs/api.md.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { errorBody, requestIdFrom } from '../../src/http/respond.js';

describe('requestIdFrom', () => {
  const echoed = [
    'abc',
    'req-123',
    '0f8fad5b-d9cb-469f-a165-70867728950e',
    'a.b_c:d@e/f+g=h',
    'x'.repeat(128),
  ];
  for (const id of echoed) {
    it(`echoes ${JSON.stringify(id.slice(0, 40))}`, () => assert.equal(requestIdFrom(id), id));
  }
  const replaced: { id: string | string[] | undefined; why: string }[] = [
    { id: undefined, why: 'absent' },
    { id: '', why: 'empty' },
    { id: 'x'.repeat(129), why: 'over 128 characters' },
    { id: 'x'.repeat(500), why: '500 characters' },
    { id: 'has space', why: 'a space' },
    { id: 'line\nbreak', why: 'a newline' },
    { id: '<script>', why: 'markup' },
    { id: 'naïve', why: 'non-ASCII' },
    { id: ['a', 'b'], why: 'repeated header' },
  ];
  for (const { id, why } of replaced) {
    it(`generates one when the header is ${why}`, () => {
      const got = requestIdFrom(id);
      assert.notEqual(got, id);
      assert.match(got, /^[A-Za-z0-9-]{3,64}$/);
    });
  }

  it('generated ids are unique', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => requestIdFrom(undefined)));
    assert.equal(ids.size, 1000);
  });
});

describe('errorBody', () => {
  it('is {error:{code,message}} and escapes the message', () => {
    assert.deepEqual(JSON.parse(errorBody('NOT_FOUND', 'quote " and \n newline')), {
      error: { code: 'NOT_FOUND', message: 'quote " and \n newline' },
    });
  });
});
