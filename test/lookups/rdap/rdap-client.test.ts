import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/kit/errors.js';
import { buildTable, snapshotBootstrap } from '../../../src/lookups/rdap/bootstrap.js';
import { createWhoisClient, type WhoisClientOptions } from '../../../src/lookups/rdap/index.js';
import { lookupRdap } from '../../../src/lookups/rdap/rdap-lookup.js';
import { loopbackFetch, startRdapServer, type RdapServer } from '../../helpers/rdap-server.js';
import { loopbackConnect, startWhoisServer, type WhoisServer } from '../../helpers/whois-server.js';
import { RDAP_FIXTURES, fixturePairs } from './fixture-files.js';
import { ip, isCode } from '../../helpers/addresses.js';

// generous enough that a loopback answer on a loaded CI machine is not taken for a timeout
const TIMEOUT_MS = 1_000;

let rdap: RdapServer;
let whois: WhoisServer;
before(async () => {
  [rdap, whois] = await Promise.all([startRdapServer(), startWhoisServer()]);
});
after(async () => {
  await Promise.all([rdap.close(), whois.close()]);
});

function client(mount: string, extra: Partial<WhoisClientOptions> = {}) {
  return createWhoisClient({
    rdapBaseUrl: `${rdap.url}${mount}`,
    rdapTimeoutMs: TIMEOUT_MS,
    whoisServer: { host: '127.0.0.1', port: whois.port },
    whoisTimeoutMs: TIMEOUT_MS,
    fetch: loopbackFetch,
    connect: loopbackConnect,
    ...extra,
  });
}

void describe('RDAP end to end, per registry fixture', () => {
  for (const { name, expected } of fixturePairs(RDAP_FIXTURES, '.json')) {
    void test(`${expected.ip} (${name}) → its expected record`, async () => {
      assert.deepEqual(await client('').lookupWhois(ip(expected.ip)), expected);
    });
  }

  void test('sends Accept: application/rdap+json, application/json to ${base}ip/<ip>', async () => {
    await client('').lookupWhois(ip('27.0.2.1'));
    const seen = rdap.requests.find((r) => r.path === '/ip/27.0.2.1');
    assert.equal(seen?.accept, 'application/rdap+json, application/json');
  });

  void test('a RIPE registrant given as a handle costs one entity request', async () => {
    const before = rdap.requests.length;
    await client('').lookupWhois(ip('62.0.2.1'));
    const paths = rdap.requests.slice(before).map((r) => r.path);
    assert.deepEqual(paths, ['/ip/62.0.2.1', '/entity/ORG-EXA1-RIPE']);
  });

  void test('entity request that never answers → the handle, within the timeout', async () => {
    const started = Date.now();
    const got = await client('entity-slow/').lookupWhois(ip('62.0.2.1'));
    assert.equal(got.registrant, 'ORG-EXA1-RIPE');
    assert.equal(got.source, 'rdap');
    assert.ok(Date.now() - started < TIMEOUT_MS * 3);
  });

  void test('redirects (302 relative, then 307 absolute) are followed', async () => {
    const before = rdap.requests.length;
    const got = await client('redirect/').lookupWhois(ip('23.0.2.10'));
    assert.equal(got.handle, 'NET-23-0-0-0-9');
    assert.deepEqual(
      rdap.requests.slice(before).map((r) => r.path),
      ['/redirect/ip/23.0.2.10', '/r2/ip/23.0.2.10', '/ip/23.0.2.10'],
    );
    assert.equal(got.source, 'rdap');
  });

  void test('JSON labelled text/plain is still parsed', async () => {
    assert.equal((await client('plain/').lookupWhois(ip('27.0.2.1'))).name, 'EXAMPLE-AP');
  });

  void test('without RDAP_BASE_URL the bootstrap picks the registry server', async () => {
    const snapshot = snapshotBootstrap();
    // the snapshot's prefixes, each pointed at a per-registry mount of the loopback server
    const entries = snapshot.entries.map((e) => ({ ...e, baseUrl: `${rdap.url}${e.rir}/` }));
    const routed = client('', {
      rdapBaseUrl: null,
      bootstrap: buildTable(entries, snapshot.publication),
    });
    for (const [address, rir] of [
      ['23.0.2.10', 'arin'],
      ['62.0.3.1', 'ripe'],
      ['2801:80:a0::1', 'lacnic'],
    ] as const) {
      const got = await routed.lookupWhois(ip(address));
      assert.equal(got.registry, rir);
      assert.ok(
        rdap.requests.some((r) => r.path === `/${rir}/ip/${address}`),
        address,
      );
    }
  });
});

// the cases are independent lookups, several of which wait out the timeout: together
void describe('RDAP failure modes (no fallback involved)', { concurrency: true }, () => {
  const table: { mount: string; address?: string; code: string; message?: RegExp }[] = [
    { mount: '', address: '23.0.99.99', code: 'NOT_FOUND' }, // registry 404
    { mount: 'error-200/', code: 'NOT_FOUND' },
    { mount: 'status-500/', code: 'UPSTREAM_ERROR' },
    { mount: 'status-503/', code: 'UPSTREAM_ERROR' },
    { mount: 'status-400/', code: 'UPSTREAM_ERROR' },
    { mount: 'rate-limited/', code: 'UPSTREAM_ERROR' }, // 429 with an HTML body
    { mount: 'html/', code: 'UPSTREAM_ERROR' },
    { mount: 'garbage/', code: 'UPSTREAM_ERROR' },
    { mount: 'not-network/', code: 'UPSTREAM_ERROR' },
    { mount: 'array/', code: 'UPSTREAM_ERROR' },
    { mount: 'huge/', code: 'UPSTREAM_ERROR', message: /exceeds 2097152 bytes/ },
    { mount: 'huge-declared/', code: 'UPSTREAM_ERROR', message: /exceeds/ },
    { mount: 'loop/', code: 'UPSTREAM_ERROR', message: /redirected more than 5 times/ },
    { mount: 'bad-redirect/', code: 'UPSTREAM_ERROR', message: /unusable redirect/ },
    { mount: 'slow-body/', code: 'UPSTREAM_TIMEOUT' },
    { mount: 'no-answer/', code: 'UPSTREAM_TIMEOUT' },
  ];
  for (const { mount, address = '23.0.2.10', code, message } of table) {
    void test(`/${mount}ip/${address} → ${code}`, async () => {
      const got = await lookupRdap(`${rdap.url}${mount}ip/${address}`, {
        fetch: loopbackFetch,
        timeoutMs: TIMEOUT_MS,
      });
      assert.equal(got.ok, false);
      assert.equal(got.ok ? null : got.error.code, code);
      if (message && !got.ok) assert.match(got.error.message, message);
    });
  }

  void test('a server that refuses connections → UPSTREAM_ERROR', async () => {
    const got = await lookupRdap('http://127.0.0.1:1/ip/23.0.2.10', {
      fetch: loopbackFetch,
      timeoutMs: TIMEOUT_MS,
    });
    assert.equal(got.ok ? null : got.error.code, 'UPSTREAM_ERROR');
  });

  void test('429 message says the query was rate-limited', async () => {
    const got = await lookupRdap(`${rdap.url}rate-limited/ip/23.0.2.10`, {
      fetch: loopbackFetch,
      timeoutMs: TIMEOUT_MS,
    });
    assert.match(got.ok ? '' : got.error.message, /rate-limited.*429/);
  });
});

void describe('error semantics of the whole lookup', () => {
  void test('special-purpose address → NOT_FOUND before any network call', async () => {
    const rdapBefore = rdap.requests.length;
    const whoisBefore = whois.queries.length;
    await assert.rejects(
      client('').lookupWhois(ip('10.0.0.1')),
      (error: unknown) =>
        isCode('NOT_FOUND')(error) &&
        (error as Error).message.includes('10.0.0.0/8, private-use (RFC 1918)'),
    );
    assert.equal(rdap.requests.length, rdapBefore);
    assert.equal(whois.queries.length, whoisBefore);
  });

  void test('registry 404 → NOT_FOUND without asking whois', async () => {
    const whoisBefore = whois.queries.length;
    await assert.rejects(client('').lookupWhois(ip('23.0.99.99')), isCode('NOT_FOUND'));
    assert.equal(whois.queries.length, whoisBefore);
  });

  const fallbacks: { name: string; mount: string; address: string; code: string }[] = [
    {
      name: 'RDAP 500, whois hangs → UPSTREAM_ERROR',
      mount: 'status-500/',
      address: '23.0.9.9',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'RDAP timeout, whois hangs → UPSTREAM_TIMEOUT',
      mount: 'no-answer/',
      address: '23.0.9.9',
      code: 'UPSTREAM_TIMEOUT',
    },
    {
      name: 'RDAP timeout, whois garbage → UPSTREAM_ERROR',
      mount: 'no-answer/',
      address: '23.0.7.7',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'RDAP HTML, whois no match → NOT_FOUND',
      mount: 'html/',
      address: '23.0.8.8',
      code: 'NOT_FOUND',
    },
    {
      name: 'RDAP garbage, whois too large → UPSTREAM_ERROR',
      mount: 'garbage/',
      address: '23.0.6.6',
      code: 'UPSTREAM_ERROR',
    },
  ];
  // independent lookups, some waiting out the timeout: together (the tests
  // around them count requests, so they stay one at a time)
  void describe('RDAP failing, then whois', { concurrency: true }, () => {
    for (const { name, mount, address, code } of fallbacks) {
      void test(name, async () => {
        await assert.rejects(client(mount).lookupWhois(ip(address)), isCode(code));
      });
    }
  });

  void test('RDAP 500 → the whois record, marked source "whois"', async () => {
    const got = await client('status-500/').lookupWhois(ip('23.0.2.10'));
    assert.equal(got.source, 'whois');
    assert.equal(got.name, 'EXAMPLE-ARIN-NET');
  });

  void test('both failing: the message names both, the cause keeps both errors', async () => {
    await assert.rejects(client('status-503/').lookupWhois(ip('23.0.7.7')), (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.match(error.message, /HTTP 503.*whois fallback failed too/);
      assert.ok(error.cause instanceof AggregateError);
      return true;
    });
  });
});
