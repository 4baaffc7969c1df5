// detect() with the provider, proxy and datacenter feeds: which service is
// named (own list before an aggregate, none when two disagree), the reasons
// and confidences, isHosting without isVpn for datacenters, proxy entries that
// expire with their list, and gluetun's per-address providers through the index.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIp, type Ip } from '../../../src/net/ip.js';
import { parseAsnClasses } from '../../../src/lookups/vpn/asn-classes.js';
import { detect } from '../../../src/lookups/vpn/detect.js';
import { FeedIndex } from '../../../src/lookups/vpn/index/detection-index.js';
import { storedFeed } from '../../helpers/vpn-feeds.js';

const FETCHED = Date.parse('2026-08-22T00:00:00Z');

const feed = storedFeed;

const ip = (text: string): Ip => parseIp(text)!;
const noClasses = parseAsnClasses('asn,name,class,source\n');

function indexAt(now: number): FeedIndex {
  return new FeedIndex(
    [
      feed('mullvad-app', 'vpn', ['103.124.165.130/32', '2a04:27c0:0:c::f001/128'], {
        provider: 'mullvad',
      }),
      feed('pia', 'vpn', ['86.107.104.249/32', '146.70.115.218/32'], { provider: 'pia' }),
      feed('torguard-own', 'vpn', ['146.70.115.218/32'], { provider: 'torguard' }),
      feed(
        'gluetun',
        'vpn',
        ['31.171.155.3/32', '86.107.104.249/32', '2a0d:5600:6::1/128', '45.9.9.9/32'],
        {
          providers: ['cyberghost', 'nordvpn', 'pia', 'surfshark'],
        },
      ),
      feed('proxies-monosans', 'proxy', ['144.31.222.106/32']),
      feed('datacenter-x4b-v4', 'hosting', ['149.22.0.0/16']),
    ],
    noClasses,
    [],
    { proxyMaxAgeMs: 48 * 3600_000, now: () => now },
  );
}

void describe('provider, proxy and datacenter verdicts', () => {
  const fresh = indexAt(FETCHED + 3600_000);
  const run = (text: string, index = fresh) => detect(ip(text), () => null, index);

  void it('a provider list names the service, with a high-confidence reason', () => {
    for (const text of ['103.124.165.130', '2a04:27c0:0:c::f001']) {
      const d = run(text);
      assert.equal(d.isVpn, true);
      assert.equal(d.provider, 'Mullvad');
      assert.deepEqual(d.reasons, ['vpn-provider:mullvad']);
      assert.equal(d.confidence, 'high');
    }
  });

  void it('gluetun names the provider of each address (IPv6 too)', () => {
    assert.equal(run('31.171.155.3').provider, 'CyberGhost');
    assert.equal(run('2a0d:5600:6::1').provider, 'Private Internet Access');
  });

  void it("a provider's own list wins over the older aggregate", () => {
    const d = run('86.107.104.249');
    assert.equal(d.provider, 'Private Internet Access');
    assert.deepEqual(d.reasons, ['vpn-provider:pia', 'vpn-provider:nordvpn']);
  });

  void it('two own lists claiming one address: flagged, but no provider named', () => {
    const d = run('146.70.115.218');
    assert.equal(d.isVpn, true);
    assert.equal(d.provider, null);
  });

  void it('an open-proxy entry is isProxy with medium confidence, not isVpn', () => {
    const d = run('144.31.222.106');
    assert.deepEqual([d.isProxy, d.isVpn, d.isTor, d.confidence], [true, false, false, 'medium']);
    assert.deepEqual(d.reasons, ['proxy-list:proxies-monosans']);
  });

  void it('a proxy list older than its maximum age stops counting', () => {
    const stale = indexAt(FETCHED + 49 * 3600_000);
    const d = run('144.31.222.106', stale);
    assert.equal(d.isProxy, false);
    assert.deepEqual(d.reasons, []);
    assert.equal(stale.settledSetOf(ip('144.31.222.106')), -1, 'the verdict memo is bypassed');
    assert.ok(indexAt(FETCHED).settledSetOf(ip('144.31.222.106')) > 0, 'while it counts, kept');
  });

  void it('a stale proxy list drops out of a shared address; the fresh list and the provider stay', () => {
    const host = '146.70.115.219/32';
    const at = (hours: number) => new Date(FETCHED + hours * 3600_000).toISOString();
    const index = new FeedIndex(
      [
        feed('proxies-old', 'proxy', [host], { fetchedAt: at(-30) }),
        feed('proxies-new', 'proxy', [host], { fetchedAt: at(0) }),
        feed('pia', 'vpn', [host], { provider: 'pia' }),
      ],
      noClasses,
      [],
      { proxyMaxAgeMs: 24 * 3600_000, now: () => FETCHED + 3600_000 },
    );
    const d = run('146.70.115.219', index);
    assert.deepEqual(d.reasons, ['proxy-list:proxies-new', 'vpn-provider:pia']);
    assert.deepEqual([d.isProxy, d.isVpn, d.provider], [true, true, 'Private Internet Access']);
  });

  void it('a datacenter list is isHosting (medium), never isVpn', () => {
    const d = run('149.22.83.100');
    assert.deepEqual(
      [d.isHosting, d.isVpn, d.provider, d.confidence],
      [true, false, null, 'medium'],
    );
    assert.deepEqual(d.reasons, ['datacenter-list:datacenter-x4b']);
  });

  void it('outside every list: nothing, provider null', () => {
    const d = run('8.8.4.4');
    assert.deepEqual([d.isVpn, d.isProxy, d.isHosting, d.provider], [false, false, false, null]);
  });

  void it('counts merged ranges per feed across its provider labels', () => {
    const gluetun = fresh.feeds.find((f) => f.feed === 'gluetun');
    assert.equal(gluetun?.ranges, 4);
  });
});
