// The ip-api.com surface (/ip-api/json/{ip}, POST /ip-api/batch) against the
// shapes of real ip-api.com answers: our own fixtures in
// test/fixtures/ip-api/, modelled on responses recorded in
// theiterators/akka-http-microservice's src/test/scala/ServiceSpec.scala
// (see the fixtures' README.md). Each answer for seeded addresses has the
// fixture's keys in the fixture's order with the fixture's JSON types, and
// its values are the service's own GET /ip/:ip and GET /ip/:ip/vpn records.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { BlockList } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/kit/project-root.js';
import { ownAnswers, seededAddresses, type OwnAnswer } from '../helpers/compat.js';
import { seededRandom, withSeed } from '../helpers/seeded-random.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';

type Json = Record<string, unknown>;

function fixture(name: string): { request: string; response: Json } {
  return JSON.parse(
    readFileSync(join(PROJECT_ROOT, 'test', 'fixtures', 'ip-api', `${name}.json`), 'utf8'),
  ) as { request: string; response: Json };
}

const DEFAULT = fixture('default');
const NUMERIC = fixture('numeric-mask');
const FAIL = fixture('fail');

const random = seededRandom();
const addresses = seededAddresses(random, 1000);

let service: SpawnedService;
let base = '';
let own: Map<string, OwnAnswer>;

before(async () => {
  service = await spawnService({
    RATE_LIMIT_MAX: '100000',
    LOG_LEVEL: 'warn',
    FEED_UPDATE_INTERVAL_HOURS: '0',
  });
  base = `http://127.0.0.1:${service.port}`;
  own = await ownAnswers(base, addresses);
});

after(() => service?.kill('SIGTERM'));

/** The JSON type of a value, null apart. */
const typeOf = (value: unknown): string => (value === null ? 'null' : typeof value);

/**
 * The answer has the recorded answer's keys in its order, each of its JSON
 * type; a number ipintel does not know is null (docs/api.md, "ip-api format").
 */
function assertShape(answer: Json, recorded: Json, what: string): void {
  assert.deepEqual(Object.keys(answer), Object.keys(recorded), `${what}: keys and their order`);
  for (const [key, value] of Object.entries(recorded)) {
    const type = typeOf(answer[key]);
    if (type === 'null' && typeof value === 'number') continue;
    assert.equal(type, typeOf(value), `${what}: the type of ${key}`);
  }
}

/** What the service's own records say of each field ipintel has a datum for. */
function expectedValues(answer: OwnAnswer): Json {
  const { geo, vpn } = answer;
  return {
    countryCode: geo.country ?? '',
    regionName: geo.region ?? '',
    city: geo.city ?? '',
    lat: geo.latitude,
    lon: geo.longitude,
    timezone: geo.timezone ?? '',
    isp: geo.isp ?? '',
    org: geo.org ?? '',
    as: geo.asn === null ? '' : geo.org === null ? geo.asn : `${geo.asn} ${geo.org}`,
    mobile: vpn.isMobile,
    proxy: vpn.isProxy || vpn.isVpn || vpn.isTor || vpn.isRelay,
    hosting: vpn.isHosting,
    query: geo.ip,
  };
}

function assertValues(answer: Json, own: OwnAnswer, address: string): void {
  for (const [key, value] of Object.entries(expectedValues(own))) {
    if (key in answer) assert.deepEqual(answer[key], value, `${address}: ${key}`);
  }
}

/** RFC 1918, RFC 6598 and RFC 4193: what ip-api calls "private range" */
const PRIVATE = new BlockList();
PRIVATE.addSubnet('10.0.0.0', 8);
PRIVATE.addSubnet('172.16.0.0', 12);
PRIVATE.addSubnet('192.168.0.0', 16);
PRIVATE.addSubnet('100.64.0.0', 10);
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/** ip-api's failure message for a bogon: "private range", else "reserved range". */
function bogonMessage(address: string): string {
  return PRIVATE.check(address, address.includes(':') ? 'ipv6' : 'ipv4')
    ? 'private range'
    : 'reserved range';
}

async function getJson(path: string): Promise<Json> {
  const response = await fetch(`${base}/ip-api${path}`);
  assert.equal(response.status, 200, path);
  return (await response.json()) as Json;
}

describe('ip-api.com answers under /ip-api', () => {
  it('without fields: the recorded default shape, the values of /ip and /ip/:ip/vpn', async () => {
    const sample = addresses.filter((_, i) => i % 10 === 0);
    for (const address of sample) {
      const answer = await getJson(`/json/${address}`);
      const mine = own.get(address)!;
      if (mine.geo.bogon) {
        assertShape(answer, FAIL.response, address);
        assert.equal(answer['message'], bogonMessage(address), address);
        continue;
      }
      assertShape(answer, DEFAULT.response, address);
      assertValues(answer, mine, address);
    }
  });

  it('the numeric mask: the recorded shape, query first, detection flags included', async () => {
    const mask = new URL(NUMERIC.request, 'http://x').searchParams.get('fields')!;
    const sample = addresses.filter((_, i) => i % 10 === 5);
    for (const address of sample) {
      const answer = await getJson(`/json/${address}?fields=${mask}&lang=en`);
      const mine = own.get(address)!;
      if (mine.geo.bogon) continue;
      assertShape(answer, NUMERIC.response, address);
      assertValues(answer, mine, address);
      if (mine.geo.country !== null) {
        assert.ok(String(answer['country']).length > 2, `${address}: an English country name`);
      }
    }
  });

  it('text that is no address: the recorded failure shape, echoing the query', async () => {
    const answer = await getJson('/json/no-such-host');
    assertShape(answer, FAIL.response, 'no-such-host');
    assert.deepEqual(answer, { status: 'fail', message: 'invalid query', query: 'no-such-host' });
  });

  it('the caller’s own record (/ip-api/json): here loopback, ip-api’s "reserved range"', async () => {
    assert.deepEqual(await getJson('/json'), {
      status: 'fail',
      message: 'reserved range',
      query: '127.0.0.1',
    });
  });

  it('named fields come in ip-api’s order whatever order they are asked in; unknown names are ignored', async () => {
    const answer = await getJson('/json/8.8.8.8?fields=query,hosting,nonsense,countryCode,status');
    assert.deepEqual(Object.keys(answer), ['status', 'countryCode', 'hosting', 'query']);
  });

  it('POST /ip-api/batch: 1,000 queries, a field list of their own for some, in order', async () => {
    // BATCH_MAX_ITEMS (1,000) in all: 999 addresses and one text that is none
    const queried = addresses.slice(0, 999);
    const body = queried.map((address, i) =>
      i % 3 === 0 ? { query: address, fields: 'status,countryCode,proxy,hosting,query' } : address,
    );
    const response = await fetch(`${base}/ip-api/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([...body, 'no-such-host']),
    });
    assert.equal(response.status, 200);
    const answers = (await response.json()) as Json[];
    assert.equal(answers.length, queried.length + 1);
    withSeed(random, () => {
      queried.forEach((address, i) => {
        const answer = answers[i]!;
        const mine = own.get(address)!;
        if (mine.geo.bogon) {
          assert.deepEqual(answer, {
            status: 'fail',
            message: bogonMessage(address),
            query: address,
          });
          return;
        }
        if (i % 3 === 0) {
          assert.deepEqual(Object.keys(answer), [
            'status',
            'countryCode',
            'proxy',
            'hosting',
            'query',
          ]);
        } else {
          assertShape(answer, DEFAULT.response, address);
        }
        assertValues(answer, mine, address);
      });
    });
    assertShape(answers[queried.length]!, FAIL.response, 'no-such-host');
  });

  it('a batch over BATCH_MAX_ITEMS (1,000 by default): 413 in ip-api’s failure shape, naming the limit', async () => {
    const response = await fetch(`${base}/ip-api/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 1001 }, () => '8.8.8.8')),
    });
    assert.equal(response.status, 413);
    const answer = (await response.json()) as Json;
    assert.equal(answer['status'], 'fail');
    assert.match(String(answer['message']), /1001 queries; the limit is 1000/);
  });

  it('a body that is not a list of queries: ip-api’s failure shape at 400', async () => {
    const response = await fetch(`${base}/ip-api/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"8.8.8.8"}',
    });
    assert.equal(response.status, 400);
    const answer = (await response.json()) as Json;
    assert.equal(answer['status'], 'fail');
    assert.equal(typeof answer['message'], 'string');
  });
});
