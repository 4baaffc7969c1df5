import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/kit/errors.js';
import { parseDomain } from '../../../src/lookups/dns/domain-name.js';
import { parseRecordType } from '../../../src/lookups/dns/record-type.js';

const label63 = 'a'.repeat(63);

void describe('parseDomain', () => {
  const valid: { input: string; want: string }[] = [
    { input: 'example.com', want: 'example.com' },
    { input: 'Example.COM', want: 'example.com' },
    { input: 'example.com.', want: 'example.com' }, // one trailing dot = the root
    { input: '_dmarc.example.com', want: '_dmarc.example.com' }, // service label (RFC 8552)
    { input: 'münchen.de', want: 'xn--mnchen-3ya.de' },
    { input: '日本。jp', want: 'xn--wgv71a.jp' }, // ideographic full stop is a dot in IDNA
    { input: 'xn--mnchen-3ya.de', want: 'xn--mnchen-3ya.de' },
    { input: 'a-b.c-d.example', want: 'a-b.c-d.example' },
    { input: `${label63}.com`, want: `${label63}.com` },
    { input: 'com', want: 'com' },
    { input: '2.0.0.127.zen.spamhaus.org', want: '2.0.0.127.zen.spamhaus.org' },
    // 4 × 63 + 1: 253 octets, the longest name there is
    {
      input: [label63, label63, label63, 'a'.repeat(61)].join('.'),
      want: [label63, label63, label63, 'a'.repeat(61)].join('.'),
    },
  ];
  for (const { input, want } of valid) {
    void it(`${JSON.stringify(input.slice(0, 40))} → ${want.slice(0, 40)}`, () => {
      assert.equal(parseDomain(input), want);
    });
  }

  const invalid: { input: string; why: string }[] = [
    { input: '', why: 'empty' },
    { input: '.', why: 'root only' },
    { input: 'example.com..', why: 'two trailing dots' },
    { input: 'a..b', why: 'empty label' },
    { input: '.example.com', why: 'leading dot' },
    { input: '-bad.com', why: 'leading hyphen' },
    { input: 'bad-.com', why: 'trailing hyphen' },
    { input: `${'a'.repeat(64)}.com`, why: '64-octet label' },
    { input: [label63, label63, label63, 'a'.repeat(62)].join('.'), why: '254 octets' },
    { input: 'ex ample.com', why: 'space' },
    { input: 'a/b', why: 'slash (domainToASCII would cut it to "a")' },
    { input: 'a?b', why: 'query mark' },
    { input: 'a#b', why: 'hash' },
    { input: 'user@example.com', why: 'at sign' },
    { input: 'example.com:80', why: 'port' },
    { input: 'a%2eb', why: 'percent' },
    { input: '*.example.com', why: 'wildcard' },
    { input: 'exa\u0000mple.com', why: 'NUL byte' },
    { input: 'xn--zz.com', why: 'bad punycode' },
    { input: '8.8.8.8', why: 'an IPv4 address' },
    { input: 'example.123', why: 'all-numeric top-level label' },
    { input: '0x7f.1', why: 'WHATWG would read it as 127.0.0.1' },
    { input: '\u200b.com', why: 'zero-width space maps to nothing, leaving an empty label' },
    { input: 'a'.repeat(5000), why: 'huge input' },
  ];
  for (const { input, why } of invalid) {
    void it(`${why} → INVALID_DOMAIN`, () => {
      assert.throws(
        () => parseDomain(input),
        (error: unknown) => error instanceof AppError && error.code === 'INVALID_DOMAIN',
      );
    });
  }
});

void describe('parseRecordType', () => {
  const valid: { input: string | undefined; want: string }[] = [
    { input: undefined, want: 'A' }, // absent → the default
    { input: 'A', want: 'A' },
    { input: 'aaaa', want: 'AAAA' },
    { input: 'Mx', want: 'MX' },
    { input: 'txt', want: 'TXT' },
    { input: 'ns', want: 'NS' },
    { input: 'cname', want: 'CNAME' },
  ];
  for (const { input, want } of valid) {
    void it(`${String(input)} → ${want}`, () => assert.equal(parseRecordType(input), want));
  }
  for (const input of ['', 'PTR', 'SOA', 'ANY', 'A,AAAA', '1', 'x'.repeat(500)]) {
    void it(`${JSON.stringify(input.slice(0, 20))} → INVALID_TYPE`, () => {
      assert.throws(
        () => parseRecordType(input),
        (error: unknown) => error instanceof AppError && error.code === 'INVALID_TYPE',
      );
    });
  }
});
