// findAddress: the first address standing alone in a line, as enrich reads logs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findAddress } from '../../src/cli/find-address.js';

describe('findAddress', () => {
  const table: { line: string; want: string | null; note?: string }[] = [
    { line: '1.2.3.4 - - [26/Nov/2026:10:00:00 +0000] "GET / HTTP/1.1" 200', want: '1.2.3.4' },
    { line: '8.8.8.8', want: '8.8.8.8', note: 'a bare list' },
    { line: '2026-11-26,"Jane",203.0.113.9,ok', want: '203.0.113.9', note: 'a CSV field' },
    { line: 'client [2001:db8::1]:443 said hi', want: '2001:db8::1' },
    { line: 'from fe80::1%eth0 to 10.0.0.1', want: 'fe80::1', note: 'the zone ends the address' },
    { line: 'conn 192.0.2.1:8080 open', want: '192.0.2.1', note: 'IPv4 with a port' },
    { line: 'ended at 192.0.2.1.', want: '192.0.2.1', note: 'a sentence’s full stop' },
    { line: 'x1.2.3.4 1.2.3.4a 5.6.7.8', want: '5.6.7.8', note: 'glued to a word: not one' },
    { line: 'time 13:55:36 from 2001:DB8::A', want: '2001:db8::a', note: 'a time is not IPv6' },
    {
      line: 'v 1.2.3.4.5 and 010.1.1.1 then 9.9.9.9',
      want: '9.9.9.9',
      note: 'five parts, leading zero',
    },
    { line: 'std::vector a :: b', want: null, note: '"::" in prose' },
    { line: '::ffff:192.0.2.1 mapped', want: '192.0.2.1' },
    { line: 'no address here, just cafe and beef', want: null },
    { line: '', want: null },
    { line: '256.1.1.1 999.2.3.4', want: null },
  ];
  for (const { line, want, note } of table) {
    it(`${JSON.stringify(line)}${note === undefined ? '' : ` (${note})`}`, () => {
      assert.equal(findAddress(line)?.text ?? null, want);
    });
  }
});
