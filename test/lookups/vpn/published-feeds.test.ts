// Replays the real published feeds (../shared/fixtures/feeds, copies that
// public repositories committed; see SOURCES.md there) through today's
// updater: each is served from loopback under its default feed id, parsed by
// its default parser, stored, loaded into the detection index and shown in
// GET / with its publication time as ISO 8601. Runs only where that folder
// exists (the files are never copied into this repository).
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../../src/project-root.js';
import { DEFAULT_FEEDS } from '../../../src/lookups/vpn/default-feeds.js';
import { updateFeeds, type FeedResult } from '../../../src/lookups/vpn/feed-updater.js';
import { startFeedServer, type FeedServer } from '../../helpers/feed-server.js';
import { startService } from '../../helpers/service.js';

const PUBLISHED = resolve(PROJECT_ROOT, '..', 'shared', 'fixtures', 'feeds');

/** Each default feed's published copy, and the time it states (SOURCES.md), normalised. */
const COPIES: Record<string, { file: string; publishedAt: string | null }> = {
  aws: { file: 'aws.json', publishedAt: '2025-07-24T20:23:14Z' },
  gcp: { file: 'gcp.json', publishedAt: '2025-07-24T19:16:28.780Z' },
  azure: { file: 'azure.json', publishedAt: '363' }, // changeNumber, a serial
  oracle: { file: 'oracle.json', publishedAt: '2025-07-21T07:13:25.457Z' },
  'cloudflare-v4': { file: 'cloudflare-v4.txt', publishedAt: null },
  'cloudflare-v6': { file: 'cloudflare-v6.txt', publishedAt: null },
  digitalocean: { file: 'digitalocean.csv', publishedAt: null },
  linode: { file: 'linode.csv', publishedAt: '2025-07-24T10:00:06.525Z' },
  vultr: { file: 'vultr.json', publishedAt: '2024-04-18T11:55:40Z' },
  'tor-exits': { file: 'tor-exits.txt', publishedAt: null },
  // the newest ExitAddress test of the (truncated) copy
  'tor-exit-addresses': { file: 'tor-exit-addresses.txt', publishedAt: '2024-03-12T14:28:37Z' },
  'x4b-vpn': { file: 'x4b-vpn.txt', publishedAt: null },
  'x4b-vpn-v6': { file: 'x4b-vpn-v6.txt', publishedAt: null },
};

describe('the published feeds parse through the updater', { skip: !existsSync(PUBLISHED) }, () => {
  let server: FeedServer;
  let dataDir: string;
  let results: FeedResult[];

  before(async () => {
    const routes = Object.fromEntries(
      Object.entries(COPIES).map(([id, { file }]) => [
        `/${id}`,
        { body: readFileSync(join(PUBLISHED, file), 'utf8') },
      ]),
    );
    server = await startFeedServer(routes);
    dataDir = await mkdtemp(join(tmpdir(), 'ipintel-published-'));
    results = await updateFeeds({
      dataDir: join(dataDir, 'feeds'),
      // the default specs, pointed at loopback (Azure's copy is the file its page links to)
      feeds: DEFAULT_FEEDS.map(({ linkPattern: _link, ...spec }) => ({
        ...spec,
        url: server.url(`/${spec.id}`),
      })),
    });
  });

  after(async () => {
    await server.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('every default feed has a published copy', () => {
    assert.deepEqual(DEFAULT_FEEDS.map((f) => f.id).sort(), Object.keys(COPIES).sort());
  });

  it('every copy is stored, above its minimum prefix count', () => {
    const failed = results.filter((r) => !r.ok).map((r) => `${r.feed}: ${r.error ?? ''}`);
    assert.deepEqual(failed, []);
    for (const spec of DEFAULT_FEEDS) {
      const result = results.find((r) => r.feed === spec.id);
      assert.ok((result?.prefixes ?? 0) >= (spec.minPrefixes ?? 1), spec.id);
    }
  });

  it('GET / lists every feed with its publication time normalised', async () => {
    const service = await startService({ env: { DATA_DIR: dataDir } });
    try {
      const res = await fetch(`${service.baseUrl}/`);
      const body = (await res.json()) as {
        data: { feeds: { id: string; publishedAt: string | null; prefixes: number }[] };
      };
      const shown = Object.fromEntries(body.data.feeds.map((f) => [f.id, f.publishedAt]));
      const want = Object.fromEntries(
        Object.entries(COPIES).map(([id, copy]) => [id, copy.publishedAt]),
      );
      assert.deepEqual(shown, want);
    } finally {
      await service.close();
    }
  });
});
