import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Answer } from 'dns-packet';
import { AppError } from '../../../src/kit/errors.js';
import { minTtl, negativeTtl, presentRecords, txtText } from '../../../src/lookups/dns/present.js';
import { reverseName } from '../../../src/lookups/dns/reverse-name.js';
import { systemServers } from '../../../src/lookups/dns/servers.js';
import { parseIp, type Ip } from '../../../src/net/ip.js';

const rr = (name: string, type: string, data: unknown, ttl = 300): Answer =>
  ({ name, type, ttl, class: 'IN', data }) as Answer;

void describe('presentRecords', () => {
  const cases: {
    name: string;
    qname: string;
    type: 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'CNAME';
    answers: Answer[];
    want: { name: string; type: string; ttl: number; data: string }[];
  }[] = [
    {
      name: 'A → dotted quad with the TTL sent',
      qname: 'example.com',
      type: 'A',
      answers: [rr('example.com', 'A', '192.0.2.1', 42)],
      want: [{ name: 'example.com', type: 'A', ttl: 42, data: '192.0.2.1' }],
    },
    {
      name: 'AAAA → RFC 5952 form',
      qname: 'example.com',
      type: 'AAAA',
      answers: [rr('example.com', 'AAAA', '2001:DB8:0:0:0:0:0:1')],
      want: [{ name: 'example.com', type: 'AAAA', ttl: 300, data: '2001:db8::1' }],
    },
    {
      name: 'AAAA of an IPv4-mapped address keeps its IPv6 form',
      qname: 'example.com',
      type: 'AAAA',
      answers: [rr('example.com', 'AAAA', '::ffff:102:304')],
      want: [{ name: 'example.com', type: 'AAAA', ttl: 300, data: '::ffff:1.2.3.4' }],
    },
    {
      name: 'MX → "preference exchange." (docs/api.md)',
      qname: 'example.com',
      type: 'MX',
      answers: [rr('example.com', 'MX', { preference: 10, exchange: 'mail.example.com' })],
      want: [{ name: 'example.com', type: 'MX', ttl: 300, data: '10 mail.example.com.' }],
    },
    {
      name: 'null MX (RFC 7505) → "0 ."',
      qname: 'example.com',
      type: 'MX',
      answers: [rr('example.com', 'MX', { preference: 0, exchange: '.' })],
      want: [{ name: 'example.com', type: 'MX', ttl: 300, data: '0 .' }],
    },
    {
      name: 'NS → target with trailing dot',
      qname: 'example.com',
      type: 'NS',
      answers: [rr('example.com', 'NS', 'a.iana-servers.net')],
      want: [{ name: 'example.com', type: 'NS', ttl: 300, data: 'a.iana-servers.net.' }],
    },
    {
      name: 'TXT with several strings → joined, unquoted (docs/api.md)',
      qname: 'example.com',
      type: 'TXT',
      answers: [rr('example.com', 'TXT', [Buffer.from('v=spf1 '), Buffer.from('-all')])],
      want: [{ name: 'example.com', type: 'TXT', ttl: 300, data: 'v=spf1 -all' }],
    },
    {
      name: 'CNAME chain → every hop under its own owner',
      qname: 'www.example.com',
      type: 'A',
      answers: [
        rr('www.example.com', 'CNAME', 'a.example.net', 100),
        rr('a.example.net', 'CNAME', 'b.example.org', 50),
        rr('b.example.org', 'A', '192.0.2.7', 20),
      ],
      want: [
        { name: 'www.example.com', type: 'CNAME', ttl: 100, data: 'a.example.net.' },
        { name: 'a.example.net', type: 'CNAME', ttl: 50, data: 'b.example.org.' },
        { name: 'b.example.org', type: 'A', ttl: 20, data: '192.0.2.7' },
      ],
    },
    {
      name: 'records off the chain are dropped (not asked for)',
      qname: 'example.com',
      type: 'A',
      answers: [rr('example.com', 'A', '192.0.2.1'), rr('bank.example', 'A', '6.6.6.6')],
      want: [{ name: 'example.com', type: 'A', ttl: 300, data: '192.0.2.1' }],
    },
    {
      name: 'other types and classes are dropped (RRSIG, CH)',
      qname: 'example.com',
      type: 'A',
      answers: [
        rr('example.com', 'RRSIG', Buffer.alloc(0)),
        { ...rr('example.com', 'A', '192.0.2.9'), class: 'CH' } as Answer,
        rr('example.com', 'A', '192.0.2.1'),
      ],
      want: [{ name: 'example.com', type: 'A', ttl: 300, data: '192.0.2.1' }],
    },
    {
      name: 'owner names compare case-insensitively, shown as sent',
      qname: 'example.com',
      type: 'A',
      answers: [rr('Example.COM', 'A', '192.0.2.1')],
      want: [{ name: 'Example.COM', type: 'A', ttl: 300, data: '192.0.2.1' }],
    },
    {
      name: 'a CNAME loop ends without hanging',
      qname: 'a.example',
      type: 'A',
      answers: [rr('a.example', 'CNAME', 'b.example'), rr('b.example', 'CNAME', 'a.example')],
      want: [
        { name: 'a.example', type: 'CNAME', ttl: 300, data: 'b.example.' },
        { name: 'b.example', type: 'CNAME', ttl: 300, data: 'a.example.' },
      ],
    },
    { name: 'NODATA → []', qname: 'example.com', type: 'MX', answers: [], want: [] },
  ];
  for (const { name, qname, type, answers, want } of cases) {
    void it(name, () => assert.deepEqual(presentRecords(answers, qname, type), want));
  }

  void it('an A record that is not an address → UPSTREAM_ERROR', () => {
    assert.throws(
      () => presentRecords([rr('x.example', 'A', '192.0.undefined.1')], 'x.example', 'A'),
      (error: unknown) => error instanceof AppError && error.code === 'UPSTREAM_ERROR',
    );
  });

  void it('TXT bytes that are not UTF-8 become U+FFFD, not an exception', () => {
    assert.equal(txtText([Buffer.from([0x61, 0xff, 0x62])]), 'a\uFFFDb');
  });
});

void describe('TTL helpers', () => {
  void it('minTtl → the smallest TTL, null for none', () => {
    assert.equal(minTtl([{ ttl: 300 }, { ttl: 20 }, { ttl: 50 }]), 20);
    assert.equal(minTtl([]), null);
  });
  void it('negativeTtl → min(SOA TTL, SOA MINIMUM) (RFC 2308 §5)', () => {
    const soa = rr('example.com', 'SOA', { mname: 'ns', rname: 'h', minimum: 60 }, 900);
    assert.equal(negativeTtl([soa]), 60);
    assert.equal(negativeTtl([]), null);
  });
});

void describe('reverseName', () => {
  const cases: { ip: string; want: string }[] = [
    { ip: '8.8.8.8', want: '8.8.8.8.in-addr.arpa' },
    { ip: '192.0.2.1', want: '1.2.0.192.in-addr.arpa' },
    { ip: '0.0.0.0', want: '0.0.0.0.in-addr.arpa' },
    { ip: '255.255.255.254', want: '254.255.255.255.in-addr.arpa' },
    {
      ip: '2001:db8::1',
      want: '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa',
    },
    { ip: '::1', want: `1.${'0.'.repeat(31)}ip6.arpa` },
    { ip: '::ffff:1.2.3.4', want: '4.3.2.1.in-addr.arpa' }, // parseIp unwraps IPv4-mapped
    {
      ip: 'FFFF:ABCD::',
      want: `${'0.'.repeat(24)}d.c.b.a.f.f.f.f.ip6.arpa`, // lower-case nibbles
    },
  ];
  for (const { ip, want } of cases) {
    void it(`${ip} → ${want.slice(0, 40)}…`, () =>
      assert.equal(reverseName(parseIp(ip) as Ip), want));
  }
});

void describe('systemServers', () => {
  void it('parses what dns.getServers() reports, skipping nonsense', () => {
    assert.deepEqual(systemServers(['127.0.0.53', '10.0.0.1:5353', '::1', '[::1]:5300', 'x y']), [
      { host: '127.0.0.53', port: 53 },
      { host: '10.0.0.1', port: 5353 },
      { host: '::1', port: 53 },
      { host: '::1', port: 5300 },
    ]);
  });
});
