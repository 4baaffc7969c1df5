import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { fixture, startFeedServer, type FeedServer } from '../../../helpers/feed-server.js';
import { runUpdateData } from '../../../helpers/update-data-run.js';
import { parseIp, type Ip } from '../../../../src/net/ip.js';
import { detect } from '../../../../src/lookups/vpn/detect.js';
import {
  DETECTION_TABLES,
  DetectionIndexHolder,
  loadDetectionIndex,
} from '../../../../src/lookups/vpn/index/detection-index.js';
import { readTableManifest } from '../../../../src/data/table-file.js';
import { updateFeeds, type FeedSpec } from '../../../../src/lookups/vpn/feeds/feed-updater.js';
import { parseCidrList } from '../../../../src/lookups/vpn/feeds/parse-text-lists.js';
import { DEFAULT_FEEDS } from '../../../../src/lookups/vpn/feeds/default-feeds.js';

let server: FeedServer;
let dir: string;
const OLD_ONLY = parseIp('146.70.117.20') as Ip; // in the first list only
const NEW_ONLY = parseIp('185.159.157.9') as Ip; // in the second list only

before(async () => {
  server = await startFeedServer({ '/vpn.txt': { body: fixture('x4b-vpn-ipv4.txt') } });
  dir = await mkdtemp(join(tmpdir(), 'ipintel-index-'));
});
after(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const vpnFeed = (): FeedSpec => ({
  id: 'x4b-vpn',
  url: server.url('/vpn.txt'),
  kind: 'vpn',
  parser: parseCidrList,
});

void describe('detection index loading and hot reload', () => {
  void it('an empty or missing data folder gives an index with ASN classes and no feeds', async () => {
    const index = await loadDetectionIndex({ dataDir: join(dir, 'does-not-exist') });
    assert.deepEqual(index.feeds, []);
    assert.equal(index.asnClasses.get(16509)?.class, 'hosting');
  });

  void it('skips and reports a damaged feed file, loading the rest', async () => {
    await updateFeeds({ dataDir: dir, feeds: [vpnFeed()] });
    await writeFile(join(dir, 'broken.feed.json'), '{"format":"ipintel-feed/1",');
    const index = await loadDetectionIndex({ dataDir: dir });
    assert.deepEqual(
      index.feeds.map((f) => f.feed),
      ['x4b-vpn'],
    );
    assert.equal(index.problems.length, 1);
    await rm(join(dir, 'broken.feed.json'));
  });

  void it('swaps the whole index on reload while lookups are in flight', async () => {
    await updateFeeds({ dataDir: dir, feeds: [vpnFeed()] });
    const holder = await DetectionIndexHolder.open({ dataDir: dir });
    const first = holder.current();
    assert.equal(await holder.reload({ ifChanged: true }), first, 'nothing changed: same index');

    // each "request" takes one snapshot, yields (as real I/O would), then answers from it
    let stop = false;
    const seen = { old: 0, new: 0 };
    const request = async () => {
      while (!stop) {
        const snapshot = holder.current();
        await tick();
        const a = detect(OLD_ONLY, () => null, snapshot).isVpn;
        await tick();
        const b = detect(NEW_ONLY, () => null, snapshot).isVpn;
        // never half of one list and half of the other
        assert.ok((a && !b) || (!a && b), `inconsistent snapshot: ${a} ${b}`);
        if (a) seen.old++;
        else seen.new++;
      }
    };
    const workers = Array.from({ length: 8 }, () => request());
    await tick();
    server.route('/vpn.txt', { body: '185.159.157.0/24\n2.26.157.0/24\n' });
    const [result] = await updateFeeds({ dataDir: dir, feeds: [vpnFeed()] });
    assert.equal(result?.ok, true);
    const next = await holder.reload({ ifChanged: true });
    assert.notEqual(next, first);
    for (let i = 0; i < 20; i++) await tick();
    stop = true;
    await Promise.all(workers);
    assert.ok(seen.old > 0 && seen.new > 0, JSON.stringify(seen));
    assert.equal(detect(NEW_ONLY, () => null, holder.current()).isVpn, true);
    assert.equal(
      detect(OLD_ONLY, () => null, first).isVpn,
      true,
      'a held snapshot keeps answering',
    );
  });

  void it('concurrent reloads share one build', async () => {
    const holder = await DetectionIndexHolder.open({ dataDir: dir });
    const [a, b] = await Promise.all([holder.reload(), holder.reload()]);
    assert.equal(a, b);
  });
});

void describe('scripts/update-data.ts', () => {
  const others = [
    ...DEFAULT_FEEDS.map((f) => f.id).filter((id) => id !== 'cloudflare-v4'),
    'rdap-bootstrap',
    'geoip',
    'asn',
  ].join(',');

  void it('stores a feed and exits 0, printing a line with bytes and status', async () => {
    server.route('/ips-v4', { body: fixture('cloudflare-ips-v4.txt') });
    const ok = await runUpdateData({
      DATA_DIR: dir,
      FEEDS_DISABLED: others,
      FEED_URL_CLOUDFLARE_V4: server.url('/ips-v4'),
    });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stderr, /cloudflare-v4\s+ok\s+230 B\s+15 prefixes/);
    // and compiles what a start would build from the feeds, for the next start to open
    assert.match(ok.stderr, /compiled the detection index and geofeeds into /);
    const compiled = readTableManifest<{ kind: string; files: { name: string }[] }>(
      join(dir, 'tables', DETECTION_TABLES),
    );
    assert.equal(compiled?.kind, 'detection');
    assert.ok(compiled.files.some((f) => f.name === 'cloudflare-v4.feed.json'));
  });

  void it('exits 1 with a FAILED line when every feed failed', async () => {
    const failed = await runUpdateData({
      DATA_DIR: dir,
      FEEDS_DISABLED: others,
      FEED_URL_CLOUDFLARE_V4: server.url('/nope'),
    });
    assert.equal(failed.status, 1, failed.stderr);
    assert.match(failed.stderr, /cloudflare-v4\s+FAILED .*HTTP 404 \(previous file kept\)/);
    assert.match(failed.stderr, /0 of 1 data set\(s\) current/);
  });

  void it('exits 2 naming the variable on a bad URL', async () => {
    const bad = await runUpdateData({ DATA_DIR: dir, FEED_URL_AWS: 'ftp://example.invalid/x' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /FEED_URL_AWS: not an http\(s\) URL/);
  });
});
