import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/kit/errors.js';
import {
  findRegistry,
  parseIanaBootstrap,
  refreshBootstrap,
  snapshotBootstrap,
} from '../../../src/lookups/rdap/bootstrap.js';
import { assertRegistrable } from '../../../src/lookups/rdap/special-ranges.js';
import { loopbackFetch, startRdapServer, type RdapServer } from '../../helpers/rdap-server.js';
import { RDAP_FIXTURES, readJson } from './fixture-files.js';
import { ip } from '../../helpers/addresses.js';

void describe('bootstrap snapshot', () => {
  const table = snapshotBootstrap();
  const cases: { input: string; want: string | null }[] = [
    { input: '8.8.8.8', want: 'arin' },
    { input: '12.0.2.10', want: 'arin' }, // legacy /8s are ARIN's
    { input: '1.1.1.1', want: 'apnic' },
    { input: '62.239.237.1', want: 'ripe' },
    { input: '200.57.141.161', want: 'lacnic' },
    { input: '196.11.240.215', want: 'afrinic' },
    { input: '223.255.255.255', want: 'apnic' },
    { input: '2606:4700:4700::1111', want: 'arin' },
    { input: '2001:67c:2e8::1', want: 'ripe' },
    { input: '2001:1200::1', want: 'lacnic' },
    { input: '2c0f:f000::1', want: 'afrinic' },
    { input: '2400:cb00::1', want: 'apnic' },
    // in 2000::/3 but never delegated in the snapshot
    { input: '3000::1', want: null },
  ];
  for (const { input, want } of cases) {
    void test(`${input} → ${want ?? 'no registry'}`, () => {
      assert.equal(findRegistry(table, ip(input))?.rir ?? null, want);
    });
  }

  void test('every base URL is https and ends with "/"', () => {
    for (const entry of table.entries) assert.match(entry.baseUrl, /^https:\/\/.+\/$/);
  });
});

void describe('IANA bootstrap format', () => {
  void test('longest prefix wins, https preferred, bad entries skipped', () => {
    const v4 = parseIanaBootstrap(readJson(RDAP_FIXTURES, 'bootstrap-ipv4.json'), 4);
    const v6 = parseIanaBootstrap(readJson(RDAP_FIXTURES, 'bootstrap-ipv6.json'), 6);
    const table = snapshotBootstrap();
    const refreshed = {
      ...table,
      entries: [...v4, ...v6].sort((a, b) => b.cidr.prefixLength - a.cidr.prefixLength),
    };
    const cases: { input: string; want: string | null }[] = [
      { input: '23.1.2.3', want: 'https://rdap.arin.net/registry/' },
      { input: '62.0.1.1', want: 'https://rdap.db.ripe.net/' },
      { input: '62.0.2.1', want: 'https://rdap.example.org/rdap/' },
      { input: '27.0.2.1', want: 'https://rdap.apnic.net/' },
      // only an ftp:// URL was listed
      { input: '200.0.2.1', want: null },
      { input: '2602:fff0::1', want: 'https://rdap.arin.net/registry/' },
      { input: '2602:fff0:1::1', want: 'https://rdap.example.net/' },
      // the IPv6 prefix listed in the IPv4 file is ignored
      { input: '2400::1', want: null },
    ];
    for (const { input, want } of cases) {
      assert.equal(findRegistry(refreshed, ip(input))?.baseUrl ?? null, want, input);
    }
  });

  const hostile: { name: string; json: unknown }[] = [
    { name: 'null', json: null },
    { name: 'an array', json: [] },
    { name: 'services not an array', json: { services: 'x' } },
    { name: 'no usable service', json: { services: [[['nope'], ['https://x/']], 7, null] } },
  ];
  for (const { name, json } of hostile) {
    void test(`bootstrap file that is ${name} → UPSTREAM_ERROR`, () => {
      assert.throws(
        () => parseIanaBootstrap(json, 4),
        (error: unknown) => error instanceof AppError && error.code === 'UPSTREAM_ERROR',
      );
    });
  }
});

void describe('refreshBootstrap over HTTP', () => {
  let server: RdapServer;
  before(async () => {
    server = await startRdapServer();
  });
  after(() => server.close());

  void test('downloads both files and keeps their publication dates', async () => {
    const table = await refreshBootstrap({
      fetch: loopbackFetch,
      timeoutMs: 1000,
      urls: { ipv4: `${server.url}iana/ipv4.json`, ipv6: `${server.url}iana/ipv6.json` },
    });
    assert.deepEqual(table.publication, {
      ipv4: '2026-01-02T03:04:05Z',
      ipv6: '2026-01-02T03:04:06Z',
    });
    assert.equal(findRegistry(table, ip('62.0.2.1'))?.rir, null);
    assert.equal(findRegistry(table, ip('62.0.3.1'))?.rir, 'ripe');
  });

  void test('a file that is not there → NOT_FOUND, and the caller keeps its old table', async () => {
    await assert.rejects(
      refreshBootstrap({
        fetch: loopbackFetch,
        timeoutMs: 1000,
        urls: { ipv4: `${server.url}iana/ipv4.json`, ipv6: `${server.url}nothing-here` },
      }),
      (error: unknown) => error instanceof AppError && error.code === 'NOT_FOUND',
    );
  });
});

void describe('special-purpose addresses → NOT_FOUND naming the range', () => {
  const cases: { input: string; want: string }[] = [
    {
      input: '10.0.0.1',
      want: '10.0.0.1 is in 10.0.0.0/8, private-use (RFC 1918): no registry holds it.',
    },
    { input: '127.0.0.1', want: 'in 127.0.0.0/8, loopback' },
    { input: '192.168.1.1', want: 'in 192.168.0.0/16, private-use' },
    { input: '172.31.255.255', want: 'in 172.16.0.0/12' },
    { input: '100.64.0.1', want: 'in 100.64.0.0/10' },
    { input: '169.254.1.1', want: 'link-local' },
    { input: '192.0.2.1', want: 'TEST-NET-1' },
    { input: '198.51.100.7', want: 'TEST-NET-2' },
    { input: '203.0.113.9', want: 'TEST-NET-3' },
    { input: '0.0.0.0', want: 'in 0.0.0.0/8' },
    { input: '224.0.0.1', want: 'multicast' },
    { input: '255.255.255.255', want: 'limited broadcast' },
    { input: '250.1.1.1', want: 'reserved for future use' },
    { input: '::1', want: 'in ::1/128, loopback' },
    { input: '::', want: 'unspecified' },
    { input: 'fe80::1', want: 'link-local unicast' },
    { input: 'fd00::1', want: 'unique local' },
    { input: '2001:db8::1', want: 'in 2001:db8::/32, documentation' },
    { input: '3fff::1', want: 'documentation (RFC 9637)' },
    { input: 'ff02::1', want: 'multicast' },
    { input: '2002:c000:0204::1', want: '6to4' },
    { input: '2001::1', want: 'IETF protocol assignments' },
    { input: '64:ff9b::1.2.3.4', want: 'translation' },
    { input: '4000::1', want: 'outside global unicast' },
  ];
  for (const { input, want } of cases) {
    void test(`${input} → NOT_FOUND (${want})`, () => {
      assert.throws(
        () => assertRegistrable(ip(input)),
        (error: unknown) =>
          error instanceof AppError && error.code === 'NOT_FOUND' && error.message.includes(want),
      );
    });
  }

  for (const input of ['8.8.8.8', '1.1.1.1', '2606:4700::1', '2001:200::1', '11.0.0.1']) {
    void test(`${input} is registrable`, () => {
      assert.doesNotThrow(() => assertRegistrable(ip(input)));
    });
  }
});
