import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  parseCidrRange,
  parseLooseAddress,
  parseRangeText,
  rangeToCidrs,
} from '../../../src/lookups/rdap/address-range.js';
import { normalizeDate } from '../../../src/lookups/rdap/event-dates.js';

void describe('addresses as registries write them', () => {
  const cases: { input: string; want: string | null }[] = [
    { input: '074.125.000.000', want: '74.125.0.0' }, // ARIN 2015: decimal, not octal
    { input: '62.239.237.0/32', want: '62.239.237.0' }, // RIPE 2015
    { input: '2801:10:c000:0:0:0:0:0', want: '2801:10:c000::' }, // LACNIC 2015
    { input: '2001:0DB8:0000::0001/128', want: '2001:db8::1' },
    { input: ' 23.0.0.1 ', want: '23.0.0.1' },
    { input: '2001:db8::/32', want: null }, // a real prefix is not an address
    { input: '256.0.0.1', want: null },
    { input: '1.2.3', want: null },
    { input: '1.2.3.4.5', want: null },
    { input: '0x7f.0.0.1', want: null },
    { input: '', want: null },
    { input: '1.2.3.4%eth0', want: null },
    { input: 'x'.repeat(10_000), want: null },
  ];
  for (const { input, want } of cases) {
    void test(`"${input.slice(0, 30)}" → ${want ?? 'refused'}`, () => {
      assert.equal(parseLooseAddress(input)?.text ?? null, want);
    });
  }

  void test('ranges: "a - b", unspaced, reversed, mixed', () => {
    assert.equal(parseRangeText('1.0.0.0 - 1.0.0.255')?.end.text, '1.0.0.255');
    assert.equal(parseRangeText('1.0.0.0-1.0.0.255')?.start.text, '1.0.0.0');
    assert.equal(parseRangeText('1.0.0.255 - 1.0.0.0'), null);
    assert.equal(parseRangeText('1.0.0.0 - ::1'), null);
    assert.equal(parseRangeText('1.0.0.0 - 1.0.0.1 - 1.0.0.2'), null);
  });

  void test('CIDR: abbreviated, host bits set, out of range', () => {
    assert.equal(parseCidrRange('200.57.128/19')?.cidr, '200.57.128.0/19');
    assert.equal(parseCidrRange('200/8')?.end.text, '200.255.255.255');
    assert.equal(parseCidrRange('10.1.2.3/8')?.cidr, '10.0.0.0/8');
    assert.equal(
      parseCidrRange('2001:DB8::/32')?.end.text,
      '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff',
    );
    assert.equal(parseCidrRange('1.2.3.0/33'), null);
    assert.equal(parseCidrRange('::/129'), null);
    assert.equal(parseCidrRange('1.2.3.0/'), null);
  });

  void test('range → CIDRs covers exactly the range', () => {
    const cases: { range: string; want: string[] }[] = [
      {
        range: '13.64.0.0 - 13.107.255.255',
        want: ['13.64.0.0/11', '13.96.0.0/13', '13.104.0.0/14'],
      },
      { range: '0.0.0.0 - 255.255.255.255', want: ['0.0.0.0/0'] },
      { range: '1.2.3.4 - 1.2.3.4', want: ['1.2.3.4/32'] },
      { range: '1.2.3.255 - 1.2.4.0', want: ['1.2.3.255/32', '1.2.4.0/32'] },
      { range: ':: - ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', want: ['::/0'] },
      { range: '2001:db8:: - 2001:db8::1:ffff', want: ['2001:db8::/111'] },
    ];
    for (const { range, want } of cases) {
      const parsed = parseRangeText(range);
      assert.ok(parsed, range);
      assert.deepEqual(rangeToCidrs(parsed), want, range);
    }
  });
});

void describe('event dates → ISO 8601 with an offset', () => {
  const cases: { input: string; want: string | null }[] = [
    { input: '2021-12-14T20:28:53-05:00', want: '2021-12-14T20:28:53-05:00' }, // kept as sent
    { input: '2011-08-10T23:12:35Z', want: '2011-08-10T23:12:35Z' },
    { input: '2011-08-10t23:12:35z', want: '2011-08-10T23:12:35Z' },
    { input: '2011-08-10T23:12:35.123Z', want: '2011-08-10T23:12:35.123Z' },
    { input: '2011-08-10T23:12:35+0530', want: '2011-08-10T23:12:35+05:30' },
    { input: '2011-08-10T23:12', want: '2011-08-10T23:12:00Z' }, // no offset: read as UTC
    { input: '2007-03-13', want: '2007-03-13T00:00:00Z' }, // ARIN whois
    { input: '20001204', want: '2000-12-04T00:00:00Z' }, // LACNIC / old APNIC
    { input: '2020-02-29', want: '2020-02-29T00:00:00Z' },
    { input: '2021-02-29', want: null },
    { input: '2021-13-01', want: null },
    { input: '2021-01-01T24:00:00Z', want: null },
    { input: '2021-01-01T10:00:00+25:00', want: null },
    { input: '1960-01-01', want: null },
    { input: 'yesterday', want: null },
    { input: '', want: null },
    { input: '2021-01-01T00:00:00Z<script>', want: null },
  ];
  for (const { input, want } of cases) {
    void test(`"${input}" → ${want ?? 'dropped'}`, () => {
      assert.equal(normalizeDate(input), want);
    });
  }
});
