// POST /batch over HTTP: every rule of the issue — input order, duplicates,
// per-item errors, the item limit, wrong body types, include=vpn, one
// rate-limit unit per batch — and results equal to GET /ip/:ip's.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { batchSchema } from '../../src/api/lookup-schemas.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';
import { seededRandom, type SeededRandom } from '../helpers/seeded-random.js';

interface Result {
  query: string;
  data?: Record<string, unknown> & { vpn?: Record<string, unknown> };
  error?: { code: string; message: string };
}
interface Batch {
  results: Result[];
  count: number;
  errors: number;
}

function post(service: TestService, body: string, path = '/batch', type = 'application/json') {
  return get(service.baseUrl, path, {
    method: 'POST',
    headers: { 'content-type': type },
    body,
  });
}

function randomAddress(random: SeededRandom): string {
  if (random.chance(0.7)) {
    const v = random.u32();
    return `${v >>> 24}.${(v >>> 16) & 255}.${(v >>> 8) & 255}.${v & 255}`;
  }
  // inside 2000::/3, where the public IPv6 space is
  const groups = [0x2000 + random.below(0x2000)];
  for (let i = 1; i < 8; i++) groups.push(random.below(0x10000));
  return groups.map((g) => g.toString(16)).join(':');
}

describe('POST /batch', () => {
  let service: TestService;
  before(async () => {
    service = await startService({ env: { RATE_LIMIT_MAX: '1000000' } });
  });
  after(() => service.close());

  it('answers one result per query, in input order, each equal to GET /ip/:ip', async () => {
    const random = seededRandom();
    const queries = Array.from({ length: 300 }, () => randomAddress(random));
    queries.push('8.8.8.8', '192.168.1.1', '::ffff:1.2.3.4', '2606:4700:4700::1111');
    const res = await post(service, JSON.stringify(queries));
    assert.equal(res.status, 200, res.text);
    const batch = batchSchema.parse(dataOf(res.body)) as Batch;
    assert.equal(batch.count, queries.length);
    assert.equal(batch.errors, 0);
    assert.deepEqual(
      batch.results.map((r) => r.query),
      queries,
    );
    for (const [i, result] of batch.results.entries()) {
      const single = await get(service.baseUrl, `/ip/${encodeURIComponent(queries[i]!)}`);
      assert.deepEqual(
        result.data,
        dataOf(single.body),
        `${queries[i]} (TEST_SEED=${random.seed})`,
      );
    }
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('x-data-attribution') ?? '', /DB-IP/);
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(res.text)));
  });

  it('keeps duplicates in place, with identical results', async () => {
    const queries = ['1.1.1.1', '8.8.8.8', '1.1.1.1', 'bad', '1.1.1.1', 'bad'];
    const res = await post(service, JSON.stringify(queries));
    const batch = dataOf<Batch>(res.body);
    assert.deepEqual(
      batch.results.map((r) => r.query),
      queries,
    );
    assert.deepEqual(batch.results[0], batch.results[2]);
    assert.deepEqual(batch.results[0], batch.results[4]);
    assert.deepEqual(batch.results[3], batch.results[5]);
    assert.equal(batch.errors, 2);
  });

  it('reports a query that is not an address as its own INVALID_IP error', async () => {
    const queries = [
      '8.8.8.8',
      '010.1.1.1',
      '',
      'fe80::1%eth0',
      'x'.repeat(500),
      ' 8.8.8.8',
      'é"\\',
    ];
    const res = await post(service, JSON.stringify(queries));
    assert.equal(res.status, 200);
    const batch = batchSchema.parse(dataOf(res.body)) as Batch;
    assert.equal(batch.count, 7);
    assert.equal(batch.errors, 6);
    assert.equal(batch.results[0]?.data?.['country'], 'US');
    for (const result of batch.results.slice(1)) {
      assert.equal(result.error?.code, 'INVALID_IP', result.query);
      assert.ok((result.error?.message.length ?? 0) < 200);
      assert.equal(result.data, undefined);
    }
    assert.equal(batch.results[6]?.query, 'é"\\'); // escaped and read back as sent
  });

  it('an empty array is an empty batch', async () => {
    const res = await post(service, '[]');
    assert.equal(res.status, 200);
    assert.deepEqual(dataOf(res.body), { results: [], count: 0, errors: 0 });
  });

  it('?include=vpn adds the record of GET /ip/:ip/vpn to each data', async () => {
    const queries = ['8.8.8.8', '192.168.1.1', '2a00:1450:4001:80e::200e', 'nope'];
    const res = await post(service, JSON.stringify(queries), '/batch?include=vpn');
    assert.equal(res.status, 200);
    const batch = batchSchema.parse(dataOf(res.body)) as Batch;
    for (const result of batch.results.slice(0, 3)) {
      const vpn = await get(service.baseUrl, `/ip/${result.query}/vpn`);
      const geo = await get(service.baseUrl, `/ip/${result.query}`);
      const { vpn: vpnRecord, ...geoRecord } = result.data!;
      assert.deepEqual(vpnRecord, dataOf(vpn.body), result.query);
      assert.deepEqual(geoRecord, dataOf(geo.body), result.query);
    }
    assert.equal(batch.results[3]?.error?.code, 'INVALID_IP');
    const without = await post(service, JSON.stringify(queries));
    assert.equal(dataOf<Batch>(without.body).results[0]?.data?.vpn, undefined);
  });

  it('?include= anything else → 400 BAD_REQUEST naming vpn', async () => {
    const res = await post(service, '["8.8.8.8"]', '/batch?include=whois');
    assert.equal(res.status, 400);
    assert.equal(errorCode(res.body), 'BAD_REQUEST');
    assert.match(res.text, /vpn/);
  });

  it('1,000 addresses pass; 1,001 → 413 PAYLOAD_TOO_LARGE naming the limit', async () => {
    const random = seededRandom();
    const queries = Array.from({ length: 1000 }, () => randomAddress(random));
    const ok = await post(service, JSON.stringify(queries));
    assert.equal(ok.status, 200);
    assert.equal(dataOf<Batch>(ok.body).count, 1000);
    const tooMany = await post(service, JSON.stringify([...queries, '8.8.8.8']));
    assert.equal(tooMany.status, 413);
    assert.equal(errorCode(tooMany.body), 'PAYLOAD_TOO_LARGE');
    assert.match(tooMany.text, /1001 addresses; the limit is 1000/);
  });

  const wrong: { body: string; why: string; want: RegExp }[] = [
    { body: '{"ips":["8.8.8.8"]}', why: 'an object', want: /JSON array.*it is an object/ },
    { body: '"8.8.8.8"', why: 'a string', want: /it is a string/ },
    { body: 'null', why: 'null', want: /it is null/ },
    {
      body: '["8.8.8.8", 8]',
      why: 'a number element',
      want: /Element 1 .* a number, not a string/,
    },
    { body: '["8.8.8.8", null]', why: 'a null element', want: /Element 1 .* null/ },
    { body: '[["8.8.8.8"]]', why: 'a nested array', want: /Element 0 .* an array/ },
    { body: '["8.8.8.8",', why: 'truncated JSON', want: /not valid JSON/ },
    { body: '', why: 'an empty body', want: /not valid JSON/ },
  ];
  for (const { body, why, want } of wrong) {
    it(`${why} → 400 BAD_REQUEST saying what is wrong`, async () => {
      const res = await post(service, body);
      assert.equal(res.status, 400);
      assert.equal(errorCode(res.body), 'BAD_REQUEST');
      assert.match(res.text, want);
    });
  }

  it('a body that is not JSON by its type → 415; GET /batch → 405 Allow: POST', async () => {
    const res = await post(service, '8.8.8.8\n1.1.1.1', '/batch', 'text/plain');
    assert.equal(res.status, 415);
    assert.equal(errorCode(res.body), 'UNSUPPORTED_MEDIA_TYPE');
    const getBatch = await get(service.baseUrl, '/batch');
    assert.equal(getBatch.status, 405);
    assert.equal(getBatch.headers.get('allow'), 'POST');
  });
});

describe('POST /batch limits', () => {
  it('BATCH_MAX_ITEMS sets the limit, and the message says it', async () => {
    const service = await startService({ env: { BATCH_MAX_ITEMS: '3' } });
    try {
      const ok = await post(service, '["1.1.1.1","8.8.8.8","9.9.9.9"]');
      assert.equal(ok.status, 200);
      const res = await post(service, '["1.1.1.1","8.8.8.8","9.9.9.9","1.0.0.1"]');
      assert.equal(res.status, 413);
      assert.match(res.text, /4 addresses; the limit is 3 per request \(BATCH_MAX_ITEMS\)/);
    } finally {
      await service.close();
    }
  });

  it('a batch of 1,000 is one request against the rate limit', async () => {
    const service = await startService({ env: { RATE_LIMIT_MAX: '3' } });
    try {
      const random = seededRandom();
      const body = JSON.stringify(Array.from({ length: 1000 }, () => randomAddress(random)));
      const remaining: (string | null)[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await post(service, body);
        assert.equal(res.status, 200);
        remaining.push(res.headers.get('ratelimit-remaining'));
      }
      assert.deepEqual(remaining, ['2', '1', '0']);
      const limited = await post(service, body);
      assert.equal(limited.status, 429);
      assert.equal(errorCode(limited.body), 'RATE_LIMITED');
    } finally {
      await service.close();
    }
  });
});
