// The feeds' own publication times, each in its publisher's format, as ISO
// 8601 UTC; what is not a date stays as published.
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { normalisePublished } from '../../../../src/lookups/vpn/feeds/published-date.js';

describe('normalisePublished', () => {
  const table: { input: string | null; want: string | null }[] = [
    { input: '2025-07-24-20-23-14', want: '2025-07-24T20:23:14Z' }, // AWS createDate
    { input: '2025-07-24T19:16:28.780563', want: '2025-07-24T19:16:28.780Z' }, // Google, no zone
    { input: '2025-07-21T07:13:25.457838', want: '2025-07-21T07:13:25.457Z' }, // Oracle
    { input: '2024-04-18T07:55:40-04:00', want: '2024-04-18T11:55:40Z' }, // Vultr, an offset
    { input: '2024-03-12 14:28:38', want: '2024-03-12T14:28:38Z' }, // TorDNSEL, Linode comment
    { input: '2024-03-12T14:28:38Z', want: '2024-03-12T14:28:38Z' }, // already ISO: unchanged
    { input: '2024-03-12T14:28:38.500Z', want: '2024-03-12T14:28:38.500Z' },
    { input: '2024-03-12T14:28:38.000', want: '2024-03-12T14:28:38Z' },
    { input: '363', want: '363' }, // Azure changeNumber: a serial
    { input: '2025-13-40-99-99-99', want: '2025-13-40-99-99-99' }, // date-shaped, impossible
    { input: ' 2025-07-24-20-23-14 ', want: '2025-07-24T20:23:14Z' },
    { input: null, want: null },
  ];
  for (const { input, want } of table) {
    it(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => {
      assert.equal(normalisePublished(input), want);
    });
  }
});
