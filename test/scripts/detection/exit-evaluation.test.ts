// The evaluation's sample of "random cloud addresses": inside the IPv4
// prefixes it is given, IPv6 ones ignored, and the same for the same seed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sampleV4 } from '../../../scripts/detection/exit-evaluation.js';

describe('sampleV4', () => {
  const prefixes = ['192.0.2.0/30', '2001:db8::/32', '198.51.100.128/25'];

  it('draws only addresses inside the IPv4 prefixes, from each of them', () => {
    const sample = sampleV4(prefixes, 200);
    assert.equal(sample.length, 200);
    const inFirst = sample.filter((ip) => /^192\.0\.2\.[0-3]$/.test(ip.text));
    const inSecond = sample.filter((ip) => {
      const m = /^198\.51\.100\.(\d+)$/.exec(ip.text);
      return m !== null && Number(m[1]) >= 128;
    });
    assert.equal(inFirst.length + inSecond.length, 200);
    assert.ok(inFirst.length > 0 && inSecond.length > 0);
    assert.ok(sample.every((ip) => ip.version === 4));
  });

  it('is reproducible for a seed and differs between seeds', () => {
    const text = (seed: number) => sampleV4(prefixes, 30, seed).map((ip) => ip.text);
    assert.deepEqual(text(7), text(7));
    assert.notDeepEqual(text(7), text(8));
  });

  it('returns nothing without an IPv4 prefix', () => {
    assert.deepEqual(sampleV4(['2001:db8::/32', 'not a prefix'], 5), []);
  });
});
