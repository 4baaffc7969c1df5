// `npm run update-data` refreshes the RDAP bootstrap like a feed: from the
// configured URL (a loopback RDAP server here), into DATA_DIR, and a running
// service would read it at start-up instead of the shipped snapshot.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readBootstrapFile } from '../../src/lookups/rdap/bootstrap-file.js';
import { findRegistry } from '../../src/lookups/rdap/bootstrap.js';
import { parseIp } from '../../src/net/ip.js';
import { startRdapServer, type RdapServer } from '../helpers/rdap-server.js';
import { runUpdateData } from '../helpers/update-data-run.js';
import { DEFAULT_FEEDS } from '../../src/lookups/vpn/feeds/default-feeds.js';

const ALL_FEEDS_OFF = [...DEFAULT_FEEDS.map((f) => f.id), 'geoip', 'asn'].join(',');

let rdap: RdapServer;
let dir: string;
before(async () => {
  rdap = await startRdapServer();
  dir = mkdtempSync(join(tmpdir(), 'ipintel-update-'));
});
after(async () => {
  await rdap.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('update-data and the RDAP bootstrap', () => {
  it('stores the bootstrap fetched from FEED_URL_RDAP_BOOTSTRAP', async () => {
    const result = await runUpdateData({
      DATA_DIR: dir,
      FEEDS_DISABLED: ALL_FEEDS_OFF,
      FEED_URL_RDAP_BOOTSTRAP: `${rdap.url}iana/`,
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stderr, /rdap-bootstrap\s+ok\s+\d+ prefixes/);
    const table = readBootstrapFile(join(dir, 'rdap-bootstrap.json'));
    assert.ok(table);
    const ip = parseIp('23.1.2.3');
    assert.ok(ip);
    assert.equal(findRegistry(table, ip)?.rir, 'arin');
  });

  it('keeps the previous file and exits 1 when the bootstrap server fails', async () => {
    const result = await runUpdateData({
      DATA_DIR: dir,
      FEEDS_DISABLED: ALL_FEEDS_OFF,
      FEED_URL_RDAP_BOOTSTRAP: `${rdap.url}status-500/`,
    });
    assert.equal(result.status, 1, result.stderr);
    assert.match(result.stderr, /rdap-bootstrap\s+FAILED/);
    assert.ok(readBootstrapFile(join(dir, 'rdap-bootstrap.json')), 'previous file kept');
  });

  it('a bad FEED_URL_RDAP_BOOTSTRAP stops with a message naming it', async () => {
    const result = await runUpdateData({ DATA_DIR: dir, FEED_URL_RDAP_BOOTSTRAP: 'ftp://x' });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /FEED_URL_RDAP_BOOTSTRAP/);
  });
});
