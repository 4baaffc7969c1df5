// TimezoneIndex (install-time geo-tz answers) and the resolver that falls
// back to tz-lookup for coordinates it does not know.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  TimezoneIndex,
  createTimezoneResolver,
  locationKey,
} from '../../../src/lookups/geoip/timezone.js';

const POINTS: [number, number, string][] = [
  [37.422, -122.085, 'America/Los_Angeles'],
  [51.5142, -0.0931, 'Europe/London'],
  [-33.8688, 151.209, 'Australia/Sydney'],
  [35.6895, 139.6917, 'Asia/Tokyo'],
  [-90, -180, 'Antarctica/McMurdo'],
  [90, 180, 'Etc/GMT-12'],
  [0, 0, 'Etc/GMT'],
];

describe('locationKey', () => {
  it('is distinct for neighbouring points 1e-4 degrees apart, and rounds beyond that', () => {
    assert.notEqual(locationKey(10, 10), locationKey(10.0001, 10));
    assert.notEqual(locationKey(10, 10), locationKey(10, 10.0001));
    assert.equal(locationKey(10.00001, 10), locationKey(10, 10));
    assert.ok(Number.isSafeInteger(locationKey(90, 180)));
    assert.ok(locationKey(-90, -180) >= 0);
  });
});

describe('TimezoneIndex', () => {
  const index = TimezoneIndex.fromEntries(
    POINTS.map(([lat, lon, zone]) => [locationKey(lat, lon), zone] as [number, string]),
  );

  it('finds every entry, and nothing else', () => {
    for (const [lat, lon, zone] of POINTS) assert.equal(index.find(lat, lon), zone);
    assert.equal(index.find(37.4221, -122.085), null);
    assert.equal(index.find(1, 1), null);
    assert.equal(index.size, POINTS.length);
  });

  it('round-trips through serialize/deserialize', () => {
    const restored = TimezoneIndex.deserialize(index.serialize('s'), 's');
    assert.ok(restored);
    assert.equal(restored.size, POINTS.length);
    for (const [lat, lon, zone] of POINTS) assert.equal(restored.find(lat, lon), zone);
    assert.equal(restored.find(1, 1), null);
  });

  it('survives a misaligned buffer', () => {
    const buffer = index.serialize('s');
    const shifted = Buffer.alloc(buffer.length + 3);
    buffer.copy(shifted, 3);
    assert.equal(
      TimezoneIndex.deserialize(shifted.subarray(3), 's')?.find(35.6895, 139.6917),
      'Asia/Tokyo',
    );
  });

  it('refuses a stale stamp, a foreign buffer and a truncated one', () => {
    const buffer = index.serialize('s');
    assert.equal(TimezoneIndex.deserialize(buffer, 'other'), null);
    assert.equal(TimezoneIndex.deserialize(Buffer.from('IPINTEL-ASN-1\nwhatever'), 's'), null);
    assert.equal(TimezoneIndex.deserialize(buffer.subarray(0, buffer.length - 1), 's'), null);
  });

  it('an empty index round-trips', () => {
    const empty = TimezoneIndex.fromEntries([]);
    assert.equal(TimezoneIndex.deserialize(empty.serialize('e'), 'e')?.size, 0);
    assert.equal(empty.find(0, 0), null);
  });
});

describe('createTimezoneResolver', () => {
  it('prefers the index, falls back to tz-lookup', () => {
    const index = TimezoneIndex.fromEntries([[locationKey(48.8566, 2.3522), 'Test/Override']]);
    const resolve = createTimezoneResolver(index);
    assert.equal(resolve(48.8566, 2.3522), 'Test/Override');
    assert.equal(resolve(40.7128, -74.006), 'America/New_York');
  });

  it('without an index, answers from tz-lookup', () => {
    const resolve = createTimezoneResolver(null);
    assert.equal(resolve(51.5142, -0.0931), 'Europe/London');
    assert.equal(resolve(-33.8688, 151.209), 'Australia/Sydney');
  });

  it('impossible coordinates → null, never a throw', () => {
    const resolve = createTimezoneResolver(null);
    for (const [lat, lon] of [
      [91, 0],
      [0, 181],
      [-91, 0],
      [Number.NaN, 0],
      [0, Number.POSITIVE_INFINITY],
    ] as [number, number][]) {
      assert.equal(resolve(lat, lon), null, `${lat},${lon}`);
    }
  });
});
