// The choice of the VPN-dense rule's numbers: admissible only within the 1 %
// bound on every group of servers that are not VPN exits; among the
// admissible within a point of the best LOPO recall, the strictest.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseDenseRule,
  denseCandidates,
  type DenseResult,
} from '../../../scripts/detection/dense-calibration.js';

const result = (
  minProviders: number,
  minExitShare: number,
  caught: number,
  torClaimed: number,
): DenseResult => ({
  rule: { minProviders, minExitShare, maxAddresses: 65536 },
  claimed: [
    { group: 'Tor exit relays', addresses: 1000, claimed: torClaimed },
    { group: 'cloud aws', addresses: 1000, claimed: 0 },
  ],
  lopo: { exits: 1000, caught, namedByRule: 0, namedByRuleRight: 0 },
});

void describe('choosing the VPN-dense rule', () => {
  void it('twelve candidates: 2–4 providers × four shares', () => {
    const rules = denseCandidates();
    assert.equal(rules.length, 12);
    assert.deepEqual([...new Set(rules.map((r) => r.minProviders))], [2, 3, 4]);
  });

  void it('a rule over the 1 % bound is never chosen, however much it catches', () => {
    const chosen = chooseDenseRule([result(2, 0.05, 900, 11), result(3, 0.1, 500, 10)]);
    assert.deepEqual(chosen?.rule.minProviders, 3);
    assert.equal(chooseDenseRule([result(2, 0.05, 900, 11)]), null);
  });

  void it('within a point of the best, the strictest; further below, the best', () => {
    const near = [result(2, 0.1, 500, 0), result(4, 0.5, 491, 0), result(3, 0.5, 495, 0)];
    assert.deepEqual(chooseDenseRule(near)?.rule, {
      minProviders: 4,
      minExitShare: 0.5,
      maxAddresses: 65536,
    });
    const far = [result(2, 0.1, 500, 0), result(4, 0.5, 480, 0)];
    assert.equal(chooseDenseRule(far)?.rule.minProviders, 2);
  });
});
