// Memory given back once a load is over. Under a heavy load (1,000-address
// batches, MCP batches of tool calls, 10,000-deep JSON) V8 grows its young
// generation to the semi-spaces `npm start` allows, promotes what outlives
// them, and grows its old generation by pages the collector empties but
// keeps: after such a load the heap held ~100 MB for ~15 MB of live objects, and
// the process stayed ~90 MB above its start (heap snapshots and
// v8.getHeapSpaceStatistics; nothing was retained by our code). V8 gives
// that memory back only in a memory-reducing collection, which its own
// memory reducer starts after some loads and not after others.
//
// So a check every second: once the event loop has been quiet for a few
// seconds while the heap holds far more than it uses — or has grown far past
// where the last release (or the start) left it: with small semi-spaces a
// load's garbage is promoted and counts as used until a full collection — or
// the resident memory has grown far past where the last release left it
// (request bodies are read into 64 KiB buffers outside V8's heap): three full
// collections a second apart — the first frees the old generation's empty
// pages, the second compacts what is left, the third, with almost nothing
// allocated since, lets V8 shrink the young generation to its start size (each
// step measured after the same load: one collection left 251 MB, two 231 MB,
// three 191 MB; 183 MB at start). A check after the last one, with the
// buffers the collections let go freed by V8's sweeper, malloc_trim
// (./native-heap.ts) gives back the pages glibc keeps free: after issue 36's
// hostile mix the main thread's malloc heap held ~48 MB, ~40 MB of it free, in
// segments free() never unmaps (src/native/malloc-trim.c says why). Never under
// load, at most once every 15 s (a release during a slow trickle of heavy
// requests is followed by another once they stop), ~50 ms of collection each.
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface IdleMemoryPolicy {
  /** the event loop busy less than this share of a second counts as quiet */
  quietUtilisation: number;
  /** quiet seconds in a row before the first collection */
  quietChecks: number;
  /** committed heap beyond the used heap, or beyond the baseline, that is worth giving back */
  slackBytes: number;
  /** full collections of one release, one per check */
  collections: number;
  /** the shortest time from one release to the next */
  minGapMs: number;
}

export const IDLE_MEMORY_POLICY: IdleMemoryPolicy = {
  quietUtilisation: 0.05,
  quietChecks: 5,
  slackBytes: 16 * 1024 * 1024,
  collections: 3,
  minGapMs: 15_000,
};

/** What one check saw. */
export interface IdleSample {
  now: number;
  /** share of the last check's interval the event loop was busy, 0–1 */
  utilisation: number;
  /** V8's committed heap and the part of it in use */
  heapCommitted: number;
  heapUsed: number;
  /** the process's resident memory */
  rss: number;
}

export interface IdleState {
  quietInARow: number;
  /** collections left in the release under way; 0 when none is */
  collectionsLeft: number;
  lastReleaseAt: number;
  /**
   * the committed heap after the last release (at start: the first check),
   * lowered when the heap shrinks by itself; NaN until the next check takes it
   */
  baselineCommitted: number;
  /** the resident memory, taken and lowered as the committed heap is */
  baselineRss: number;
}

export const IDLE_START: IdleState = {
  quietInARow: 0,
  collectionsLeft: 0,
  lastReleaseAt: Number.NEGATIVE_INFINITY,
  baselineCommitted: Number.NaN,
  baselineRss: Number.NaN,
};

/** Pure: the state after a check, and whether to collect now. */
export function idleStep(
  state: IdleState,
  sample: IdleSample,
  policy: IdleMemoryPolicy = IDLE_MEMORY_POLICY,
): { state: IdleState; collect: boolean } {
  const quiet = sample.utilisation < policy.quietUtilisation;
  const quietInARow = quiet ? state.quietInARow + 1 : 0;
  if (state.collectionsLeft > 0) {
    // traffic came back: the release stops, what is left waits for the next quiet
    if (!quiet) return { state: { ...state, quietInARow, collectionsLeft: 0 }, collect: false };
    return {
      state: {
        ...state,
        quietInARow,
        collectionsLeft: state.collectionsLeft - 1,
        // the release's last collection: the next check takes the baseline after it
        baselineCommitted: state.collectionsLeft === 1 ? Number.NaN : state.baselineCommitted,
        baselineRss: state.collectionsLeft === 1 ? Number.NaN : state.baselineRss,
      },
      collect: true,
    };
  }
  const baselineCommitted = Number.isNaN(state.baselineCommitted)
    ? sample.heapCommitted
    : Math.min(state.baselineCommitted, sample.heapCommitted);
  const baselineRss = Number.isNaN(state.baselineRss)
    ? sample.rss
    : Math.min(state.baselineRss, sample.rss);
  const due =
    quietInARow >= policy.quietChecks &&
    (sample.heapCommitted - sample.heapUsed > policy.slackBytes ||
      sample.heapCommitted - baselineCommitted > policy.slackBytes ||
      sample.rss - baselineRss > policy.slackBytes) &&
    sample.now - state.lastReleaseAt >= policy.minGapMs;
  if (!due) {
    return { state: { ...state, quietInARow, baselineCommitted, baselineRss }, collect: false };
  }
  return {
    state: {
      quietInARow,
      collectionsLeft: policy.collections - 1,
      lastReleaseAt: sample.now,
      // taken again at the first check after the release's last collection (a
      // release that traffic interrupts keeps the old one, so it is due again)
      baselineCommitted: policy.collections === 1 ? Number.NaN : baselineCommitted,
      baselineRss: policy.collections === 1 ? Number.NaN : baselineRss,
    },
    collect: true,
  };
}

/**
 * V8's full collection as a function. Node has no API for it; the flag makes
 * V8 install `gc` in contexts created after it is set, so one small context
 * is made to fetch it (kept for the process), and the flag is set back.
 */
export function fullCollection(): () => void {
  const existing = (globalThis as { gc?: unknown }).gc;
  if (typeof existing === 'function') return existing as () => void;
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  return gc;
}

/**
 * Starts the checks; `onRelease` hears of each release when it ends — its
 * collections done (or fewer, when traffic came back), then, a check later,
 * malloc's free pages given back when `trimNative` is given — with the RSS
 * before and after, the collections run and whether the trim gave any back.
 */
export function releaseMemoryWhenQuiet(
  onRelease: (before: number, after: number, collections: number, trimmed: boolean) => void = () =>
    undefined,
  trimNative: (() => boolean) | null = null,
  policy: IdleMemoryPolicy = IDLE_MEMORY_POLICY,
): () => void {
  let state = IDLE_START;
  let gc: (() => void) | null = null;
  let loop: EventLoopUtilization = performance.eventLoopUtilization();
  let rssBefore = 0;
  let collections = 0;
  /** the release's last collection ran at the previous check */
  let ending = false;
  const timer = setInterval(() => {
    if (ending) {
      // a check after the last collection: V8's sweeper has freed the
      // ArrayBuffers it found dead, so their memory is in malloc's free lists
      const trimmed = trimNative?.() ?? false;
      onRelease(rssBefore, process.memoryUsage.rss(), collections, trimmed);
      collections = 0;
      ending = false;
      // the trim is not traffic
      loop = performance.eventLoopUtilization();
    }
    const since = performance.eventLoopUtilization(loop);
    loop = performance.eventLoopUtilization();
    const heap = getHeapStatistics();
    const step = idleStep(
      state,
      {
        now: performance.now(),
        utilisation: since.utilization,
        heapCommitted: heap.total_heap_size,
        heapUsed: heap.used_heap_size,
        rss: process.memoryUsage.rss(),
      },
      policy,
    );
    state = step.state;
    if (step.collect) {
      if (collections === 0) rssBefore = process.memoryUsage.rss();
      gc ??= fullCollection();
      gc();
      collections += 1;
      // the collection itself is not traffic
      loop = performance.eventLoopUtilization();
    }
    if (collections > 0 && state.collectionsLeft === 0) ending = true;
  }, 1_000);
  timer.unref();
  return () => clearInterval(timer);
}
