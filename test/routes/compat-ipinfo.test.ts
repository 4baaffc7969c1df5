// node-ipinfo (the npm client of ipinfo.io) pointed at the service by its
// baseUrl alone (http://HOST/ipinfo): its parsed objects for 1,000 seeded
// addresses (one getBatch, and lookupIp for a sample) equal the service's own
// GET /ip/:ip and GET /ip/:ip/vpn records; bogons, bad input, a wrong token
// and the rate limit end in the client's own documented answers and errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiLimitError, IPinfoWrapper, type IPinfo } from 'node-ipinfo';
import {
  clientAddresses,
  keyedCompatService,
  ownAnswers,
  type OwnAnswer,
} from '../helpers/compat.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';
import type { SpawnedService } from '../helpers/spawned-service.js';

const KEY = 'ipinfo-test-key-0123456789';
const TINY = 'ipinfo-tiny-key-0123456789';
const random = seededRandom();
const addresses = clientAddresses(random);

let started: Awaited<ReturnType<typeof keyedCompatService>> | undefined;
let service: SpawnedService;
let base = '';
let own: Map<string, OwnAnswer>;

before(async () => {
  started = await keyedCompatService('ipintel-ipinfo-', KEY, TINY);
  service = started.service;
  base = `http://127.0.0.1:${service.port}`;
  own = await ownAnswers(base, addresses, { authorization: `Bearer ${KEY}` });
});

after(() => started?.close());

const client = (token = KEY) =>
  new IPinfoWrapper(token, undefined, undefined, undefined, `${base}/ipinfo`);

/** What the client's object holds for an address, from the service's own records. */
function expected(answer: OwnAnswer): Record<string, unknown> {
  const { geo, vpn } = answer;
  if (geo.bogon) return { ip: geo.ip, bogon: true };
  const out: Record<string, unknown> = { ip: geo.ip };
  if (geo.city !== null) out['city'] = geo.city;
  if (geo.region !== null) out['region'] = geo.region;
  if (geo.country !== null) out['countryCode'] = geo.country;
  if (geo.latitude !== null) out['loc'] = [geo.latitude, geo.longitude];
  if (geo.asn !== null) out['org'] = geo.org === null ? geo.asn : `${geo.asn} ${geo.org}`;
  if (geo.timezone !== null) out['timezone'] = geo.timezone;
  if (geo.asn !== null)
    out['asn'] = { asn: geo.asn, ...(geo.org === null ? {} : { name: geo.org }) };
  out['privacy'] = {
    vpn: vpn.isVpn,
    proxy: vpn.isProxy,
    tor: vpn.isTor,
    relay: vpn.isRelay,
    hosting: vpn.isHosting,
    service: vpn.provider ?? '',
  };
  return out;
}

/** The client's object, read the way expected() writes it. */
function parsed(info: IPinfo & { bogon?: boolean }): Record<string, unknown> {
  if (info.bogon === true) return { ip: info.ip, bogon: true };
  const out: Record<string, unknown> = { ip: info.ip };
  if (info.city !== undefined) out['city'] = info.city;
  if (info.region !== undefined) out['region'] = info.region;
  if (info.countryCode !== undefined) out['countryCode'] = info.countryCode;
  if (info.loc !== undefined) out['loc'] = info.loc.split(',').map(Number);
  if (info.org !== undefined) out['org'] = info.org;
  if (info.timezone !== undefined) out['timezone'] = info.timezone;
  if (info.asn !== undefined) out['asn'] = { ...info.asn };
  if (info.privacy !== undefined) out['privacy'] = { ...info.privacy };
  return out;
}

describe('node-ipinfo with baseUrl http://HOST/ipinfo', () => {
  it('getBatch: 1,000 seeded addresses (IPv4, IPv6, bogons) equal the service’s own records', async () => {
    const results = (await client().getBatch(addresses)) as unknown as Record<
      string,
      IPinfo & { bogon?: boolean }
    >;
    assert.equal(Object.keys(results).length, addresses.length);
    // the override row answers for its addresses (the whole record's way)
    assert.equal(own.get('8.8.8.8')?.geo.city, 'Leipzig');
    assert.equal(results['8.8.8.8']?.privacy.service, 'ExampleVPN');
    let bogons = 0;
    let v6 = 0;
    withSeed(random, () => {
      for (const address of addresses) {
        const answer = own.get(address)!;
        if (answer.geo.bogon) bogons++;
        if (address.includes(':')) v6++;
        assert.deepEqual(parsed(results[address]!), expected(answer), address);
        if (answer.geo.country !== null) {
          // the client's own enrichment from the code we answer
          assert.equal(typeof results[address]!.country, 'string', address);
        }
      }
    });
    assert.ok(bogons >= 18 && v6 >= 200, `${bogons} bogons, ${v6} IPv6 addresses`);
  });

  it('lookupIp (GET /ipinfo/{ip}/json) of a sample equals the records, its enrichment included', async () => {
    const ipinfo = client();
    const sample = addresses.filter((_, i) => i % 20 === 0);
    for (const address of sample) {
      const info = (await ipinfo.lookupIp(address)) as IPinfo & { bogon?: boolean };
      assert.deepEqual(parsed(info), expected(own.get(address)!), address);
      if (info.bogon !== true && info.countryCode !== undefined) {
        assert.equal(typeof info.isEU, 'boolean');
        assert.equal(info.continent?.code.length, 2, address);
      }
    }
  });

  it('bad input: the client’s own error before any request, and ipinfo’s "Wrong ip" from the service', async () => {
    await assert.rejects(client().lookupIp('not-an-ip'), /not a valid IPv4 address/);
    const results = (await client().getBatch(['not-an-ip', '8.8.8.8/city'])) as unknown as Record<
      string,
      unknown
    >;
    assert.deepEqual(results['not-an-ip'], {
      error: { title: 'Wrong ip', message: 'Please provide a valid IP address' },
    });
    assert.equal(results['8.8.8.8/city'], await cityOf('8.8.8.8'));
    // entries named like an object's own members are entries like any other
    const members = await fetch(`${base}/ipinfo/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(['constructor', 'toString', '__proto__']),
    });
    assert.equal(members.status, 200);
    const wrongIp = { error: { title: 'Wrong ip', message: 'Please provide a valid IP address' } };
    assert.deepEqual(Object.entries((await members.json()) as Record<string, unknown>), [
      ['constructor', wrongIp],
      ['toString', wrongIp],
      ['__proto__', wrongIp],
    ]);
    const direct = await fetch(`${base}/ipinfo/not-an-ip`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    assert.equal(direct.status, 404);
    assert.deepEqual(await direct.json(), {
      status: 404,
      error: { title: 'Wrong ip', message: 'Please provide a valid IP address' },
    });
  });

  it('a wrong token: the client’s error naming the 401; over the limit: its ApiLimitError', async () => {
    await assert.rejects(client('wrong-token').lookupIp('8.8.8.8'), /401/);
    const tiny = client(TINY);
    await tiny.lookupIp('8.8.4.4');
    await assert.rejects(tiny.lookupIp('1.1.1.1'), (error) => error instanceof ApiLimitError);
  });

  it('the refusals’ bodies in ipinfo’s shape: a wrong token 401, a batch over the limit 413, an unknown field in a batch', async () => {
    const wrong = await fetch(`${base}/ipinfo/8.8.8.8`, {
      headers: { authorization: 'Bearer wrong-token' },
    });
    assert.equal(wrong.status, 401);
    const unknown = (await wrong.json()) as { status: number; error: { title: string } };
    assert.equal(unknown.status, 401);
    assert.equal(unknown.error.title, 'Unknown token');

    const batch = (entries: string[]) =>
      fetch(`${base}/ipinfo/batch`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(entries),
      });
    const tooMany = await batch(
      Array.from({ length: 1001 }, (_, i) => `10.0.${i >> 8}.${i & 255}`),
    );
    assert.equal(tooMany.status, 413);
    const large = (await tooMany.json()) as { status: number; error: { title: string } };
    assert.deepEqual([large.status, large.error.title], [413, 'Too many IPs']);

    const fields = await batch(['8.8.8.8/country', '8.8.8.8/no-such-field', 'not-an-ip/city']);
    assert.equal(fields.status, 200);
    const answer = (await fields.json()) as Record<string, unknown>;
    assert.equal(answer['8.8.8.8/country'], await countryOf('8.8.8.8'));
    assert.deepEqual(answer['8.8.8.8/no-such-field'], {
      error: { title: 'Wrong field', message: 'ipintel has no field "no-such-field"' },
    });
    assert.deepEqual(answer['not-an-ip/city'], {
      error: { title: 'Wrong ip', message: 'Please provide a valid IP address' },
    });
  });

  it('one field as a line of text (curl HOST/ipinfo/8.8.8.8/city, HOST/ipinfo/ip): the record’s values, objects as JSON', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const text = async (path: string) => {
      const response = await fetch(`${base}${path}`, { headers });
      return {
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      };
    };
    const sample = addresses.filter((a) => !own.get(a)!.geo.bogon).slice(0, 20);
    for (const address of sample) {
      const { geo, vpn } = own.get(address)!;
      const city = await text(`/ipinfo/${address}/city`);
      assert.deepEqual(city, {
        status: 200,
        type: 'text/plain; charset=utf-8',
        body: `${geo.city ?? ''}\n`,
      });
      assert.equal((await text(`/ipinfo/${address}/country`)).body, `${geo.country ?? ''}\n`);
      const privacy = JSON.parse((await text(`/ipinfo/${address}/privacy`)).body) as {
        vpn: boolean;
        hosting: boolean;
      };
      assert.deepEqual([privacy.vpn, privacy.hosting], [vpn.isVpn, vpn.isHosting], address);
    }
    // a field ipintel has no datum for: an empty line, as for a field the record lacks
    assert.equal((await text('/ipinfo/8.8.8.8/postal')).body, '\n');
    assert.equal((await text('/ipinfo/ip')).body, '127.0.0.1\n', 'the caller’s own address');
    const unknown = await text('/ipinfo/8.8.8.8/no-such-field');
    assert.equal(unknown.status, 404);
    assert.equal(
      (JSON.parse(unknown.body) as { error: { title: string } }).error.title,
      'Wrong field',
    );
    assert.equal((await text('/ipinfo/not-an-ip/city')).status, 404);
  });

  it('answers carry the ETag of the data; a matching If-None-Match is a 304', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const first = await fetch(`${base}/ipinfo/8.8.8.8`, { headers });
    const etag = first.headers.get('etag');
    assert.ok(etag !== null && first.headers.get('x-data-version') !== null);
    const again = await fetch(`${base}/ipinfo/8.8.8.8`, {
      headers: { ...headers, 'if-none-match': etag },
    });
    assert.equal(again.status, 304);
  });
});

async function countryOf(address: string): Promise<string | null> {
  const response = await fetch(`${base}/ip/${address}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return ((await response.json()) as { data: { country: string | null } }).data.country;
}

async function cityOf(address: string): Promise<string | null> {
  const response = await fetch(`${base}/ip/${address}`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  return ((await response.json()) as { data: { city: string | null } }).data.city;
}
