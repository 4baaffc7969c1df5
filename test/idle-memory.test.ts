// idleStep: when the memory a load left is given back — only after quiet
// seconds in a row, only when the heap holds much more than it uses, three
// collections a check apart that traffic interrupts, at most once per minimum gap.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  IDLE_MEMORY_POLICY,
  IDLE_START,
  idleStep,
  type IdleSample,
  type IdleState,
} from '../src/observe/idle-memory.js';

const MB = 1024 * 1024;
const QUIET = 0.01;
const BUSY = 0.6;
const SLACK = { heapCommitted: 100 * MB, heapUsed: 20 * MB };
const TIGHT = { heapCommitted: 20 * MB, heapUsed: 14 * MB };

/** Runs one check a second from `start`; the collections the policy asked for, by second. */
function run(
  seconds: { utilisation: number; heapCommitted: number; heapUsed: number; rss?: number }[],
  start: IdleState = IDLE_START,
  from = 0,
): number[] {
  let state = start;
  const collected: number[] = [];
  seconds.forEach((second, i) => {
    const sample: IdleSample = { now: (from + i) * 1000, rss: 200 * MB, ...second };
    const step = idleStep(state, sample);
    state = step.state;
    if (step.collect) collected.push(from + i);
  });
  return collected;
}

const repeat = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

describe('idleStep', () => {
  it('after a load: three collections a second apart, from the fifth quiet second', () => {
    const seconds = [
      ...repeat(10, { utilisation: BUSY, ...SLACK }),
      ...repeat(12, { utilisation: QUIET, ...SLACK }),
    ];
    assert.deepEqual(run(seconds), [14, 15, 16]);
  });

  it('never under load, however much the heap holds', () => {
    assert.deepEqual(run(repeat(120, { utilisation: BUSY, ...SLACK })), []);
  });

  it('never when the heap holds little more than it uses', () => {
    assert.deepEqual(run(repeat(120, { utilisation: QUIET, ...TIGHT })), []);
  });

  it('a heap grown far past where it started is released even when it counts it all as used', () => {
    // small semi-spaces promote a load's garbage: used until a full collection
    const START = { heapCommitted: 40 * MB, heapUsed: 30 * MB };
    const GROWN = { heapCommitted: 94 * MB, heapUsed: 86 * MB };
    const seconds = [
      ...repeat(3, { utilisation: QUIET, ...START }),
      ...repeat(5, { utilisation: BUSY, ...GROWN }),
      ...repeat(8, { utilisation: QUIET, ...GROWN }),
    ];
    assert.deepEqual(run(seconds), [12, 13, 14]);
  });

  it('after a release the baseline is where the collections left the heap', () => {
    const GROWN = { heapCommitted: 94 * MB, heapUsed: 86 * MB };
    const AFTER = { heapCommitted: 45 * MB, heapUsed: 35 * MB };
    const gap = IDLE_MEMORY_POLICY.minGapMs / 1000;
    const seconds = [
      { utilisation: QUIET, heapCommitted: 20 * MB, heapUsed: 15 * MB },
      ...repeat(7, { utilisation: QUIET, ...GROWN }), // the fifth quiet check releases: 4, 5, 6
      // 25 MB above the start, but 45 MB is where the release left it: no more
      ...repeat(gap + 30, { utilisation: QUIET, ...AFTER }),
    ];
    assert.deepEqual(run(seconds), [4, 5, 6]);
  });

  it('traffic during a release stops it; the next one waits the minimum gap', () => {
    const gap = IDLE_MEMORY_POLICY.minGapMs / 1000;
    const seconds = [
      ...repeat(5, { utilisation: QUIET, ...SLACK }), // collects at 4
      { utilisation: BUSY, ...SLACK }, // 5: stopped
      ...repeat(gap + 10, { utilisation: QUIET, ...SLACK }), // due again `gap` s after 4
    ];
    assert.deepEqual(run(seconds), [4, 4 + gap, 5 + gap, 6 + gap]);
  });

  it('a load that comes back later is released again, no sooner than the gap after the last', () => {
    const load = [
      ...repeat(5, { utilisation: BUSY, ...SLACK }),
      ...repeat(10, { utilisation: QUIET, ...SLACK }),
    ];
    const collected = run([...load, ...load, ...load, ...load, ...load]);
    assert.deepEqual(collected.slice(0, 3), [9, 10, 11]);
    const next = collected[3] ?? Number.NaN;
    assert.ok(next - 9 >= IDLE_MEMORY_POLICY.minGapMs / 1000, `released again at ${next}`);
  });

  it('resident memory grown far past where it started is released though V8’s heap is tight', () => {
    // request bodies read into 64 KiB buffers: malloc's memory, not V8's heap
    const seconds = [
      ...repeat(3, { utilisation: QUIET, ...TIGHT, rss: 200 * MB }),
      ...repeat(5, { utilisation: BUSY, ...TIGHT, rss: 260 * MB }),
      ...repeat(8, { utilisation: QUIET, ...TIGHT, rss: 260 * MB }),
    ];
    assert.deepEqual(run(seconds), [12, 13, 14]);
  });

  it('after such a release the resident memory it left is the baseline: no release again', () => {
    const gap = IDLE_MEMORY_POLICY.minGapMs / 1000;
    const seconds = [
      { utilisation: QUIET, ...TIGHT, rss: 200 * MB },
      ...repeat(7, { utilisation: QUIET, ...TIGHT, rss: 260 * MB }), // released at 4, 5, 6
      // 40 MB above the start (a cache kept what it may): where the release left it
      ...repeat(gap + 30, { utilisation: QUIET, ...TIGHT, rss: 240 * MB }),
    ];
    assert.deepEqual(run(seconds), [4, 5, 6]);
  });
});
