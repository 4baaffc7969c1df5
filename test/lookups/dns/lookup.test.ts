// lookupDns and lookupReverse end to end, against a DNS server on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppError, type ErrorCode } from '../../../src/kit/errors.js';
import { createDnsClient, parseDomain, type DnsClient } from '../../../src/lookups/dns/index.js';
import { parseIp, type Ip } from '../../../src/net/ip.js';
import { startDnsServer, type DnsTestServer, type ZoneTable } from '../../helpers/dns-server.js';

const V6_PTR = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';

const ZONE: ZoneTable = {
  'example.test': {
    records: [
      { type: 'A', data: '192.0.2.1', ttl: 120 },
      { type: 'A', data: '192.0.2.2', ttl: 90 },
      { type: 'AAAA', data: '2001:db8:0:0:0:0:0:10', ttl: 300 },
      { type: 'MX', data: { preference: 10, exchange: 'mail.example.test' }, ttl: 3600 },
      { type: 'NS', data: 'ns1.example.test', ttl: 86400 },
      { type: 'TXT', data: ['v=spf1 include:_spf.example.test', ' ~all'], ttl: 30 },
      { type: 'TXT', data: ['second record'], ttl: 30 },
    ],
  },
  'www.example.test': { records: [{ type: 'CNAME', data: 'edge.cdn.test', ttl: 600 }] },
  'edge.cdn.test': { records: [{ type: 'CNAME', data: 'host.cdn.test', ttl: 60 }] },
  'host.cdn.test': { records: [{ type: 'A', data: '203.0.113.5', ttl: 20 }] },
  'xn--mnchen-3ya.test': { records: [{ type: 'A', data: '192.0.2.80' }] },
  'big.example.test': {
    behaviour: 'truncate',
    records: [{ type: 'TXT', data: ['x'.repeat(200)] }],
  },
  'servfail.test': { behaviour: 'servfail' },
  'drop.test': { behaviour: 'drop' },
  'garbage.test': { behaviour: 'garbage' },
  // reverse zone
  '8.8.8.8.in-addr.arpa': {
    records: [
      { type: 'PTR', data: 'dns.google', ttl: 7200 },
      { type: 'PTR', data: 'DNS.google' }, // same name in other case: shown once
      { type: 'PTR', data: 'alias.google', ttl: 100 },
    ],
  },
  [V6_PTR]: { records: [{ type: 'PTR', data: 'v6.example.test' }] },
  // RFC 2317 classless delegation: a CNAME into the delegated zone
  '5.2.0.192.in-addr.arpa': { records: [{ type: 'CNAME', data: '5.0-25.2.0.192.in-addr.arpa' }] },
  '5.0-25.2.0.192.in-addr.arpa': {
    records: [{ type: 'PTR', data: 'small.example.test', ttl: 50 }],
  },
  '6.2.0.192.in-addr.arpa': { records: [{ type: 'TXT', data: ['no ptr here'] }] },
  '7.2.0.192.in-addr.arpa': { behaviour: 'servfail' },
  '9.2.0.192.in-addr.arpa': { behaviour: 'drop' },
};

let server: DnsTestServer;
/** for answers: a timeout there would be a false failure on a loaded machine */
let dns: DnsClient;
/** for the rows that wait out a silent server */
let quick: DnsClient;
before(async () => {
  server = await startDnsServer(ZONE);
  const servers = [{ host: server.host, port: server.port }];
  dns = createDnsClient({ servers, timeoutMs: 2000 });
  quick = createDnsClient({ servers, timeoutMs: 100 });
});
after(() => server.close());

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode): Promise<void> {
  await assert.rejects(
    promise,
    (error: unknown) => error instanceof AppError && error.code === code,
  );
}

void describe('lookupDns', () => {
  const cases: {
    why: string;
    domain: string;
    type: 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'CNAME';
    want: { name: string; type: string; ttl: number; data: string }[];
    minTtl: number | null;
  }[] = [
    {
      why: 'A records with the TTLs sent',
      domain: 'example.test',
      type: 'A',
      want: [
        { name: 'example.test', type: 'A', ttl: 120, data: '192.0.2.1' },
        { name: 'example.test', type: 'A', ttl: 90, data: '192.0.2.2' },
      ],
      minTtl: 90,
    },
    {
      why: 'AAAA in RFC 5952 form',
      domain: 'example.test',
      type: 'AAAA',
      want: [{ name: 'example.test', type: 'AAAA', ttl: 300, data: '2001:db8::10' }],
      minTtl: 300,
    },
    {
      why: 'MX as "10 mail.example.test."',
      domain: 'example.test',
      type: 'MX',
      want: [{ name: 'example.test', type: 'MX', ttl: 3600, data: '10 mail.example.test.' }],
      minTtl: 3600,
    },
    {
      why: 'NS with trailing dot',
      domain: 'example.test',
      type: 'NS',
      want: [{ name: 'example.test', type: 'NS', ttl: 86400, data: 'ns1.example.test.' }],
      minTtl: 86400,
    },
    {
      why: 'TXT strings joined unquoted, one row per record',
      domain: 'example.test',
      type: 'TXT',
      want: [
        {
          name: 'example.test',
          type: 'TXT',
          ttl: 30,
          data: 'v=spf1 include:_spf.example.test ~all',
        },
        { name: 'example.test', type: 'TXT', ttl: 30, data: 'second record' },
      ],
      minTtl: 30,
    },
    {
      why: 'CNAME chain for A, each row under its owner',
      domain: 'www.example.test',
      type: 'A',
      want: [
        { name: 'www.example.test', type: 'CNAME', ttl: 600, data: 'edge.cdn.test.' },
        { name: 'edge.cdn.test', type: 'CNAME', ttl: 60, data: 'host.cdn.test.' },
        { name: 'host.cdn.test', type: 'A', ttl: 20, data: '203.0.113.5' },
      ],
      minTtl: 20,
    },
    {
      why: 'type CNAME → the first hop only',
      domain: 'www.example.test',
      type: 'CNAME',
      want: [{ name: 'www.example.test', type: 'CNAME', ttl: 600, data: 'edge.cdn.test.' }],
      minTtl: 600,
    },
    {
      why: 'IDN looked up as punycode',
      domain: parseDomain('MÜNCHEN.test.'),
      type: 'A',
      want: [{ name: 'xn--mnchen-3ya.test', type: 'A', ttl: 300, data: '192.0.2.80' }],
      minTtl: 300,
    },
    {
      why: 'truncated UDP reply → answered over TCP',
      domain: 'big.example.test',
      type: 'TXT',
      want: [{ name: 'big.example.test', type: 'TXT', ttl: 300, data: 'x'.repeat(200) }],
      minTtl: 300,
    },
    {
      why: 'a chain ending in NODATA → the CNAME rows only',
      domain: 'www.example.test',
      type: 'MX',
      // the chain is followed: www CNAME edge CNAME host, host has no MX
      want: [
        { name: 'www.example.test', type: 'CNAME', ttl: 600, data: 'edge.cdn.test.' },
        { name: 'edge.cdn.test', type: 'CNAME', ttl: 60, data: 'host.cdn.test.' },
      ],
      minTtl: 60,
    },
    {
      why: 'NODATA → records [] with the SOA negative TTL (RFC 2308 §5)',
      domain: 'host.cdn.test',
      type: 'MX',
      want: [],
      minTtl: 60, // min(SOA TTL 900, MINIMUM 60)
    },
  ];
  for (const { why, domain, type, want, minTtl } of cases) {
    void it(`${why}`, async () => {
      const lookup = await dns.lookupDns(domain, type);
      assert.deepEqual(lookup.result, { records: want });
      assert.equal(lookup.minTtl, minTtl);
    });
  }

  const failures: { domain: string; code: ErrorCode; why: string }[] = [
    { domain: 'missing.test', code: 'NXDOMAIN', why: 'NXDOMAIN' },
    { domain: 'servfail.test', code: 'UPSTREAM_ERROR', why: 'SERVFAIL' },
    { domain: 'garbage.test', code: 'UPSTREAM_ERROR', why: 'garbage reply' },
    { domain: 'drop.test', code: 'UPSTREAM_TIMEOUT', why: 'no reply' },
  ];
  for (const { domain, code, why } of failures) {
    void it(`${why} → ${code}`, () =>
      rejectsWith((code === 'UPSTREAM_TIMEOUT' ? quick : dns).lookupDns(domain, 'A'), code));
  }
});

void describe('lookupReverse', () => {
  const cases: {
    ip: string;
    ptr: string;
    hostnames: string[];
    minTtl: number | null;
    why: string;
  }[] = [
    {
      why: 'PTR names without trailing dot, duplicates once',
      ip: '8.8.8.8',
      ptr: '8.8.8.8.in-addr.arpa',
      hostnames: ['dns.google', 'alias.google'],
      minTtl: 100,
    },
    {
      why: 'IPv6 → ip6.arpa nibbles',
      ip: '2001:db8::1',
      ptr: V6_PTR,
      hostnames: ['v6.example.test'],
      minTtl: 300,
    },
    {
      why: 'RFC 2317 CNAME followed',
      ip: '192.0.2.5',
      ptr: '5.2.0.192.in-addr.arpa',
      hostnames: ['small.example.test'],
      minTtl: 50,
    },
    {
      why: 'NXDOMAIN → no hostnames, still a success',
      ip: '192.0.2.200',
      ptr: '200.2.0.192.in-addr.arpa',
      hostnames: [],
      minTtl: 60,
    },
    {
      why: 'NODATA → no hostnames',
      ip: '192.0.2.6',
      ptr: '6.2.0.192.in-addr.arpa',
      hostnames: [],
      minTtl: 60,
    },
    {
      why: 'IPv4-mapped IPv6 → in-addr.arpa',
      ip: '::ffff:8.8.8.8',
      ptr: '8.8.8.8.in-addr.arpa',
      hostnames: ['dns.google', 'alias.google'],
      minTtl: 100,
    },
  ];
  for (const { why, ip, ptr, hostnames, minTtl } of cases) {
    void it(why, async () => {
      const lookup = await dns.lookupReverse(parseIp(ip) as Ip);
      // this zone holds no A/AAAA records for the names: none is forward-confirmed
      // (test/routes/network-routes.test.ts confirms names through the service)
      assert.deepEqual(lookup.result, {
        ip: (parseIp(ip) as Ip).text,
        ptr,
        hostnames,
        confirmedHostnames: [],
      });
      assert.equal(lookup.minTtl, minTtl);
    });
  }

  void it('accepts the address as text too', async () => {
    assert.deepEqual((await dns.lookupReverse('8.8.8.8')).result.hostnames, [
      'dns.google',
      'alias.google',
    ]);
  });

  const failures: { ip: string; code: ErrorCode; why: string }[] = [
    { ip: 'not-an-ip', code: 'INVALID_IP', why: 'not an address' },
    { ip: '192.0.2.7', code: 'UPSTREAM_ERROR', why: 'SERVFAIL' },
    { ip: '192.0.2.9', code: 'UPSTREAM_TIMEOUT', why: 'no reply' },
  ];
  for (const { ip, code, why } of failures) {
    void it(`${why} → ${code}`, () =>
      rejectsWith((code === 'UPSTREAM_TIMEOUT' ? quick : dns).lookupReverse(ip), code));
  }
});
