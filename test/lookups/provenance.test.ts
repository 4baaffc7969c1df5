// The headers of an answer follow its data: the caller's own record keeps a
// tag per caller, made again when the caller or any data set changes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { provenance, type ProvenanceSources } from '../../src/lookups/provenance.js';

describe('provenance callerHeaders', () => {
  let overrides = 'none';
  const sources: ProvenanceSources = {
    dataSets: () => [],
    feeds: () => [],
    overridesVersion: () => overrides,
  };
  const made = provenance(['geoip', 'overrides'], sources, () => null);

  it('names the caller in the tag, and a new version gives a new tag to the same caller', () => {
    const first = made.callerHeaders('8.8.8.8');
    const tag = made.headers()['etag']!.slice(0, -1);
    assert.equal(first['etag'], `${tag}-8.8.8.8"`);
    assert.equal(made.callerHeaders('8.8.8.8')['etag'], first['etag']);
    assert.equal(made.callerHeaders('2001:db8::1')['etag'], `${tag}-2001:db8::1"`);
    overrides = 'abc123';
    const after = made.callerHeaders('2001:db8::1');
    assert.equal(after['x-data-version'], 'geoip=none; overrides=abc123');
    assert.notEqual(after['etag'], `${tag}-2001:db8::1"`);
    assert.equal(after['etag'], `${made.headers()['etag']!.slice(0, -1)}-2001:db8::1"`);
  });
});
