// Answers that say where they come from: X-Data-Version on every GeoIP and
// detection answer, an ETag derived from it, and If-None-Match → 304 with no
// body (RFC 9110 §13.1.2: weak comparison, lists, "*").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dataVersion } from '../../src/lookups/provenance.js';
import { get, serviceData, startService, type TestService } from '../helpers/service.js';

let service: TestService;

before(async () => {
  service = await startService({
    env: { RATE_LIMIT_MAX: '100000', TRUST_PROXY: '127.0.0.1/32' },
  });
});

after(() => service.close());

describe('X-Data-Version and ETag', () => {
  it('name the versions of the data each answer is made from', async () => {
    const data = await serviceData(service.config);
    const sources = {
      dataSets: () => data.geo.dataSets,
      feeds: () => data.vpn.current().feeds,
      geofeeds: () => data.geofeeds.current.feeds,
      overridesVersion: () => data.overrides.status.version,
    };
    const geo = await get(service.baseUrl, '/ip/8.8.8.8');
    const version = geo.headers.get('x-data-version') ?? '';
    assert.equal(version, dataVersion(['geoip', 'asn', 'geofeeds', 'overrides'], sources));
    assert.match(version, /^geoip=[\w.:@+-]+; asn=[\w.:@+-]+; geofeeds=none; overrides=none$/);
    // the reconciled location table: its other sources and rule file are part of the version
    assert.match(version, /^geoip=[\w.:@-]+\+loc\.[0-9a-f]{12}; /);
    assert.match(geo.headers.get('etag') ?? '', /^"[\w-]{22}"$/);
    const detection = await get(service.baseUrl, '/ip/8.8.8.8/vpn');
    assert.match(
      detection.headers.get('x-data-version') ?? '',
      /^asn=.+; feeds=\w+; overrides=none$/,
    );
    // another address, the same data: the same version and tag
    const other = await get(service.baseUrl, '/ip/1.1.1.1');
    assert.equal(other.headers.get('etag'), geo.headers.get('etag'));
    // a browser may read them (CORS)
    const cors = await get(service.baseUrl, '/ip/8.8.8.8', {
      headers: { origin: 'https://a.test' },
    });
    assert.match(
      cors.headers.get('access-control-expose-headers') ?? '',
      /X-Data-Version, X-Location-Source, ETag/,
    );
  });

  it('the caller’s own record has a tag of its own per caller', async () => {
    const tagOf = async (caller: string) =>
      (await get(service.baseUrl, '/ip', { headers: { 'x-forwarded-for': caller } })).headers.get(
        'etag',
      );
    const [a, b] = [await tagOf('8.8.8.8'), await tagOf('1.1.1.1')];
    assert.notEqual(a, b);
    assert.equal(await tagOf('8.8.8.8'), a);
    const revalidated = await get(service.baseUrl, '/ip', {
      headers: { 'x-forwarded-for': '1.1.1.1', 'if-none-match': a ?? '' },
    });
    assert.equal(revalidated.status, 200, "another caller's tag does not match");
  });

  it('POST /batch says its data version, with no ETag (a POST is not revalidated)', async () => {
    const res = await get(service.baseUrl, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '["8.8.8.8"]',
    });
    assert.match(
      res.headers.get('x-data-version') ?? '',
      /^geoip=.+; asn=.+; feeds=\w+; geofeeds=none; overrides=none$/,
    );
    assert.equal(res.headers.get('etag'), null);
    // an error names no data version
    const refused = await get(service.baseUrl, '/batch', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not":"an array"}',
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('x-data-version'), null);
    assert.equal(refused.headers.get('x-data-attribution'), null);
  });
});

describe('If-None-Match', () => {
  it('a matching tag → 304 with no body, the tag and the lifetime', async () => {
    for (const path of ['/ip/8.8.8.8', '/ip/8.8.8.8/vpn', '/ip/2606:4700:4700::1111']) {
      const first = await get(service.baseUrl, path);
      const etag = first.headers.get('etag')!;
      const table = [etag, `W/${etag}`, `"nope", ${etag}`, '*'];
      for (const ifNoneMatch of table) {
        const res = await get(service.baseUrl, path, { headers: { 'if-none-match': ifNoneMatch } });
        assert.equal(res.status, 304, `${path} ${ifNoneMatch}`);
        assert.equal(res.text, '');
        assert.equal(res.headers.get('etag'), etag);
        assert.equal(res.headers.get('cache-control'), first.headers.get('cache-control'));
        assert.equal(res.headers.get('x-data-version'), first.headers.get('x-data-version'));
      }
    }
  });

  it('another tag → 200 with the body; a bad address is still 400', async () => {
    const res = await get(service.baseUrl, '/ip/8.8.8.8', {
      headers: { 'if-none-match': '"old"' },
    });
    assert.equal(res.status, 200);
    assert.ok(res.text.startsWith('{"data":'));
    const bad = await get(service.baseUrl, '/ip/8.8.8', { headers: { 'if-none-match': '*' } });
    assert.equal(bad.status, 400);
  });
});
