// batchJson: a query sent many times is looked up once (its bytes copied),
// and the answer is the JSON that JSON.parse reads back to the records given.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { batchJson } from '../../src/api/batch.js';
import type { Ip } from '../../src/net/ip.js';

describe('batchJson', () => {
  it('computes each distinct query once, however often it is sent', () => {
    const looked: string[] = [];
    const lookups = {
      geoip: {
        writeJson: (ip: Ip, out: Buffer, at: number) => {
          looked.push(ip.text);
          return at + out.write(JSON.stringify({ ip: ip.text }), at);
        },
        maxJsonBytes: () => 64,
      },
      vpn: (ip: Ip) => {
        looked.push(`vpn ${ip.text}`);
        return JSON.stringify({ ip: ip.text, isVpn: false });
      },
    };
    const queries = ['1.1.1.1', '1.1.1.1', '2001:DB8::1', 'x', '1.1.1.1', 'x', '2001:DB8::1'];
    const parsed = JSON.parse(batchJson(queries, lookups).toString('utf8')) as {
      results: unknown[];
      count: number;
      errors: number;
    };
    assert.deepEqual(looked.sort(), ['1.1.1.1', '2001:db8::1', 'vpn 1.1.1.1', 'vpn 2001:db8::1']);
    assert.equal(parsed.count, 7);
    assert.equal(parsed.errors, 2);
    assert.deepEqual(parsed.results[2], {
      query: '2001:DB8::1',
      data: { ip: '2001:db8::1', vpn: { ip: '2001:db8::1', isVpn: false } },
    });
    assert.deepEqual(parsed.results[4], parsed.results[0]);
    assert.deepEqual(parsed.results[5], {
      query: 'x',
      error: { code: 'INVALID_IP', message: '"x" is not an IPv4 or IPv6 address.' },
    });
  });

  it('writes the envelope around the answer, and grows its buffer for a batch larger than guessed', () => {
    const queries = Array.from({ length: 300 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const long = JSON.stringify({ note: 'x'.repeat(2000) });
    const lookups = {
      geoip: {
        writeJson: (ip: Ip, out: Buffer, at: number) => at + out.write(long, at),
        maxJsonBytes: () => long.length,
      },
    };
    const text = batchJson(queries, lookups, '{"data":', '}').toString('utf8');
    const parsed = JSON.parse(text) as { data: { results: { query: string }[]; count: number } };
    assert.equal(parsed.data.count, 300);
    assert.deepEqual(
      parsed.data.results.map((r) => r.query),
      queries,
    );
  });
});
