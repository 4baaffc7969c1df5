// GET /ranges and GET /asn/:asn over loopback on the embedded data: the
// formats by format= and by Accept, the list streamed (chunked, no
// Content-Length), ETag and X-Data-Version as the other answers and 304 on
// If-None-Match, one unit of the rate limit per list, the errors (400 for a
// malformed filter or AS, 404 for an unknown AS); the same lists and
// records from `ipintel ranges` / `ipintel asn` (runCli in process) and from
// the MCP tools ip_ranges and asn_lookup (JSON-RPC over POST /mcp).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../../src/cli/run.js';
import { parseCidr } from '../../src/net/cidr-match.js';
import { dataOf, errorCode, get, startService, type TestService } from '../helpers/service.js';

let dir: string;
let env: Record<string, string>;
let service: TestService;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ipintel-range-routes-'));
  env = { DATA_DIR: dir, RATE_LIMIT_MAX: '1000', LOG_LEVEL: 'silent' };
  service = await startService({ env });
});

after(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const outcome = await runCli(args, { env, stdin: new PassThrough(), stdout, stderr });
  assert.ok('code' in outcome);
  return { code: outcome.code, stdout: out, stderr: err };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

describe('GET /ranges', () => {
  it('streams one CIDR a line by default, with the data version and an ETag', async () => {
    const res = await get(service.baseUrl, '/ranges?country=LU');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(res.headers.get('content-length'), null);
    assert.match(res.headers.get('x-data-version') ?? '', /geoip=.*asn=.*feeds=.*overrides=/);
    assert.match(res.headers.get('etag') ?? '', /^"r-[0-9a-f]+"$/);
    const blocks = lines(res.text);
    assert.ok(blocks.length > 50, `${blocks.length} blocks for LU`);
    for (const block of blocks) assert.ok(parseCidr(block) !== null, block);
    assert.ok(blocks.some((b) => b.includes(':')) && blocks.some((b) => !b.includes(':')));
    // every block is where GET /ip/:ip places its first address
    for (const block of blocks.filter((_, i) => i % 25 === 0)) {
      const first = block.split('/')[0]!;
      assert.equal(dataOf((await get(service.baseUrl, `/ip/${first}`)).body)['country'], 'LU');
    }
  });

  it('answers JSON for format=json and for Accept: application/json, the same blocks', async () => {
    const plain = lines((await get(service.baseUrl, '/ranges?country=LU&family=6')).text);
    for (const init of [{}, { headers: { accept: 'application/json' } }]) {
      const path = `/ranges?country=LU&family=6${'headers' in init ? '' : '&format=json'}`;
      const res = await get(service.baseUrl, path, init);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const data = dataOf<{ filter: unknown; ranges: string[]; count: number }>(res.body);
      assert.deepEqual(data.filter, { country: 'LU', family: '6' });
      assert.deepEqual(data.ranges, plain);
      assert.equal(data.count, plain.length);
    }
  });

  it('writes each firewall format around the same blocks', async () => {
    const plain = lines((await get(service.baseUrl, '/ranges?country=LU&family=4')).text);
    const body = async (format: string) =>
      (await get(service.baseUrl, `/ranges?country=LU&family=4&format=${format}&name=lu`)).text;
    const nft = await body('nftables');
    assert.match(nft, /^table inet lu \{\n\tset lu_v4 \{\n\t\ttype ipv4_addr\n/);
    assert.deepEqual(
      [...nft.matchAll(/\t\t\t([0-9./]+)/g)].map((m) => m[1]),
      plain,
    );
    const ipset = await body('ipset');
    assert.deepEqual(
      lines(ipset).slice(1),
      plain.map((b) => `add lu_v4 ${b}`),
    );
    const nginx = await body('nginx');
    assert.deepEqual(lines(nginx), [
      'geo $lu {',
      '\tdefault 0;',
      ...plain.map((b) => `\t${b} 1;`),
      '}',
    ]);
    const ipt = await body('iptables');
    assert.deepEqual(lines(ipt), [
      '*filter',
      ':lu - [0:0]',
      ...plain.map((b) => `-A lu -s ${b} -j DROP`),
      'COMMIT',
    ]);
  });

  it('answers 304 to If-None-Match with its ETag, and another ETag for another list', async () => {
    const first = await get(service.baseUrl, '/ranges?kind=bogon');
    const etag = first.headers.get('etag')!;
    const again = await get(service.baseUrl, '/ranges?kind=bogon', {
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.text, '');
    const other = await get(service.baseUrl, '/ranges?kind=bogon&format=nftables');
    assert.notEqual(other.headers.get('etag'), etag);
  });

  it('counts one request of the rate limit per list', async () => {
    const a = await get(service.baseUrl, '/ranges?country=US&family=4');
    const b = await get(service.baseUrl, '/ranges?country=US&family=4');
    const remaining = (r: typeof a) => Number(r.headers.get('ratelimit-remaining'));
    assert.equal(remaining(a) - remaining(b), 1);
    assert.ok(lines(b.text).length > 10_000);
  });

  for (const [query, words] of [
    ['', /country, asn, kind or provider/],
    ['country=RUS', /ISO 3166/],
    ['asn=ASX', /AS number/],
    ['kind=cloud', /not one of vpn, proxy, tor/],
    ['country=RU&family=5', /family is 4 or 6/],
    ['country=RU&format=pf', /format/],
    ['country=RU&name=1bad', /name/],
    ['country=RU&format=iptables', /family=4/],
  ] as const) {
    it(`refuses ?${query} with 400 BAD_REQUEST`, async () => {
      const res = await get(service.baseUrl, `/ranges?${query}`);
      assert.equal(res.status, 400);
      assert.equal(errorCode(res.body), 'BAD_REQUEST');
      assert.match((res.body as { error: { message: string } }).error.message, words);
    });
  }
});

describe('GET /asn/:asn', () => {
  it('names the AS, its country, classes, prefixes and address counts', async () => {
    const res = await get(service.baseUrl, '/asn/AS14061');
    assert.equal(res.status, 200);
    assert.ok(res.headers.get('etag'));
    assert.ok(res.headers.get('x-data-version'));
    const a = dataOf<{
      asn: string;
      name: string;
      country: string;
      classes: string[];
      reasons: string[];
      prefixes: { v4: string[]; v6: string[] };
      addresses: { v4: number; v6: string };
    }>(res.body);
    assert.equal(a.asn, 'AS14061');
    assert.match(a.name, /DigitalOcean/);
    assert.equal(a.country, 'US');
    assert.ok(a.classes.includes('hosting'), a.classes.join());
    assert.ok(a.reasons.includes('asn:14061 hosting'), a.reasons.join());
    assert.ok(a.prefixes.v4.length > 10 && a.prefixes.v6.length > 0);
    const v4 = a.prefixes.v4.reduce((n, p) => n + 2 ** (32 - Number(p.split('/')[1])), 0);
    assert.equal(a.addresses.v4, v4);
    // the prefixes are the list of ?asn=
    const listed = lines((await get(service.baseUrl, '/ranges?asn=14061')).text);
    assert.deepEqual(listed, [...a.prefixes.v4, ...a.prefixes.v6]);
    assert.deepEqual(dataOf((await get(service.baseUrl, '/asn/14061')).body), a);
  });

  it('answers 404 NOT_FOUND for an AS nobody knows, 400 for one that is not an AS', async () => {
    const unknown = await get(service.baseUrl, '/asn/AS4200000000');
    assert.equal(unknown.status, 404);
    assert.equal(errorCode(unknown.body), 'NOT_FOUND');
    for (const bad of ['ASX', '99999999999', 'AS-1']) {
      const res = await get(service.baseUrl, `/asn/${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(errorCode(res.body), 'BAD_REQUEST');
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes both routes: the filters, the media types, the AS record', async () => {
    const doc = (await get(service.baseUrl, '/openapi.json')).body as {
      paths: Record<string, { get: Record<string, unknown> }>;
    };
    const ranges = doc.paths['/ranges']!.get as {
      parameters: { name: string }[];
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    const names = ranges.parameters.map((p) => p.name);
    for (const name of ['country', 'asn', 'kind', 'provider', 'family', 'format', 'name']) {
      assert.ok(names.includes(name), name);
    }
    assert.deepEqual(Object.keys(ranges.responses['200']!.content!).sort(), [
      'application/json',
      'text/plain',
    ]);
    assert.ok(ranges.responses['304'] && ranges.responses['400']);
    const asn = doc.paths['/asn/{asn}']!.get as { responses: Record<string, unknown> };
    assert.ok(asn.responses['200'] && asn.responses['400'] && asn.responses['404']);
  });
});

describe('the web page', () => {
  it('links the lists and an AS profile from its "Use it from code" section', async () => {
    const page = await get(service.baseUrl, '/', { headers: { accept: 'text/html' } });
    assert.match(page.text, /href="\/ranges\?country=RU&amp;format=nftables"/);
    assert.match(page.text, /href="\/asn\/AS14061"/);
  });
});

describe('the same through the CLI and MCP', () => {
  it('ipintel ranges writes what GET /ranges answers', async () => {
    for (const [args, query] of [
      [['--country', 'LU', '--format', 'nftables'], 'country=LU&format=nftables'],
      [['--kind', 'bogon', '--family', '6'], 'kind=bogon&family=6'],
    ] as const) {
      const out = await cli(['ranges', ...args]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, (await get(service.baseUrl, `/ranges?${query}`)).text);
    }
    const bad = await cli(['ranges', '--country', 'RUS']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /BAD_REQUEST/);
  });

  it('ipintel asn prints the record of GET /asn/:asn', async () => {
    const out = await cli(['asn', 'AS14061', '--json']);
    assert.equal(out.code, 0, out.stderr);
    const rest = dataOf((await get(service.baseUrl, '/asn/AS14061')).body);
    assert.deepEqual(JSON.parse(out.stdout), rest);
    const text = await cli(['asn', '14061']);
    assert.match(text.stdout, /^AS14061 DigitalOcean.*mostly in US.*classes hosting/);
  });

  it('the MCP tool ip_ranges gives the count and first blocks of the list', async () => {
    const res = await fetch(`${service.baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'ip_ranges', arguments: { country: 'US', family: '4' } },
      }),
    });
    const answer = (await res.json()) as {
      result: { structuredContent: { count: number; ranges: string[]; truncated: boolean } };
    };
    const r = answer.result.structuredContent;
    const listed = lines((await get(service.baseUrl, '/ranges?country=US&family=4')).text);
    assert.equal(r.count, listed.length);
    assert.deepEqual(r.ranges, listed.slice(0, 1000));
    assert.equal(r.truncated, true);
  });
});
