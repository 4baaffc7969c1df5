// GET /cidr over HTTP: the record for good ranges, 400 INVALID_RANGE for
// every malformed query.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cidrRecordSchema } from '../../src/api/schemas.js';
import { rawRequest } from '../helpers/inject.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';

let service: TestService;
before(async () => {
  service = await startService({ env: { RATE_LIMIT_MAX: '1000000' } });
});
after(() => service.close());

describe('GET /cidr → 200', () => {
  const table: { query: string; want: Record<string, unknown> }[] = [
    {
      query: 'range=0.0.0.0/0',
      want: {
        network: '0.0.0.0',
        broadcast: '255.255.255.255',
        totalHosts: 4294967296,
        usableHosts: 4294967294,
      },
    },
    {
      query: 'range=128.0.0.0/1',
      want: { network: '128.0.0.0', subnetMask: '128.0.0.0', totalHosts: 2147483648 },
    },
    {
      query: 'range=10.0.0.0/8',
      want: {
        network: '10.0.0.0',
        broadcast: '10.255.255.255',
        subnetMask: '255.0.0.0',
        firstHost: '10.0.0.1',
        lastHost: '10.255.255.254',
      },
    },
    {
      query: 'range=192.168.1.0/24',
      want: {
        totalHosts: 256,
        usableHosts: 254,
        firstHost: '192.168.1.1',
        lastHost: '192.168.1.254',
      },
    },
    { query: 'range=192.168.1.77/24', want: { network: '192.168.1.0', cidr: '192.168.1.0/24' } },
    {
      query: 'range=10.0.0.4/30',
      want: {
        totalHosts: 4,
        usableHosts: 2,
        firstHost: '10.0.0.5',
        lastHost: '10.0.0.6',
        broadcast: '10.0.0.7',
      },
    },
    {
      query: 'range=10.0.0.4/31',
      want: {
        totalHosts: 2,
        usableHosts: 2,
        firstHost: '10.0.0.4',
        lastHost: '10.0.0.5',
        broadcast: '10.0.0.5',
      },
    },
    {
      query: 'range=10.0.0.4/32',
      want: {
        totalHosts: 1,
        usableHosts: 1,
        firstHost: '10.0.0.4',
        lastHost: '10.0.0.4',
        broadcast: '10.0.0.4',
      },
    },
    { query: 'range=10.0.0.0%2F8', want: { network: '10.0.0.0' } }, // the slash percent-encoded
    { query: 'other=1&range=172.16.5.5/12', want: { network: '172.16.0.0' } },
  ];
  for (const { query, want } of table) {
    it(`?${query}`, async () => {
      const res = await get(service.baseUrl, `/cidr?${query}`);
      assert.equal(res.status, 200);
      const data = dataOf(res.body);
      assert.ok(cidrRecordSchema.safeParse(data).success);
      for (const [field, value] of Object.entries(want)) assert.equal(data[field], value, field);
    });
  }

  it('the same URL again: the same answer, still not cached for clients', async () => {
    const path = '/cidr?range=198.51.100.77/26';
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await get(service.baseUrl, path));
    for (const res of answers) {
      assert.equal(res.status, 200);
      assert.equal(res.text, answers[0]?.text);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('x-cache'), null);
      assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(res.text)));
    }
    assert.equal(dataOf(answers[2]?.body)['network'], '198.51.100.64');
    const head = await rawRequest(
      service.port,
      `HEAD ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });
});

describe('GET /cidr → 400 INVALID_RANGE', () => {
  const table: { target: string; why: string }[] = [
    { target: '/cidr', why: 'missing' },
    { target: '/cidr?', why: 'empty query' },
    { target: '/cidr?range', why: 'key without value' },
    { target: '/cidr?range=', why: 'empty' },
    { target: '/cidr?Range=10.0.0.0/8', why: 'the name is case-sensitive' },
    { target: '/cidr?range=10.0.0.0', why: 'no prefix' },
    { target: '/cidr?range=10.0.0.0/', why: 'empty prefix' },
    { target: '/cidr?range=10.0.0.0/33', why: '/33' },
    { target: '/cidr?range=10.0.0.0/-1', why: '/-1' },
    { target: '/cidr?range=10.0.0.0/08', why: '/08' },
    { target: '/cidr?range=010.0.0.0/8', why: 'leading zero in the address' },
    { target: '/cidr?range=10.0.0/8', why: 'three octets' },
    { target: '/cidr?range=2001:db8::/129', why: 'IPv6 /129' },
    { target: '/cidr?range=2001:db8::g/32', why: 'not hex' },
    { target: '/cidr?range=10.0.0.0/8&range=10.0.0.0/8', why: 'two range params' },
    { target: '/cidr?range=10.0.0.0%20/8', why: 'a space before the slash' },
    { target: '/cidr?range=10.0.0.0/+8', why: 'a plus (a space) in the prefix' },
    { target: '/cidr?range=10.0%20.0.0/8', why: 'a space in the address' },
    { target: '/cidr?range=%zz', why: 'undecodable escape' },
    { target: '/cidr?range=10.0.0.0/8%zz', why: 'undecodable escape after the prefix' },
    { target: `/cidr?range=${'1'.repeat(3000)}/8`, why: 'long garbage' },
  ];
  for (const { target, why } of table) {
    it(`${target.slice(0, 60)} (${why})`, async () => {
      const res = await rawRequest(
        service.port,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(res.status, 400);
      const body = JSON.parse(res.body) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'INVALID_RANGE');
      assert.ok(body.error.message.length < 300);
      assert.equal(res.headers['cache-control'], 'no-store');
    });
  }

  for (const target of [
    '/cidr?range=%2010.0.0.0/8',
    '/cidr?range=10.0.0.0/8%20',
    '/cidr?range=+10.0.0.0/8',
  ]) {
    it(`${target} (surrounding whitespace) → 400 like /ip/%201.2.3.4`, async () => {
      const res = await get(service.baseUrl, target);
      assert.equal(res.status, 400);
      assert.equal(errorCode(res.body), 'INVALID_RANGE');
    });
  }
});

describe('GET /cidr of IPv6 ranges', () => {
  it('answers the IPv6 record: broadcast null, IPv6 masks, big counts as strings', async () => {
    const res = await get(service.baseUrl, '/cidr?range=2001:db8:abcd:12::1/64');
    assert.equal(res.status, 200);
    assert.deepEqual(dataOf(res.body), {
      network: '2001:db8:abcd:12::',
      broadcast: null,
      subnetMask: 'ffff:ffff:ffff:ffff::',
      totalHosts: '18446744073709551616',
      usableHosts: '18446744073709551615',
      firstHost: '2001:db8:abcd:12::1',
      lastHost: '2001:db8:abcd:12:ffff:ffff:ffff:ffff',
      cidr: '2001:db8:abcd:12::/64',
      prefixLength: 64,
      wildcardMask: '::ffff:ffff:ffff:ffff',
    });
    assert.ok(cidrRecordSchema.safeParse(dataOf(res.body)).success);
  });

  it('an IPv4 answer is byte for byte what it was before IPv6', async () => {
    const res = await get(service.baseUrl, '/cidr?range=192.168.1.77/24');
    assert.equal(
      res.text,
      '{"data":{"network":"192.168.1.0","broadcast":"192.168.1.255","subnetMask":"255.255.255.0","totalHosts":256,"usableHosts":254,"firstHost":"192.168.1.1","lastHost":"192.168.1.254","cidr":"192.168.1.0/24","prefixLength":24,"wildcardMask":"0.0.0.255"}}',
    );
  });
});
