import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fixture, startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import {
  updateFeeds,
  type FeedProgress,
  type FeedSpec,
} from '../../../../src/lookups/vpn/feeds/feed-updater.js';
import {
  parseAwsIpRanges,
  parseAzureServiceTags,
} from '../../../../src/lookups/vpn/feeds/parse-cloud-json.js';
import {
  parseCidrList,
  parseTorBulkExitList,
} from '../../../../src/lookups/vpn/feeds/parse-text-lists.js';
import { deserialiseFeed } from '../../../../src/lookups/vpn/feeds/feed-store.js';
import {
  parseAddressList,
  parseGluetun,
} from '../../../../src/lookups/vpn/feeds/parse-vpn-catalogues.js';

let server: FeedServer;
let dir: string;

before(async () => {
  server = await startFeedServer({
    '/ip-ranges.json': { body: fixture('aws-ip-ranges.json'), type: 'application/json' },
    '/ips-v4': { body: fixture('cloudflare-ips-v4.txt') },
    '/dated': {
      body: fixture('cloudflare-ips-v4.txt'),
      headers: { 'last-modified': 'Tue, 18 Aug 2026 12:04:10 GMT' },
    },
    '/torbulkexitlist': { body: fixture('tor-bulk-exit-list.txt') },
    '/error': { status: 500, body: 'internal error' },
    '/html': { body: fixture('not-a-feed.html'), type: 'text/html' },
    '/cut': { cutAfter: 60, body: fixture('cloudflare-ips-v4.txt') },
    '/hang': { hang: true },
    '/download-page': { body: '', type: 'text/html' },
    '/download/7/1/D/71D86715-5596-4529-9B13-DA13A5DE5B63/ServiceTags_Public_20240520.json': {
      body: fixture('azure-service-tags.json'),
    },
  });
  server.route('/download-page', {
    body: fixture('azure-download-page.html').replaceAll('{{BASE}}', server.base),
    type: 'text/html',
  });
  dir = await mkdtemp(join(tmpdir(), 'ipintel-feeds-'));
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const spec = (
  id: string,
  path: string,
  parser = parseCidrList,
  extra: Partial<FeedSpec> = {},
): FeedSpec => ({
  id,
  url: server.url(path),
  kind: 'hosting',
  parser,
  ...extra,
});

async function stored(id: string): Promise<string[]> {
  const doc = JSON.parse(await readFile(join(dir, `${id}.feed.json`), 'utf8')) as {
    prefixes: string[];
  };
  return doc.prefixes;
}

void describe('updateFeeds', () => {
  void it('downloads, validates and stores each feed, reporting progress', async () => {
    const events: FeedProgress[] = [];
    const results = await updateFeeds({
      dataDir: dir,
      feeds: [
        spec('aws', '/ip-ranges.json', parseAwsIpRanges),
        spec('tor-exits', '/torbulkexitlist', parseTorBulkExitList, { kind: 'tor' }),
      ],
      onProgress: (e) => events.push(e),
      now: () => new Date('2024-05-20T12:00:00Z'),
    });
    assert.deepEqual(
      results.map((r) => [r.feed, r.ok, r.prefixes]),
      [
        ['aws', true, 5],
        ['tor-exits', true, 4],
      ],
    );
    assert.ok((await stored('aws')).includes('3.5.140.0/22'));
    const tor = JSON.parse(await readFile(join(dir, 'tor-exits.feed.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    assert.equal(tor.kind, 'tor');
    assert.equal(tor.fetchedAt, '2024-05-20T12:00:00.000Z');
    // a server that sends no Last-Modified: none stored
    assert.equal(tor.lastModified, undefined);
    assert.deepEqual(
      events.filter((e) => e.phase !== 'bytes').map((e) => `${e.feed}:${e.phase}`),
      ['aws:start', 'aws:done', 'tor-exits:start', 'tor-exits:done'],
    );
  });

  void it("keeps the server's Last-Modified, as ISO 8601 UTC", async () => {
    const [result] = await updateFeeds({ dataDir: dir, feeds: [spec('dated', '/dated')] });
    assert.equal(result?.ok, true);
    const doc = JSON.parse(await readFile(join(dir, 'dated.feed.json'), 'utf8')) as {
      lastModified?: string;
    };
    assert.equal(doc.lastModified, '2026-08-18T12:04:10.000Z');
  });

  // each failure below must leave the good copy of "cf" from the first row in place
  const FAILURES: {
    name: string;
    path: string;
    extra?: Partial<FeedSpec>;
    timeoutMs?: number;
    maxBytes?: number;
    error: RegExp;
  }[] = [
    { name: 'HTTP 500', path: '/error', error: /HTTP 500/ },
    { name: 'an HTML page instead of the list', path: '/html', error: /not a CIDR/ },
    { name: 'the socket destroyed mid-body', path: '/cut', error: /download failed|ended after/ },
    {
      name: 'a server that never answers',
      path: '/hang',
      timeoutMs: 300,
      error: /timed out after 300 ms/,
    },
    {
      name: 'a body over the size bound',
      path: '/ips-v4',
      maxBytes: 100,
      error: /exceeds 100 bytes/,
    },
    {
      name: 'fewer prefixes than the feed minimum',
      path: '/ips-v4',
      extra: { minPrefixes: 1000 },
      error: /only 15 prefixes/,
    },
    { name: 'a 404', path: '/missing', error: /HTTP 404/ },
  ];
  for (const row of FAILURES) {
    void it(`keeps the previous file on ${row.name}`, async () => {
      await updateFeeds({ dataDir: dir, feeds: [spec('cf', '/ips-v4')] });
      const before = await stored('cf');
      const [result] = await updateFeeds({
        dataDir: dir,
        feeds: [spec('cf', row.path, parseCidrList, row.extra ?? {})],
        ...(row.timeoutMs === undefined ? {} : { timeoutMs: row.timeoutMs }),
        ...(row.maxBytes === undefined ? {} : { maxBytes: row.maxBytes }),
      });
      assert.equal(result?.ok, false);
      assert.match(result?.error ?? '', row.error);
      assert.deepEqual(await stored('cf'), before);
      // no temp file is left behind
      assert.deepEqual(
        (await readdir(dir)).filter((n) => n.includes('.partial.')),
        [],
      );
    });
  }

  void it('follows the download link on a page (Azure service tags)', async () => {
    const [result] = await updateFeeds({
      dataDir: dir,
      feeds: [
        spec('azure', '/download-page', parseAzureServiceTags, {
          linkPattern:
            /http:\/\/127\.0\.0\.1:\d+\/download\/[^"'\s<>]+\/ServiceTags_Public_\d{8}\.json/,
        }),
      ],
    });
    assert.equal(result?.ok, true, result?.error ?? '');
    assert.deepEqual((await stored('azure')).sort(), [
      '13.64.0.0/16',
      '20.38.64.0/19',
      '20.42.0.0/17',
      '2603:1000::/40',
    ]);
  });

  void it('one failing feed does not stop the others', async () => {
    const results = await updateFeeds({
      dataDir: dir,
      feeds: [spec('bad', '/error'), spec('good', '/ips-v4')],
    });
    assert.deepEqual(
      results.map((r) => r.ok),
      [false, true],
    );
  });

  void it('refuses a feed id that is not a safe file name', async () => {
    await assert.rejects(
      updateFeeds({ dataDir: dir, feeds: [spec('../evil', '/ips-v4')] }),
      /bad feed id/,
    );
  });
});

void describe('provider lists in the store', () => {
  void it('reads several documents as one list when a feed has more URLs (lord-alfred per provider)', async () => {
    server.route('/part-2', { body: '198.51.100.0/24\n' });
    const [result] = await updateFeeds({
      dataDir: dir,
      feeds: [spec('parts', '/ips-v4', parseCidrList, { moreUrls: [server.url('/part-2')] })],
    });
    assert.equal(result?.ok, true, result?.error ?? '');
    const prefixes = await stored('parts');
    assert.equal(prefixes.length, 16);
    assert.ok(prefixes.includes('198.51.100.0/24'));
    // one failing part fails the feed: the previous copy stays
    const [failed] = await updateFeeds({
      dataDir: dir,
      feeds: [spec('parts', '/ips-v4', parseCidrList, { moreUrls: [server.url('/error')] })],
    });
    assert.equal(failed?.ok, false);
    assert.deepEqual(await stored('parts'), prefixes);
  });

  void it('a feed of several documents has one deadline and one byte budget in all, not one per document', async () => {
    // each part alone arrives well within the bound (11 bytes, one every 15 ms: ~170 ms)
    server.route('/slow-part', { trickleMs: 15, body: '10.0.0.0/8\n' });
    const slow = server.url('/slow-part');
    const started = performance.now();
    const [late] = await updateFeeds({
      dataDir: dir,
      timeoutMs: 350,
      feeds: [spec('slow-parts', '/slow-part', parseCidrList, { moreUrls: [slow, slow, slow] })],
    });
    const took = performance.now() - started;
    assert.equal(late?.ok, false);
    assert.match(late?.error ?? '', /timed out/);
    assert.ok(took < 700, `stopped at the feed's deadline, not after every part (${took} ms)`);
    // the byte budget too: two parts of 11 bytes each pass alone under 16, not together
    server.route('/part-11', { body: '10.0.0.0/8\n' });
    const [big] = await updateFeeds({
      dataDir: dir,
      maxBytes: 16,
      feeds: [spec('big-parts', '/part-11', parseCidrList, { moreUrls: [server.url('/part-11')] })],
    });
    assert.equal(big?.ok, false);
    assert.match(big?.error ?? '', /exceeds/);
    const [one] = await updateFeeds({
      dataDir: dir,
      maxBytes: 16,
      feeds: [spec('one-part', '/part-11', parseCidrList)],
    });
    assert.equal(one?.ok, true, one?.error ?? '');
  });

  void it("stores a one-provider list's provider and a mixed list's per-address providers, and reads them back", async () => {
    server.route('/gluetun', {
      body: JSON.stringify({
        version: 1,
        surfshark: { servers: [{ ips: ['31.171.152.195'] }] },
        'private internet access': { servers: [{ ips: ['86.107.104.249'] }] },
      }),
    });
    server.route('/tb', { body: '# list\n82.102.22.55\n' });
    await updateFeeds({
      dataDir: dir,
      feeds: [
        spec('gluetun', '/gluetun', parseGluetun, { kind: 'vpn' }),
        spec('tunnelbear', '/tb', parseAddressList, { kind: 'vpn', provider: 'tunnelbear' }),
      ],
    });
    const read = async (id: string) =>
      deserialiseFeed(await readFile(join(dir, `${id}.feed.json`), 'utf8'), id);
    const gluetun = await read('gluetun');
    assert.deepEqual(gluetun.providers, ['surfshark', 'pia']);
    assert.equal(gluetun.provider, undefined);
    const tunnelbear = await read('tunnelbear');
    assert.equal(tunnelbear.provider, 'tunnelbear');
    assert.equal(tunnelbear.providers, undefined);
  });

  void it('refuses a stored file whose providers do not match its prefixes', () => {
    const text = JSON.stringify({
      format: 'ipintel-feed/1',
      feed: 'gluetun',
      kind: 'vpn',
      prefixes: ['31.171.152.195/32', '86.107.104.249/32'],
      providers: ['surfshark'],
    });
    assert.throws(() => deserialiseFeed(text, 'gluetun.feed.json'), /one id per prefix/);
    const badId = text.replace('"providers":["surfshark"]', '"provider":"Not An Id"');
    assert.throws(() => deserialiseFeed(badId, 'gluetun.feed.json'), /bad provider/);
  });

  void it('checks every stored prefix in full, the canonical IPv4 ones too', () => {
    const stored = (prefix: string) =>
      JSON.stringify({ format: 'ipintel-feed/1', feed: 'x', kind: 'vpn', prefixes: [prefix] });
    assert.deepEqual(deserialiseFeed(stored('10.0.0.0/8'), 'x.feed.json').prefixes, ['10.0.0.0/8']);
    assert.throws(() => deserialiseFeed(stored('0.0.0.0/7'), 'x.feed.json'), /implausibly wide/);
    assert.throws(() => deserialiseFeed(stored('10.0.0.1/24'), 'x.feed.json'), /host bits set/);
    assert.throws(() => deserialiseFeed(stored('010.0.0.0/8'), 'x.feed.json'), /prefixes\[0\]/);
  });
});
