// PrefixList indexes IPv6 prefixes by the first group of an address; it must
// answer what a scan of the whole list in order answers (the first match).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrefixList, cidrContains, parseCidr, type Cidr } from '../../src/net/cidr-match.js';
import { formatIpv6, parseIp } from '../../src/net/ip.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('PrefixList (IPv6)', () => {
  it('answers as a scan of the list in order, on random lists of short and long prefixes', () => {
    const random = seededRandom();
    for (let round = 0; round < 40; round++) {
      const entries: [string, number][] = [];
      for (let i = 0; i < 1 + random.below(30); i++) {
        const groups = Array.from({ length: 8 }, () => random.below(0x10000));
        // short prefixes (spanning many first groups) as often as long ones
        const length = random.chance(0.5) ? random.below(17) : 16 + random.below(113);
        entries.push([`${formatIpv6(groups)}/${length}`, i]);
      }
      const list = new PrefixList(entries);
      const cidrs = entries.map(([text]) => parseCidr(text) as Cidr);
      for (let probe = 0; probe < 2_000; probe++) {
        // near a listed prefix half of the time, anywhere otherwise
        const base = random.chance(0.5) ? [...cidrs[random.below(cidrs.length)]!.network] : [];
        const groups = Array.from({ length: 8 }, (_, g) =>
          base.length > 0 && g < 2 ? base[g]! : random.below(0x10000),
        );
        const ip = parseIp(formatIpv6(groups));
        if (ip === null || ip.version !== 6) continue;
        const want = cidrs.findIndex((cidr) => cidrContains(cidr, ip));
        assert.equal(
          list.match(ip),
          want === -1 ? null : entries[want]![1],
          `${ip.text} in ${entries.map(([t]) => t).join(' ')} (TEST_SEED=${random.seed})`,
        );
      }
    }
  });
});
