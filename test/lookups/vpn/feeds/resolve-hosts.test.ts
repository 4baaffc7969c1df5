// Server host names resolved at update time through the service's own DNS
// client, against the loopback DNS server: answers of both families, a name
// that does not exist, a name that never answers (its own timeout, not the
// run's), a run past its deadline (the names not asked keep nothing), and the
// resolved addresses added to gluetun's feed with their provider.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDnsClient } from '../../../../src/lookups/dns/index.js';
import { parseGluetun } from '../../../../src/lookups/vpn/feeds/parse-vpn-catalogues.js';
import { resolveHostNames, withResolved } from '../../../../src/lookups/vpn/feeds/resolve-hosts.js';
import { startDnsServer, type DnsTestServer } from '../../../helpers/dns-server.js';

let server: DnsTestServer;
let query: ReturnType<typeof createDnsClient>['query'];

before(async () => {
  const zone: Record<
    string,
    { records?: { type: 'A' | 'AAAA' | 'CNAME'; data: string }[]; behaviour?: 'drop' }
  > = {
    'al-tia.prod.surfshark.com': {
      records: [
        { type: 'A', data: '45.90.0.10' },
        { type: 'A', data: '45.90.0.11' },
        { type: 'AAAA', data: '2a0d:5600:1::10' },
      ],
    },
    'de-fra.prod.surfshark.com': { records: [{ type: 'CNAME', data: 'edge.surfshark.com' }] },
    'edge.surfshark.com': { records: [{ type: 'A', data: '45.90.1.1' }] },
    'silent.prod.surfshark.com': { behaviour: 'drop' },
    'private.prod.surfshark.com': { records: [{ type: 'A', data: '10.0.0.1' }] },
  };
  for (let i = 0; i < 40; i++) zone[`slow-${i}.example.net`] = { behaviour: 'drop' };
  server = await startDnsServer(zone);
  query = createDnsClient({
    servers: [{ host: server.host, port: server.port }],
    timeoutMs: 2000,
  }).query;
});
after(() => server.close());

const limits = { concurrency: 4, perNameTimeoutMs: 300, deadlineMs: 5000 };

void describe('resolving server names at update time', () => {
  void it('both families, through a CNAME; NXDOMAIN and a silent name give nothing', async () => {
    const got = await resolveHostNames(
      [
        'al-tia.prod.surfshark.com',
        'AL-TIA.prod.surfshark.com',
        'de-fra.prod.surfshark.com',
        'gone.prod.surfshark.com',
        'silent.prod.surfshark.com',
      ],
      query,
      limits,
    );
    assert.deepEqual(
      [...got.addresses],
      [
        ['al-tia.prod.surfshark.com', ['45.90.0.10', '45.90.0.11', '2a0d:5600:1::10']],
        ['de-fra.prod.surfshark.com', ['45.90.1.1']],
      ],
    );
    assert.deepEqual([got.failed, got.skipped], [2, 0]);
  });

  void it('a name that never answers costs its own timeout, not more', async () => {
    const started = Date.now();
    const got = await resolveHostNames(['silent.prod.surfshark.com'], query, limits);
    const took = Date.now() - started;
    assert.deepEqual([got.addresses.size, got.failed], [0, 1]);
    assert.ok(took >= 250 && took < 2000, `${took} ms`);
  });

  void it('a run past its deadline stops: the names not asked keep nothing', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `slow-${i}.example.net`);
    const started = Date.now();
    const got = await resolveHostNames(names, query, {
      concurrency: 2,
      perNameTimeoutMs: 1000,
      deadlineMs: 400,
    });
    const took = Date.now() - started;
    assert.ok(took < 1500, `${took} ms`);
    assert.equal(got.addresses.size, 0);
    assert.ok(got.skipped >= 30, `skipped ${got.skipped}`);
    assert.equal(got.failed + got.skipped, 40);
  });

  void it('a resolver that answers nothing is given up on after the first names, not waited for until the deadline', async () => {
    // nothing listens there: every query goes unanswered (refused or timed out)
    const closed = createDnsClient({ servers: [{ host: '127.0.0.1', port: 9 }], timeoutMs: 200 });
    const names = Array.from({ length: 400 }, (_, i) => `host-${i}.example.net`);
    const started = Date.now();
    const got = await resolveHostNames(names, closed.query, {
      concurrency: 4,
      perNameTimeoutMs: 200,
      deadlineMs: 60_000,
    });
    const took = Date.now() - started;
    assert.equal(got.unreachable, true);
    assert.equal(got.addresses.size, 0);
    assert.ok(got.skipped >= 380, `skipped ${got.skipped}`);
    assert.ok(took < 5_000, `${took} ms`);
  });

  void it('a resolver that answers NXDOMAIN is not given up on: every name is asked', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `gone-${i}.prod.surfshark.com`);
    const got = await resolveHostNames(names, query, limits);
    assert.deepEqual([got.unreachable, got.failed, got.skipped], [false, 20, 0]);
  });

  void it("gluetun's names resolved are added with their provider; special-purpose answers dropped", async () => {
    const body = JSON.stringify({
      version: 1,
      surfshark: {
        version: 1,
        timestamp: 1681948800,
        servers: [
          { hostname: 'al-tia.prod.surfshark.com', ips: ['45.90.0.10'] },
          { hostname: 'private.prod.surfshark.com', ips: ['45.90.2.1'] },
          { hostname: '45.90.3.1', ips: ['45.90.3.1'] },
        ],
      },
    });
    const parsed = parseGluetun(body, 'gluetun');
    assert.deepEqual(parsed.hostNames, ['al-tia.prod.surfshark.com', 'private.prod.surfshark.com']);
    const resolved = withResolved(
      parsed,
      await resolveHostNames(parsed.hostNames ?? [], query, limits),
    );
    assert.deepEqual(resolved.prefixes, [
      '45.90.0.10/32',
      '45.90.2.1/32',
      '45.90.3.1/32',
      '45.90.0.11/32',
      '2a0d:5600:1::10/128',
    ]);
    assert.deepEqual(resolved.providers, [
      'surfshark',
      'surfshark',
      'surfshark',
      'surfshark',
      'surfshark',
    ]);
  });
});
