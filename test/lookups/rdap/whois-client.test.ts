import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createWhoisClient, type WhoisClientOptions } from '../../../src/lookups/rdap/index.js';
import { loopbackFetch, startRdapServer, type RdapServer } from '../../helpers/rdap-server.js';
import { loopbackConnect, startWhoisServer, type WhoisServer } from '../../helpers/whois-server.js';
import { WHOIS_FIXTURES, fixturePairs } from './fixture-files.js';
import { ip, isCode } from '../../helpers/addresses.js';

const TIMEOUT_MS = 300;

let rdap: RdapServer;
let whois: WhoisServer;
before(async () => {
  [rdap, whois] = await Promise.all([startRdapServer(), startWhoisServer()]);
});
after(async () => {
  await Promise.all([rdap.close(), whois.close()]);
});

/** RDAP answers 503 for everything, so every lookup falls back to port 43. */
function client(extra: Partial<WhoisClientOptions> = {}) {
  return createWhoisClient({
    rdapBaseUrl: `${rdap.url}status-503/`,
    rdapTimeoutMs: TIMEOUT_MS,
    whoisServer: { host: '127.0.0.1', port: whois.port },
    whoisTimeoutMs: TIMEOUT_MS,
    fetch: loopbackFetch,
    connect: loopbackConnect,
    ...extra,
  });
}

const queriesFor = (address: string) =>
  whois.queries.filter((q) => q.query.endsWith(` ${address}`) || q.query === address);

void describe('port-43 fallback end to end, per registry fixture', () => {
  const pairs = fixturePairs(WHOIS_FIXTURES, '.txt');
  const referred = pairs.find((p) => p.name.startsWith('referred_'));
  for (const { name, expected } of pairs.filter((p) => !p.name.startsWith('referred_'))) {
    // the ARIN answer for 23.0.4.10 refers to the second port; its answer is the result
    const want = expected.ip === referred?.expected.ip ? referred.expected : expected;
    void test(`${expected.ip} (${name}) → its expected record`, async () => {
      assert.deepEqual(await client().lookupWhois(ip(expected.ip)), want);
    });
  }
});

void describe('query forms and referrals', () => {
  const forms: { address: string; want: string }[] = [
    { address: '23.0.2.10', want: 'n + 23.0.2.10' }, // ARIN: networks only, with details
    { address: '62.0.2.1', want: '-r 62.0.2.1' }, // RIPE: no contact recursion
    { address: '27.0.2.1', want: '27.0.2.1' },
    { address: '200.0.2.1', want: '200.0.2.1' },
  ];
  for (const { address, want } of forms) {
    void test(`${address} is asked as "${want}"`, async () => {
      await client().lookupWhois(ip(address));
      assert.equal(queriesFor(address).at(-1)?.query, want);
    });
  }

  void test('ARIN referral: the last ReferralServer is asked, on its own port, in its own dialect', async () => {
    await client().lookupWhois(ip('23.0.4.10'));
    const asked = queriesFor('23.0.4.10').slice(-2);
    assert.deepEqual(asked, [
      { port: whois.port, query: 'n + 23.0.4.10' },
      { port: whois.referralPort, query: '23.0.4.10' },
    ]);
  });

  void test('a referral to the same server is not followed', async () => {
    const got = await client().lookupWhois(ip('23.0.4.11'));
    assert.equal(got.name, 'EXAMPLE-REFERRING');
    assert.equal(queriesFor('23.0.4.11').length, 1);
  });

  void test('a referral that hangs → the referring answer, within the whois timeout', async () => {
    const started = Date.now();
    const got = await client().lookupWhois(ip('23.0.5.5'));
    assert.equal(got.name, 'EXAMPLE-REFERRING');
    assert.ok(Date.now() - started < TIMEOUT_MS * 2 + 200);
  });
});

void describe('whois failure modes', () => {
  const table: { name: string; address: string; rdapMount?: string; code: string }[] = [
    {
      name: 'server hangs, RDAP answered 503 → UPSTREAM_ERROR',
      address: '23.0.9.9',
      code: 'UPSTREAM_ERROR',
    },
    {
      name: 'server hangs, RDAP timed out too → UPSTREAM_TIMEOUT',
      address: '23.0.9.9',
      rdapMount: 'no-answer/',
      code: 'UPSTREAM_TIMEOUT',
    },
    { name: 'no match → NOT_FOUND', address: '23.0.8.8', code: 'NOT_FOUND' },
    { name: 'binary garbage → UPSTREAM_ERROR', address: '23.0.7.7', code: 'UPSTREAM_ERROR' },
    { name: 'answer over 256 KiB → UPSTREAM_ERROR', address: '23.0.6.6', code: 'UPSTREAM_ERROR' },
  ];
  for (const { name, address, rdapMount, code } of table) {
    void test(name, async () => {
      const options = rdapMount ? { rdapBaseUrl: `${rdap.url}${rdapMount}` } : {};
      await assert.rejects(client(options).lookupWhois(ip(address)), isCode(code));
    });
  }

  void test('whois server refusing connections → UPSTREAM_ERROR', async () => {
    const down = client({ whoisServer: { host: '127.0.0.1', port: 1 } });
    await assert.rejects(down.lookupWhois(ip('23.0.2.10')), isCode('UPSTREAM_ERROR'));
  });

  void test('a clock already past the deadline → UPSTREAM_TIMEOUT without connecting', async () => {
    let calls = 0;
    let t = 0;
    const late = client({
      rdapBaseUrl: `${rdap.url}no-answer/`,
      now: () => (t += 1000),
      connect: (target) => {
        calls++;
        return loopbackConnect(target);
      },
    });
    await assert.rejects(late.lookupWhois(ip('23.0.2.10')), isCode('UPSTREAM_TIMEOUT'));
    assert.equal(calls, 0);
  });
});

void describe('which whois server is asked without WHOIS_SERVER', () => {
  /** Records the host asked for, and sends the bytes to the loopback server instead. */
  function redirectingConnect(seen: string[]) {
    return (target: { host: string; port: number }): Socket => {
      seen.push(`${target.host}:${target.port}`);
      return loopbackConnect({ host: '127.0.0.1', port: whois.port });
    };
  }

  void test('RDAP failed for a RIPE address → whois.ripe.net:43, dialect "-r"', async () => {
    const seen: string[] = [];
    const got = await client({ whoisServer: null, connect: redirectingConnect(seen) }).lookupWhois(
      ip('62.0.2.1'),
    );
    assert.deepEqual(seen, ['whois.ripe.net:43']);
    assert.equal(got.registry, 'ripe');
    assert.equal(got.source, 'whois');
  });

  void test('a registry referral to an IP literal is not followed → its own answer', async () => {
    const seen: string[] = [];
    const got = await client({ whoisServer: null, connect: redirectingConnect(seen) }).lookupWhois(
      ip('23.0.4.10'),
    );
    assert.deepEqual(seen, ['whois.arin.net:43']);
    assert.equal(got.name, 'RIPE-ERX-23-0-4');
  });

  void test('no registry in the bootstrap and no RDAP_BASE_URL → whois.iana.org; no refer: → NOT_FOUND', async () => {
    const seen: string[] = [];
    const bare = client({
      rdapBaseUrl: null,
      whoisServer: null,
      connect: redirectingConnect(seen),
    });
    await assert.rejects(bare.lookupWhois(ip('3000::1')), isCode('NOT_FOUND'));
    assert.deepEqual(seen, ['whois.iana.org:43']);
  });
});
