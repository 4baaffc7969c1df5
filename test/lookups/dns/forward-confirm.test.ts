// Forward confirmation is bounded: of a long PTR set only the first
// MAX_CONFIRMED_NAMES names are looked up (each costs a query), in order.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { confirmHostnames, MAX_CONFIRMED_NAMES } from '../../../src/lookups/dns/forward-confirm.js';
import { createResolver } from '../../../src/lookups/dns/resolver.js';
import { parseIp } from '../../../src/net/ip.js';
import { startDnsServer, type DnsTestServer, type ZoneTable } from '../../helpers/dns-server.js';

const NAMES = Array.from({ length: MAX_CONFIRMED_NAMES + 3 }, (_, i) => `n${i}.example.test`);
let server: DnsTestServer;
before(async () => {
  const zone: ZoneTable = Object.fromEntries(
    NAMES.map((name) => [name, { records: [{ type: 'A', data: '192.0.2.9', ttl: 60 }] }]),
  );
  server = await startDnsServer(zone);
});
after(() => server.close());

it(`looks up only the first ${MAX_CONFIRMED_NAMES} names of a longer PTR set`, async () => {
  const query = createResolver({
    servers: [{ host: server.host, port: server.port }],
    timeoutMs: 2_000,
  });
  const result = await confirmHostnames(query, parseIp('192.0.2.9')!, NAMES, 2_000);
  assert.deepEqual(result.confirmed, NAMES.slice(0, MAX_CONFIRMED_NAMES));
  assert.equal(result.minTtl, 60);
  assert.equal(server.queries.length, MAX_CONFIRMED_NAMES);
});
