// The rate limit's policy: what a count means for a request, and the key a
// client is counted under (IPv6 bucketed per /64).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decide, rateLimitKey } from '../../src/http/rate-limit.js';
import { parseIp } from '../../src/net/ip.js';

describe('decide', () => {
  const table: { count: number; resetIn: number; want: [boolean, number, number] }[] = [
    { count: 1, resetIn: 60_000, want: [true, 59, 60] },
    { count: 60, resetIn: 60_000, want: [true, 0, 60] },
    { count: 61, resetIn: 59_001, want: [false, 0, 60] }, // reset rounds up
    { count: 500, resetIn: 1, want: [false, 0, 1] },
    { count: 61, resetIn: 0, want: [false, 0, 1] }, // never 0 while it is open
  ];
  for (const { count, resetIn, want } of table) {
    it(`count ${count}, ${resetIn} ms left → allowed=${want[0]} remaining=${want[1]} reset=${want[2]}`, () => {
      const d = decide({ count, resetAt: 1_000_000 + resetIn }, 60, 1_000_000);
      assert.deepEqual([d.allowed, d.remaining, d.resetSeconds, d.limit], [...want, 60]);
    });
  }
});

describe('rateLimitKey', () => {
  const table: { address: string; want: string }[] = [
    { address: '8.8.8.8', want: '8.8.8.8' },
    { address: '::ffff:8.8.8.8', want: '8.8.8.8' },
    { address: '2001:db8:1:2:3:4:5:6', want: '2001:db8:1:2::/64' },
    { address: '2001:db8:1:2:ffff:ffff:ffff:ffff', want: '2001:db8:1:2::/64' },
    { address: '2001:db8:1:3::1', want: '2001:db8:1:3::/64' },
    { address: '::1', want: '0:0:0:0::/64' },
  ];
  for (const { address, want } of table) {
    it(`${address} → ${want}`, () => {
      assert.equal(rateLimitKey(parseIp(address) ?? assert.fail(address)), want);
    });
  }

  it('every address of one /64 shares a key; the next /64 does not', () => {
    const keys = new Set(
      ['2a00:1450:4001:81b::200e', '2a00:1450:4001:81b:1::1', '2a00:1450:4001:81b:ffff::'].map(
        (a) => rateLimitKey(parseIp(a) ?? assert.fail(a)),
      ),
    );
    assert.equal(keys.size, 1);
    assert.ok(!keys.has(rateLimitKey(parseIp('2a00:1450:4001:81c::1') ?? assert.fail())));
  });
});
