// The provider lists end to end: a provider's server list and an open-proxy
// list served on loopback, fetched through FEED_URL_<ID> by the updater,
// stored, loaded by the service; GET /ip/:ip/vpn and POST /batch?include=vpn
// then name the service and flag the proxy, as the schema says.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { batchSchema, vpnRecordSchema } from '../../src/api/lookup-schemas.js';
import { feedOverridesFromEnv, resolveFeeds } from '../../src/lookups/vpn/feeds/default-feeds.js';
import { updateFeeds } from '../../src/lookups/vpn/feeds/feed-updater.js';
import { startFeedServer, type FeedServer } from '../helpers/feed-server.js';
import { dataOf, get, startService, type TestService } from '../helpers/service.js';

const NORDVPN = JSON.stringify([
  {
    station: '82.102.19.137',
    ipv6_station: '',
    ips: [{ ip: { ip: '82.102.19.137', version: 4 } }],
  },
  ...Array.from({ length: 60 }, (_, i) => ({ station: `82.102.20.${i + 1}`, ipv6_station: '' })),
]);
const PROXIES = JSON.stringify(
  Array.from({ length: 60 }, (_, i) => ({
    host: `144.31.222.${i + 1}`,
    port: 8080,
    exit_ip: null,
  })),
);

describe('provider and proxy lists through update-data and the service', () => {
  let feeds: FeedServer;
  let dataDir: string;
  let service: TestService;

  before(async () => {
    feeds = await startFeedServer({ '/nord': { body: NORDVPN }, '/proxies': { body: PROXIES } });
    dataDir = await mkdtemp(join(tmpdir(), 'ipintel-providers-'));
    const env = {
      FEED_URL_NORDVPN: feeds.url('/nord'),
      FEED_URL_PROXIES_MONOSANS: feeds.url('/proxies'),
    };
    const wanted = new Set(['nordvpn', 'proxies-monosans']);
    const specs = resolveFeeds(feedOverridesFromEnv(env)).filter((f) => wanted.has(f.id));
    const results = await updateFeeds({ dataDir: join(dataDir, 'feeds'), feeds: specs });
    assert.deepEqual(
      results.map((r) => [r.feed, r.ok]),
      [
        ['nordvpn', true],
        ['proxies-monosans', true],
      ],
    );
    service = await startService({ env: { DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000' } });
  });
  after(async () => {
    await service.close();
    await feeds.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('GET /ip/:ip/vpn names the service of a listed server', async () => {
    const res = await get(service.baseUrl, '/ip/82.102.19.137/vpn');
    const record = vpnRecordSchema.parse(dataOf(res.body));
    assert.deepEqual([record.isVpn, record.provider, record.confidence], [true, 'NordVPN', 'high']);
    assert.ok(record.reasons.includes('vpn-provider:nordvpn'), record.reasons.join(', '));
  });

  it('an open proxy is isProxy (medium), provider null', async () => {
    const res = await get(service.baseUrl, '/ip/144.31.222.7/vpn');
    const record = vpnRecordSchema.parse(dataOf(res.body));
    assert.deepEqual([record.isProxy, record.isVpn, record.provider], [true, false, null]);
    assert.ok(record.reasons.includes('proxy-list:proxies-monosans'), record.reasons.join(', '));
  });

  it('POST /batch?include=vpn carries the same provider', async () => {
    const res = await fetch(`${service.baseUrl}/batch?include=vpn`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(['82.102.19.137', '8.8.8.8']),
    });
    assert.equal(res.status, 200);
    const batch = batchSchema.parse(dataOf(await res.json()));
    const providers = batch.results.map((r) => ('data' in r ? r.data.vpn?.provider : undefined));
    assert.deepEqual(providers, ['NordVPN', null]);
  });
  it('GET /ip/:ip/vpn is the record itself, byte for byte, asked twice (the verdict kept per feed set and AS record)', async () => {
    const ctx = {
      clientIp: { version: 4 as const, text: '127.0.0.1', value: 0x7f000001 },
      requestId: 't',
      headers: {},
    };
    const addresses = [
      '82.102.19.137', // a listed server
      '82.102.20.5',
      '82.102.20.60',
      '82.102.20.200', // beside the listed ones
      '144.31.222.7', // an open proxy
      '144.31.222.200',
      '8.8.8.8', // in no list
      '2001:4860:4860::8888',
    ];
    for (const round of [1, 2]) {
      for (const address of addresses) {
        const record = await service.app.call('/ip/:ip/vpn', { params: { ip: address } }, ctx);
        const res = await get(service.baseUrl, `/ip/${address}/vpn`);
        assert.equal(res.text, `{"data":${JSON.stringify(record)}}`, `${address}, round ${round}`);
      }
    }
  });
});
