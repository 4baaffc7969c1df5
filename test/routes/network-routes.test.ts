// HTTP-level tests of /dns, /dns/:ip/reverse, /blacklist and /whois against
// real loopback servers: a DNS server (UDP+TCP), an RDAP server and a TCP
// whois server. Every failure mode answers with the status and code of docs/api.md.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { startDnsServer, TEST_SOA, type DnsTestServer } from '../helpers/dns-server.js';
import { startRdapServer, type RdapServer } from '../helpers/rdap-server.js';
import { startService } from '../helpers/service.js';
import { startWhoisServer, type WhoisServer } from '../helpers/whois-server.js';

interface Running {
  url: string;
  close(): Promise<void>;
}

async function serve(env: Record<string, string>): Promise<Running> {
  const service = await startService({ env: { RATE_LIMIT_MAX: '100000', ...env } });
  return { url: service.baseUrl, close: () => service.close() };
}

async function get(base: string, path: string) {
  const res = await fetch(`${base}${path}`);
  const body = (await res.json()) as {
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  };
  return { status: res.status, headers: res.headers, body };
}

let dns: DnsTestServer;
let rdap: RdapServer;
let whois: WhoisServer;
let service: Running;

before(async () => {
  dns = await startDnsServer({
    'example.test': {
      records: [
        { type: 'A', data: '192.0.2.10', ttl: 120 },
        { type: 'MX', data: { preference: 10, exchange: 'mail.example.test' }, ttl: 600 },
        { type: 'TXT', data: ['v=spf1 ', 'include:_spf.example.test ~all'], ttl: 300 },
        { type: 'NS', data: 'ns1.example.test', ttl: 3600 },
      ],
    },
    'www.example.test': { records: [{ type: 'CNAME', data: 'web.example.test', ttl: 60 }] },
    'web.example.test': { records: [{ type: 'A', data: '192.0.2.20', ttl: 30 }] },
    'empty.example.test': {
      records: [{ type: 'SOA', data: (TEST_SOA as { data: unknown }).data }],
    },
    'xn--mnchen-3ya.test': { records: [{ type: 'A', data: '192.0.2.30', ttl: 300 }] },
    'broken.example.test': { behaviour: 'servfail' },
    'silent.example.test': { behaviour: 'drop' },
    '10.2.0.192.in-addr.arpa': { records: [{ type: 'PTR', data: 'host.example.test', ttl: 300 }] },
    // forward-confirmed reverse DNS: one name pointing back, one elsewhere, one never answering
    '11.2.0.192.in-addr.arpa': {
      records: [
        { type: 'PTR', data: 'confirmed.example.test', ttl: 300 },
        { type: 'PTR', data: 'elsewhere.example.test', ttl: 300 },
        { type: 'PTR', data: 'silent.example.test', ttl: 300 },
      ],
    },
    'confirmed.example.test': { records: [{ type: 'A', data: '192.0.2.11', ttl: 90 }] },
    'elsewhere.example.test': { records: [{ type: 'A', data: '192.0.2.99', ttl: 90 }] },
    // a CNAME on the way still confirms (www → web → 192.0.2.20)
    '20.2.0.192.in-addr.arpa': { records: [{ type: 'PTR', data: 'www.example.test', ttl: 300 }] },
    [`2${'.0'.repeat(23)}.8.b.d.0.1.0.0.2.ip6.arpa`]: {
      records: [{ type: 'PTR', data: 'v6.example.test', ttl: 300 }],
    },
    [`3${'.0'.repeat(23)}.8.b.d.0.1.0.0.2.ip6.arpa`]: {
      records: [{ type: 'PTR', data: 'v6.example.test', ttl: 300 }],
    },
    'v6.example.test': { records: [{ type: 'AAAA', data: '2001:db8::2', ttl: 300 }] },
    '2.0.0.127.bl.test': {
      records: [
        { type: 'A', data: '127.0.0.2', ttl: 60 },
        { type: 'TXT', data: ['listed for testing'], ttl: 60 },
      ],
    },
    '2.0.0.127.err.test': { records: [{ type: 'A', data: '127.255.255.254', ttl: 60 }] },
  });
  rdap = await startRdapServer();
  whois = await startWhoisServer();
  service = await serve({
    DNS_SERVERS: `127.0.0.1:${dns.port}`,
    DNS_TIMEOUT_MS: '150',
    DNSBL_ZONES: 'bl.test,err.test',
    RDAP_BASE_URL: rdap.url,
    RDAP_TIMEOUT_MS: '500',
    WHOIS_SERVER: `127.0.0.1:${whois.port}`,
    WHOIS_TIMEOUT_MS: '300',
  });
});

after(async () => {
  await service.close();
  await Promise.all([dns.close(), rdap.close(), whois.close()]);
});

describe('GET /dns/:domain', () => {
  it('answers A records with the TTL the server sent, then from the cache', async () => {
    const first = await get(service.url, '/dns/example.test');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.data, {
      records: [{ name: 'example.test', type: 'A', ttl: 120, data: '192.0.2.10' }],
    });
    assert.equal(first.headers.get('x-cache'), 'MISS');
    // never cached longer than the record's own TTL
    assert.equal(first.headers.get('cache-control'), 'public, max-age=120');
    const second = await get(service.url, '/dns/EXAMPLE.test.');
    assert.equal(second.headers.get('x-cache'), 'HIT');
    assert.deepEqual(second.body, first.body);
  });

  const table: { path: string; want: unknown }[] = [
    {
      path: '/dns/example.test?type=mx',
      want: [{ name: 'example.test', type: 'MX', ttl: 600, data: '10 mail.example.test.' }],
    },
    {
      path: '/dns/example.test?type=TXT',
      want: [
        {
          name: 'example.test',
          type: 'TXT',
          ttl: 300,
          data: 'v=spf1 include:_spf.example.test ~all',
        },
      ],
    },
    {
      path: '/dns/example.test?type=ns',
      want: [{ name: 'example.test', type: 'NS', ttl: 3600, data: 'ns1.example.test.' }],
    },
    {
      // a CNAME chain: each record under its own owner name
      path: '/dns/www.example.test',
      want: [
        { name: 'www.example.test', type: 'CNAME', ttl: 60, data: 'web.example.test.' },
        { name: 'web.example.test', type: 'A', ttl: 30, data: '192.0.2.20' },
      ],
    },
    {
      path: `/dns/${encodeURIComponent('münchen.test')}`,
      want: [{ name: 'xn--mnchen-3ya.test', type: 'A', ttl: 300, data: '192.0.2.30' }],
    },
    // NODATA: the name exists, the type does not
    { path: '/dns/example.test?type=AAAA', want: [] },
  ];
  for (const { path, want } of table) {
    it(`${path} → 200 with its records`, async () => {
      const { status, body } = await get(service.url, path);
      assert.equal(status, 200);
      assert.deepEqual(body.data?.['records'], want);
    });
  }

  const failures: { path: string; status: number; code: string }[] = [
    { path: '/dns/nowhere.example.test', status: 404, code: 'NXDOMAIN' },
    { path: '/dns/broken.example.test', status: 502, code: 'UPSTREAM_ERROR' },
    { path: '/dns/silent.example.test', status: 504, code: 'UPSTREAM_TIMEOUT' },
    { path: '/dns/bad..example.test', status: 400, code: 'INVALID_DOMAIN' },
    { path: '/dns/-bad.test', status: 400, code: 'INVALID_DOMAIN' },
    { path: `/dns/${'a'.repeat(64)}.test`, status: 400, code: 'INVALID_DOMAIN' },
    { path: '/dns/example.test?type=SOA', status: 400, code: 'INVALID_TYPE' },
    { path: '/dns/example.test?type=', status: 400, code: 'INVALID_TYPE' },
  ];
  for (const { path, status, code } of failures) {
    it(`${path} → ${status} ${code}`, async () => {
      const res = await get(service.url, path);
      assert.equal(res.status, status);
      assert.equal(res.body.error?.code, code);
      assert.equal(res.headers.get('cache-control'), 'no-store');
    });
  }

  it('does not cache an upstream failure', async () => {
    const before = dns.queries.filter((q) => q.name === 'broken.example.test').length;
    await get(service.url, '/dns/broken.example.test');
    const afterCount = dns.queries.filter((q) => q.name === 'broken.example.test').length;
    assert.ok(afterCount > before, 'the second request asked the server again');
  });

  it('coalesces concurrent identical lookups into one upstream query', async () => {
    const count = () =>
      dns.queries.filter((q) => q.name === 'web.example.test' && q.type === 'AAAA').length;
    const results = await Promise.all(
      Array.from({ length: 10 }, () => get(service.url, '/dns/web.example.test?type=AAAA')),
    );
    assert.ok(results.every((r) => r.status === 200));
    assert.equal(count(), 1);
  });
});

describe('GET /dns/:ip/reverse', () => {
  it('answers the PTR names without trailing dot', async () => {
    const { status, body } = await get(service.url, '/dns/192.0.2.10/reverse');
    assert.equal(status, 200);
    assert.deepEqual(body.data, {
      ip: '192.0.2.10',
      ptr: '10.2.0.192.in-addr.arpa',
      hostnames: ['host.example.test'],
      // host.example.test has no A record: a PTR alone confirms nothing
      confirmedHostnames: [],
    });
  });

  it('confirms the names whose A records hold the address; a silent one is not confirmed, and the answer still comes', async () => {
    const started = performance.now();
    const { status, headers, body } = await get(service.url, '/dns/192.0.2.11/reverse');
    const ms = performance.now() - started;
    assert.equal(status, 200);
    assert.deepEqual(body.data?.['hostnames'], [
      'confirmed.example.test',
      'elsewhere.example.test',
      'silent.example.test',
    ]);
    assert.deepEqual(body.data?.['confirmedHostnames'], ['confirmed.example.test']);
    // the silent name's lookup is cut at one DNS_TIMEOUT_MS (150 ms), not three tries
    assert.ok(ms < 400, `answered in ${Math.round(ms)} ms`);
    // kept no longer than the confirming A record (90 s) lives
    assert.equal(headers.get('cache-control'), 'public, max-age=90');
    const again = await get(service.url, '/dns/192.0.2.11/reverse');
    assert.equal(again.headers.get('x-cache'), 'HIT');
    assert.deepEqual(again.body, body);
  });

  it('follows a CNAME to the confirming A record, and AAAA for an IPv6 address', async () => {
    const table = [
      { ip: '192.0.2.20', want: ['www.example.test'] },
      { ip: '2001:db8::2', want: ['v6.example.test'] },
      { ip: '2001:db8::3', want: [] }, // the name's AAAA is 2001:db8::2: not confirmed
    ];
    for (const { ip, want } of table) {
      const { body } = await get(service.url, `/dns/${ip}/reverse`);
      assert.deepEqual(body.data?.['confirmedHostnames'], want, ip);
    }
  });

  it('answers 200 with no hostnames when there is no PTR', async () => {
    const { status, body } = await get(service.url, '/dns/2001:db8::1/reverse');
    assert.equal(status, 200);
    assert.deepEqual(body.data?.['hostnames'], []);
    assert.equal(body.data?.['ptr'], `1${'.0'.repeat(23)}.8.b.d.0.1.0.0.2.ip6.arpa`);
  });

  it('refuses a bad address with 400 INVALID_IP', async () => {
    const { status, body } = await get(service.url, '/dns/1.2.3/reverse');
    assert.equal(status, 400);
    assert.equal(body.error?.code, 'INVALID_IP');
  });
});

describe('GET /blacklist/:ip', () => {
  it('reports a listing with its reason, and a list error code as an error', async () => {
    const { status, body } = await get(service.url, '/blacklist/127.0.0.2');
    assert.equal(status, 200);
    const sources = body.data?.['sources'] as Record<string, unknown>[];
    const bl = sources.find((s) => s['zone'] === 'bl.test');
    const err = sources.find((s) => s['zone'] === 'err.test');
    assert.equal(bl?.['listed'], true);
    assert.equal(bl?.['reason'], 'listed for testing');
    assert.equal(err?.['listed'], false);
    assert.equal(typeof err?.['error'], 'string');
    assert.equal(body.data?.['isListed'], true);
  });

  it('an answer with a failed list lives 60 s, so the list is asked again soon', async () => {
    const { headers } = await get(service.url, '/blacklist/127.0.0.2');
    assert.match(headers.get('cache-control') ?? '', /^public, max-age=(60|59)$/);
  });

  it('an address on no list is not listed, and the answer lives an hour', async () => {
    const { status, body, headers } = await get(service.url, '/blacklist/192.0.2.99');
    assert.equal(status, 200);
    assert.equal(body.data?.['isListed'], false);
    assert.equal(headers.get('cache-control'), 'public, max-age=3600');
  });

  it('IPv6 → 400 IPV4_ONLY', async () => {
    const { status, body } = await get(service.url, '/blacklist/2001:db8::1');
    assert.equal(status, 400);
    assert.equal(body.error?.code, 'IPV4_ONLY');
  });
});

describe('GET /whois/:ip', () => {
  it('maps the registry’s RDAP answer into the whois record', async () => {
    const { status, body, headers } = await get(service.url, '/whois/23.0.2.10');
    assert.equal(status, 200);
    assert.equal(body.data?.['ip'], '23.0.2.10');
    assert.equal(body.data?.['source'], 'rdap');
    assert.equal(typeof body.data?.['startAddress'], 'string');
    assert.ok(Array.isArray(body.data?.['events']));
    assert.equal(headers.get('cache-control'), 'public, max-age=604800');
  });

  it('a special-purpose address → 404 NOT_FOUND naming its range', async () => {
    const { status, body } = await get(service.url, '/whois/10.1.2.3');
    assert.equal(status, 404);
    assert.equal(body.error?.code, 'NOT_FOUND');
    assert.match(body.error?.message ?? '', /10\.0\.0\.0\/8/);
  });

  it('registry 404 → 404 NOT_FOUND', async () => {
    const { status, body } = await get(service.url, '/whois/23.0.77.77');
    assert.equal(status, 404);
    assert.equal(body.error?.code, 'NOT_FOUND');
  });

  it('RDAP 500 and whois unreachable → 502 UPSTREAM_ERROR', async () => {
    const broken = await serve({
      RDAP_BASE_URL: `${rdap.url}status-500/`,
      WHOIS_SERVER: '127.0.0.1:9',
    });
    try {
      const { status, body } = await get(broken.url, '/whois/23.0.2.10');
      assert.equal(status, 502);
      assert.equal(body.error?.code, 'UPSTREAM_ERROR');
    } finally {
      await broken.close();
    }
  });

  it('RDAP and whois both silent → 504 UPSTREAM_TIMEOUT', async () => {
    const slow = await serve({
      RDAP_BASE_URL: `${rdap.url}no-answer/`,
      RDAP_TIMEOUT_MS: '200',
      WHOIS_SERVER: `127.0.0.1:${whois.port}`,
      WHOIS_TIMEOUT_MS: '200',
    });
    try {
      const started = Date.now();
      const { status, body } = await get(slow.url, '/whois/23.0.9.9');
      assert.equal(status, 504);
      assert.equal(body.error?.code, 'UPSTREAM_TIMEOUT');
      assert.ok(Date.now() - started < 2000, 'bounded by the two timeouts');
    } finally {
      await slow.close();
    }
  });
});
