// The API keys file: what it accepts (literal keys, sha256: digests, the
// default limit) and how it refuses a bad file — whole, every problem named
// by its line, the key itself never in a message.
import assert from 'node:assert/strict';
import { hash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ApiKeysFileError, parseApiKeys } from '../../src/auth/api-keys.js';

const ALICE = 'alice-key-0123456789';
const BOB = 'bob-secret-key-abcdef';
const sha = (key: string) => `sha256:${hash('sha256', key)}`;

describe('parseApiKeys', () => {
  it('finds a literal key and a sha256: one, with their limits (empty = the default)', () => {
    const table = parseApiKeys(
      'keys.csv',
      `name,key,limit\nalice,${ALICE},5\nbob,${sha(BOB)},\n`,
      60,
    );
    assert.equal(table.size, 2);
    assert.deepEqual(
      {
        name: table.find(ALICE)?.name,
        limit: table.find(ALICE)?.limit,
        bucket: table.find(ALICE)?.bucket,
      },
      { name: 'alice', limit: 5, bucket: 'key:alice' },
    );
    assert.equal(table.find(BOB)?.name, 'bob');
    assert.equal(table.find(BOB)?.limit, 60);
    assert.equal(table.find(`${ALICE}x`), undefined);
    assert.equal(table.find(ALICE.slice(0, -1)), undefined);
    assert.equal(table.find(''), undefined);
    // the file's digest form is not itself a key
    assert.equal(table.find(sha(BOB)), undefined);
  });

  it('takes quoted fields, CRLF, upper-case hex and a header in any case', () => {
    const text = `Name,KEY,Limit\r\n"alice","${ALICE}","7"\r\nbob,${sha(BOB).toUpperCase().replace('SHA256', 'sha256')},1\r\n`;
    const table = parseApiKeys('keys.csv', text, 60);
    assert.equal(table.find(ALICE)?.limit, 7);
    assert.equal(table.find(BOB)?.limit, 1);
  });

  it('spaces around the commas are not part of a field', () => {
    const table = parseApiKeys('keys.csv', `name, key, limit\nalice, ${ALICE} , 9\n`, 60);
    assert.equal(table.find(ALICE)?.limit, 9);
  });

  it('a header alone is a valid file with no keys', () => {
    assert.equal(parseApiKeys('keys.csv', 'name,key,limit\n', 60).size, 0);
  });

  const bad: { name: string; text: string; problems: RegExp[] }[] = [
    {
      name: 'no header',
      text: `alice,${ALICE},5\n`,
      problems: [/^line 1: the first line must be the header/],
    },
    { name: 'an empty file', text: '', problems: [/^line 1: the first line must be the header/] },
    {
      name: 'two fields',
      text: `name,key,limit\nalice,${ALICE}\n`,
      problems: [/^line 2: 2 fields/],
    },
    {
      name: 'a short key',
      text: 'name,key,limit\nalice,short,5\n',
      problems: [/^line 2: the key must be/],
    },
    {
      name: 'a key with a space',
      text: 'name,key,limit\nalice,"has a space in it ok",5\n',
      problems: [/^line 2: the key must be/],
    },
    {
      name: 'a digest of the wrong length',
      text: 'name,key,limit\nalice,sha256:abcd,5\n',
      problems: [/^line 2: the key must be/],
    },
    {
      name: 'a bad name',
      text: `name,key,limit\n"al ice",${ALICE},5\n`,
      problems: [/^line 2: the name must be/],
    },
    {
      name: 'a limit of 0',
      text: `name,key,limit\nalice,${ALICE},0\n`,
      problems: [/^line 2: the limit must be/],
    },
    {
      name: 'a limit that is no number',
      text: `name,key,limit\nalice,${ALICE},lots\n`,
      problems: [/^line 2: the limit must be/],
    },
    {
      name: 'a name twice',
      text: `name,key,limit\nalice,${ALICE},5\n\nalice,${BOB},5\n`,
      problems: [/^line 4: the name "alice" is already on line 2$/],
    },
    {
      name: 'one key twice (once as its digest)',
      text: `name,key,limit\nalice,${ALICE},5\ncarol,${sha(ALICE)},5\n`,
      problems: [/^line 3: the same key as line 2$/],
    },
    {
      name: 'a quote never closed',
      text: `name,key,limit\nalice,"${ALICE},5\n`,
      problems: [/^line 2: a quoted field is never closed$/],
    },
    {
      name: 'every problem at once',
      text: `name,key,limit\nalice,short,5\nbob,${BOB},-1\n`,
      problems: [/^line 2: the key/, /^line 3: the limit/],
    },
  ];
  for (const { name, text, problems } of bad) {
    it(`refuses ${name}, naming the line (and never the key)`, () => {
      assert.throws(
        () => parseApiKeys('keys.csv', text, 60),
        (error: unknown) => {
          assert.ok(error instanceof ApiKeysFileError);
          assert.equal(error.problems.length, problems.length, error.message);
          problems.forEach((re, i) => assert.match(error.problems[i] ?? '', re));
          assert.ok(!error.message.includes(ALICE) && !error.message.includes(BOB));
          return true;
        },
      );
    });
  }
});
