// Where a key travels: the Bearer header wins over ?key=; another scheme is
// ignored (Basic's password is read where a route asks for it); two different query keys are no key; the log sees no key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AMBIGUOUS_KEY,
  basicPassword,
  bearerToken,
  queryKey,
  redactKey,
} from '../../src/http/credentials.js';

// which of the two wins when both come is AccessControl.identify's, tested
// through the app (test/app/api-keys.test.ts: "the header wins")
describe('bearerToken', () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    ['Bearer abc', 'abc'],
    ['bearer  abc ', 'abc'], // the scheme is case-insensitive
    ['Bearer ', undefined],
    ['Basic dXNlcjpwdw==', undefined], // not ours: the query's key counts
    ['Token abcdefgh', undefined],
  ];
  for (const [auth, want] of cases) {
    it(`${auth ?? '(no header)'} → ${JSON.stringify(want)}`, () => {
      assert.equal(bearerToken(auth), want);
    });
  }
});

// the password of Basic (user:password, base64) is the key on the routes that take it (MaxMind's)
describe('basicPassword', () => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  const cases: [string | undefined, string | undefined][] = [
    [undefined, undefined],
    [`Basic ${b64('42:licence-key')}`, 'licence-key'],
    [`basic ${b64('42:a:b')}`, 'a:b'], // only the first colon splits user from password
    [`Basic ${b64('42:')}`, undefined], // an empty password is none (LICENSE_KEY_REQUIRED)
    [`Basic ${b64('no-colon')}`, undefined],
    ['Bearer abcdefgh', undefined],
  ];
  for (const [auth, want] of cases) {
    it(`${auth ?? '(no header)'} → ${JSON.stringify(want)}`, () => {
      assert.equal(basicPassword(auth), want);
    });
  }
});

describe('queryKey', () => {
  const cases: [string, string | undefined][] = [
    ['', undefined],
    ['key=abc', 'abc'],
    ['q=1.1.1.1&key=abc&x=1', 'abc'],
    ['monkey=abc', undefined], // not the key parameter
    ['q=key=abc', undefined],
    ['key=', undefined], // empty: none
    ['key=a%2Db', 'a-b'], // percent-encoded
    ['key=a%zz', 'a%zz'], // malformed escape: taken as sent (and not found)
    ['key=abc&key=abc', 'abc'],
    ['key=abc&key=xyz', AMBIGUOUS_KEY],
  ];
  for (const [query, want] of cases) {
    it(`?${query} → ${JSON.stringify(want)}`, () => assert.equal(queryKey(query), want));
  }
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
