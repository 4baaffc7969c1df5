// batchJson: a query sent many times is looked up once, and the answer is
// the JSON that JSON.parse reads back to the records given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchJson } from '../../src/lookups/batch.js';
import type { Ip } from '../../src/net/ip.js';

describe('batchJson', () => {
  it('computes each distinct query once, however often it is sent', () => {
    const looked: string[] = [];
    const lookups = {
      geoip: (ip: Ip) => {
        looked.push(ip.text);
        return JSON.stringify({ ip: ip.text });
      },
      vpn: (ip: Ip) => {
        looked.push(`vpn ${ip.text}`);
        return JSON.stringify({ ip: ip.text, isVpn: false });
      },
    };
    const queries = ['1.1.1.1', '1.1.1.1', '2001:DB8::1', 'x', '1.1.1.1', 'x', '2001:DB8::1'];
    const parsed = JSON.parse(batchJson(queries, lookups)) as {
      results: unknown[];
      count: number;
      errors: number;
    };
    assert.deepEqual(looked, ['1.1.1.1', 'vpn 1.1.1.1', '2001:db8::1', 'vpn 2001:db8::1']);
    assert.equal(parsed.count, 7);
    assert.equal(parsed.errors, 2);
    assert.deepEqual(parsed.results[2], {
      query: '2001:DB8::1',
      data: { ip: '2001:db8::1', vpn: { ip: '2001:db8::1', isVpn: false } },
    });
  });
});
