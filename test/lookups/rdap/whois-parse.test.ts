import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/kit/errors.js';
import { parseObjects } from '../../../src/lookups/rdap/whois-objects.js';
import { parseWhois } from '../../../src/lookups/rdap/whois-parse.js';
import { findReferral, parseReferral } from '../../../src/lookups/rdap/whois-referral.js';
import { decodeWhois } from '../../../src/lookups/rdap/whois-transport.js';
import { WHOIS_FIXTURES, fixturePairs, parsedPart } from './fixture-files.js';

void describe('port-43 answer → Whois record, per registry fixture', () => {
  for (const { name, body, expected } of fixturePairs(WHOIS_FIXTURES, '.txt')) {
    void test(`${name} parses to its expected record`, () => {
      const want = parsedPart(expected);
      // the referral placeholder is irrelevant to the parse
      assert.deepEqual(parseWhois(decodeWhois(body), 'test'), want);
    });
  }
});

void describe('dialect details', () => {
  void test('ARIN: the last NetRange is the most specific, with the org block after it', () => {
    const answer = [
      'NetRange: 10.0.0.0 - 10.255.255.255',
      'NetName: PARENT',
      '',
      'OrgName: Parent Org',
      'Country: US',
      '',
      'NetRange: 10.1.0.0 - 10.1.255.255',
      'NetName: CHILD',
      'Customer: Child Customer (C0001)',
      '',
      'CustName: Child Customer',
      'Country: CA',
    ].join('\n');
    const got = parseWhois(answer, 'test');
    assert.deepEqual([got.name, got.registrant, got.country], ['CHILD', 'Child Customer', 'CA']);
  });

  void test('ARIN: without an org block the Organization field names the holder', () => {
    const got = parseWhois(
      'NetRange: 12.0.0.0 - 12.0.0.255\nOrganization: Foo (Bar) Inc. (FOO-1)',
      't',
    );
    assert.equal(got.registrant, 'Foo (Bar) Inc.');
  });

  void test('ARIN: several CIDRs on one line', () => {
    const got = parseWhois(
      'NetRange: 13.64.0.0 - 13.107.255.255\nCIDR: 13.64.0.0/11, 13.96.0.0/13, 13.104.0.0/14',
      't',
    );
    assert.deepEqual(got.cidrs, ['13.64.0.0/11', '13.96.0.0/13', '13.104.0.0/14']);
  });

  void test('RPSL: continuation lines and CR-only line ends are read', () => {
    const got = parseWhois(
      'inetnum: 62.0.0.0 - 62.0.0.255\rnetname: A\r+ B\rdescr: first\r  second',
      't',
    );
    assert.deepEqual([got.name, got.registrant], ['A B', 'first second']);
  });

  void test('RPSL: zero-padded and unspaced ranges are re-formatted', () => {
    const got = parseWhois('inetnum: 062.000.000.000-062.000.000.255\nnetname: X', 't');
    assert.deepEqual(
      [got.startAddress, got.endAddress, got.handle],
      ['62.0.0.0', '62.0.0.255', '62.0.0.0 - 62.0.0.255'],
    );
  });

  void test('LACNIC: abbreviated two-octet CIDR is padded', () => {
    const got = parseWhois('inetnum: 200.57/16\nowner: X S.A.\ncreated: 19991231', 't');
    assert.deepEqual(
      [got.startAddress, got.endAddress, got.cidrs],
      ['200.57.0.0', '200.57.255.255', ['200.57.0.0/16']],
    );
    assert.deepEqual(got.events, [{ action: 'registration', date: '1999-12-31T00:00:00Z' }]);
  });
});

void describe('hostile and unusable answers', () => {
  const table: { name: string; answer: string; code: string }[] = [
    { name: 'empty answer → UPSTREAM_ERROR', answer: '', code: 'UPSTREAM_ERROR' },
    {
      name: 'only comments → UPSTREAM_ERROR',
      answer: '% hello\n# world\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'ARIN no match → NOT_FOUND',
      answer: '\nNo match found for n + 23.0.8.8.\n',
      code: 'NOT_FOUND',
    },
    {
      name: 'RIPE %ERROR:101 → NOT_FOUND',
      answer: '%ERROR:101: no entries found\n',
      code: 'NOT_FOUND',
    },
    {
      name: 'LACNIC no match → NOT_FOUND',
      answer: '% No match for "1.2.3.4"\n',
      code: 'NOT_FOUND',
    },
    {
      name: 'RIPE access denied → UPSTREAM_ERROR',
      answer: '%ERROR:201: access denied for 192.0.2.1\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'inetnum with garbage range → UPSTREAM_ERROR',
      answer: 'inetnum: a - b\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'inetnum with reversed range → UPSTREAM_ERROR',
      answer: 'inetnum: 62.0.0.255 - 62.0.0.0\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'NetRange mixing families → UPSTREAM_ERROR',
      answer: 'NetRange: 1.0.0.0 - ::1\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'inetnum with prefix length 33 → UPSTREAM_ERROR',
      answer: 'inetnum: 1.2.3.0/33\n',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'binary noise → UPSTREAM_ERROR',
      answer: '\u0000\u00ff\u0001:::\n:\n',
      code: 'UPSTREAM_ERROR',
    },
  ];
  for (const { name, answer, code } of table) {
    void test(name, () => {
      assert.throws(
        () => parseWhois(answer, 'test'),
        (error: unknown) => error instanceof AppError && error.code === code,
      );
    });
  }

  void test('a huge answer is bounded in lines and still parses its first network', () => {
    const answer = `inetnum: 62.0.0.0 - 62.0.0.255\nnetname: BIG\n${'remarks: x\n'.repeat(100_000)}`;
    assert.equal(parseWhois(answer, 'test').name, 'BIG');
    assert.ok(parseObjects(answer)[0]!.attributes.length <= 20_000);
  });

  void test('dates that are not dates are dropped', () => {
    const got = parseWhois(
      'inetnum: 62.0.0.0 - 62.0.0.255\ncreated: 2020-13-45\nchanged: someone@example.com',
      't',
    );
    assert.deepEqual(got.events, []);
  });
});

void describe('referrals', () => {
  const table: { input: string; want: { host: string; port: number } | null }[] = [
    { input: 'whois://whois.ripe.net', want: { host: 'whois.ripe.net', port: 43 } },
    { input: 'whois://whois.ripe.net/', want: { host: 'whois.ripe.net', port: 43 } },
    { input: 'whois://Whois.APNIC.net:4343', want: { host: 'whois.apnic.net', port: 4343 } },
    { input: 'whois.lacnic.net', want: { host: 'whois.lacnic.net', port: 43 } },
    { input: '[::1]:4343', want: { host: '::1', port: 4343 } },
    // RFC 2167 rwhois is another protocol
    { input: 'rwhois://rwhois.example.net:4321/', want: null },
    { input: 'http://example.net/', want: null },
    { input: 'whois://host:99999', want: null },
    { input: 'whois://bad host', want: null },
    { input: 'whois://[not-v6]:43', want: null },
    { input: '', want: null },
  ];
  for (const { input, want } of table) {
    void test(`referral "${input}" → ${want === null ? 'not followed' : `${want.host}:${want.port}`}`, () => {
      assert.deepEqual(parseReferral(input), want);
    });
  }

  void test('ARIN: the last ReferralServer wins', () => {
    const answer =
      'ReferralServer: whois://first.example\n\nReferralServer: whois://last.example:4343\n';
    assert.deepEqual(findReferral(answer), { host: 'last.example', port: 4343 });
  });

  void test('IANA: refer: is followed', () => {
    assert.deepEqual(findReferral('% IANA WHOIS server\n\nrefer:        whois.apnic.net\n'), {
      host: 'whois.apnic.net',
      port: 43,
    });
  });
});

void describe('decoding', () => {
  void test('valid UTF-8 is read as UTF-8', () => {
    assert.equal(decodeWhois(Buffer.from('Peña', 'utf8')), 'Peña');
  });
  void test('invalid UTF-8 falls back to Latin-1', () => {
    assert.equal(decodeWhois(Buffer.from('Peña', 'latin1')), 'Peña');
  });
});
