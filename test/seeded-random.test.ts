// The seeded generator of the randomised tests: one seed, one sequence, and a
// failure inside withSeed names the seed that replays it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom, testSeed, withSeed } from './helpers/seeded-random.js';

describe('seeded random numbers for replayable tests', () => {
  it('the same seed gives the same sequence', () => {
    const a = seededRandom(1234);
    const b = seededRandom(1234);
    assert.deepEqual(
      Array.from({ length: 5 }, () => a.u32()),
      Array.from({ length: 5 }, () => b.u32()),
    );
  });

  it('TEST_SEED is the seed when given', () => {
    assert.equal(testSeed({ TEST_SEED: '42' }), 42);
    assert.equal(testSeed({ TEST_SEED: '0x10' }), 16);
    assert.throws(() => testSeed({ TEST_SEED: 'soon' }), /TEST_SEED/);
  });

  it('a failure inside withSeed carries the seed, sync and async', async () => {
    const random = seededRandom(77);
    assert.throws(
      () => withSeed(random, () => assert.fail('boom')),
      /boom\n\(replay: TEST_SEED=77\)/,
    );
    await assert.rejects(
      withSeed(random, () => Promise.reject(new Error('later'))),
      /later\n\(replay: TEST_SEED=77\)/,
    );
  });
});
