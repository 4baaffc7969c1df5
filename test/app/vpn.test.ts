// GET /ip/:ip/vpn over HTTP: the record, its client cache lifetime (6 h; the
// answer is computed from in-memory data, so no server cache and no X-Cache),
// special addresses and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { vpnRecordSchema } from '../../src/api/lookup-schemas.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';

describe('GET /ip/:ip/vpn', () => {
  let service: TestService;
  before(async () => {
    service = await startService({ env: { RATE_LIMIT_MAX: '1000' } });
  });
  after(() => service.close());

  it('a cloud address: hosting by its AS, kept publicly for 6 hours, no X-Cache', async () => {
    const first = await get(service.baseUrl, '/ip/8.8.8.8/vpn');
    assert.equal(first.status, 200);
    const record = vpnRecordSchema.parse(dataOf(first.body));
    assert.equal(record.ip, '8.8.8.8');
    assert.equal(record.asn, 'AS15169');
    assert.equal(record.isHosting, true);
    assert.equal(record.isMobile, false);
    assert.ok(record.reasons.includes('asn:15169 hosting'), record.reasons.join(', '));
    assert.equal(first.headers.get('x-cache'), null);
    assert.equal(first.headers.get('cache-control'), 'public, max-age=21600');
    // computed again, the same answer with the whole lifetime again
    const second = await get(service.baseUrl, '/ip/8.8.8.8/vpn');
    assert.equal(second.headers.get('x-cache'), null);
    assert.equal(second.headers.get('cache-control'), 'public, max-age=21600');
    assert.equal(second.text, first.text);
  });

  it('a special-purpose address: no flags, no AS, the reason says why', async () => {
    const res = await get(service.baseUrl, '/ip/192.168.1.1/vpn');
    assert.equal(res.status, 200);
    const record = vpnRecordSchema.parse(dataOf(res.body));
    assert.deepEqual(
      [record.isVpn, record.isProxy, record.isHosting, record.isMobile, record.isTor],
      [false, false, false, false, false],
    );
    assert.equal(record.asn, null);
    assert.deepEqual(record.reasons, ['special-purpose-address']);
  });

  it('not an address → 400 INVALID_IP', async () => {
    for (const path of ['/ip/1.2.3/vpn', '/ip/example.com/vpn', '/ip/fe80::1%25eth0/vpn']) {
      const res = await get(service.baseUrl, path);
      assert.equal(res.status, 400, path);
      assert.equal(errorCode(res.body), 'INVALID_IP', path);
    }
  });
});
