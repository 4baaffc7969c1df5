import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findRegistry, snapshotBootstrap } from '../../../src/lookups/rdap/bootstrap.js';
import {
  parseStoredBootstrap,
  readBootstrapFile,
  serialiseBootstrap,
  writeBootstrapFile,
} from '../../../src/lookups/rdap/bootstrap-file.js';
import { parseIp } from '../../../src/net/ip.js';

describe('stored RDAP bootstrap', () => {
  it('round-trips the shipped snapshot and finds the same registries', () => {
    const snapshot = snapshotBootstrap();
    const stored = parseStoredBootstrap(serialiseBootstrap(snapshot));
    assert.ok(stored);
    assert.equal(stored.entries.length, snapshot.entries.length);
    for (const text of [
      '8.8.8.8',
      '193.0.6.139',
      '1.1.1.1',
      '200.57.141.161',
      '196.11.240.215',
      '2001:4860::1',
    ]) {
      const ip = parseIp(text);
      assert.ok(ip);
      assert.equal(findRegistry(stored, ip)?.rir, findRegistry(snapshot, ip)?.rir, text);
    }
  });

  const hostile: { name: string; text: string }[] = [
    { name: 'not JSON', text: '<html>' },
    { name: 'no entries', text: '{"publication":{},"entries":[]}' },
    {
      name: 'a bad prefix',
      text: '{"entries":[{"cidr":"1.2.3/8","baseUrl":"https://x/","rir":"arin"}]}',
    },
    {
      name: 'a base URL without slash',
      text: '{"entries":[{"cidr":"1.0.0.0/8","baseUrl":"https://x","rir":"arin"}]}',
    },
    {
      name: 'a non-http base URL',
      text: '{"entries":[{"cidr":"1.0.0.0/8","baseUrl":"file:///etc/","rir":"arin"}]}',
    },
  ];
  for (const { name, text } of hostile) {
    it(`refuses ${name} (the snapshot is used instead)`, () => {
      assert.equal(parseStoredBootstrap(text), null);
    });
  }

  it('writes atomically and reads back; a missing file reads as null', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ipintel-bootstrap-'));
    try {
      const path = join(dir, 'rdap-bootstrap.json');
      assert.equal(readBootstrapFile(path), null);
      writeBootstrapFile(path, snapshotBootstrap());
      assert.ok(readBootstrapFile(path));
      writeFileSync(path, 'garbage');
      assert.equal(readBootstrapFile(path), null);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
