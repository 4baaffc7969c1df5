// Where a key travels: the Bearer header wins over ?key=; another scheme is
// ignored; two different query keys are no key; the log sees no key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AMBIGUOUS_KEY, bearerToken, presentedKey, redactKey } from '../../src/http/credentials.js';

describe('presentedKey', () => {
  const cases: { auth?: string; query: string; want: string | undefined }[] = [
    { query: '', want: undefined },
    { auth: 'Bearer abc', query: '', want: 'abc' },
    { auth: 'bearer  abc ', query: '', want: 'abc' }, // the scheme is case-insensitive
    { auth: 'Bearer abc', query: 'key=other', want: 'abc' }, // the header wins
    { auth: 'Basic dXNlcjpwdw==', query: 'key=q', want: 'q' }, // not ours: the query's key counts
    { auth: 'Bearer ', query: '', want: undefined },
    { query: 'key=abc', want: 'abc' },
    { query: 'q=1.1.1.1&key=abc&x=1', want: 'abc' },
    { query: 'monkey=abc', want: undefined }, // not the key parameter
    { query: 'q=key=abc', want: undefined },
    { query: 'key=', want: undefined }, // empty: none
    { query: 'key=a%2Db', want: 'a-b' }, // percent-encoded
    { query: 'key=a%zz', want: 'a%zz' }, // malformed escape: taken as sent (and not found)
    { query: 'key=abc&key=abc', want: 'abc' },
    { query: 'key=abc&key=xyz', want: AMBIGUOUS_KEY },
  ];
  for (const { auth, query, want } of cases) {
    it(`${auth ?? '(no header)'} ?${query} → ${JSON.stringify(want)}`, () => {
      assert.equal(presentedKey(auth, query), want);
    });
  }
  it('bearerToken ignores other schemes', () => {
    assert.equal(bearerToken('Token abcdefgh'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});

describe('redactKey', () => {
  const cases: [string, string][] = [
    ['/ip/8.8.8.8', '/ip/8.8.8.8'],
    ['/ip/8.8.8.8?key=secret-0123456789', '/ip/8.8.8.8?key=[redacted]'],
    ['/?q=1.1.1.1&key=s&key=t', '/?q=1.1.1.1&key=[redacted]&key=[redacted]'],
    ['/cidr?range=10.0.0.0/8&monkey=1', '/cidr?range=10.0.0.0/8&monkey=1'],
    ['/cidr?key=s&range=10.0.0.0/8', '/cidr?key=[redacted]&range=10.0.0.0/8'],
    ['/?q=key=s&monkey=key=t&key=u', '/?q=key=s&monkey=key=t&key=[redacted]'],
    ['/?key=&x=1', '/?key=[redacted]&x=1'],
    ['/path/key=s', '/path/key=s'], // not in the query
  ];
  for (const [url, want] of cases) {
    it(`${url} → ${want}`, () => assert.equal(redactKey(url), want));
  }
});
