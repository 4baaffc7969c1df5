// What a serving process does once it listens, so that the first answers come
// quickly and later ones do not wait: the tables' sections no lookup has read
// yet are read between requests, prom-client's registry is made a second
// later, and what a heavy load made V8 and malloc hold is given back once it
// is over.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { readRest, type GeoData } from '../lookups/geoip/load.js';
import type { Metrics } from '../observe/metrics.js';
import { releaseMemoryWhenQuiet } from '../observe/idle-memory.js';
import { loadNativeHeapTrim } from '../observe/native-heap.js';

/** after listening, when the work left for later begins */
const WARM_UP_DELAY_MS = 1_000;

export function warmUp(tables: GeoData['tables'], metrics: Metrics, log: Logger): void {
  // the tables' sections no lookup has read yet: read now, 1 MB per turn
  // of the event loop, so that they are in memory before a load arrives
  // while the first answers still go between the slices
  const reading = performance.now();
  readRest(tables)
    .then(() =>
      log.info(
        {
          ms: Math.round(performance.now() - reading),
          rssMb: Math.round(process.memoryUsage().rss / 1e6),
        },
        'tables in memory',
      ),
    )
    .catch((error: unknown) =>
      log.warn(
        { err: error },
        'reading the rest of the tables failed; lookups read what they need',
      ),
    );
  // what the first answers do not need is made shortly after, while
  // answering, not in their way (on one core it would take the CPU from
  // them): prom-client's registry
  setTimeout(() => metrics.prepare(), WARM_UP_DELAY_MS).unref();
  // what a heavy load made V8 and malloc hold, given back once it is over
  const native = loadNativeHeapTrim();
  if ('missing' in native) {
    log.warn(
      { reason: native.missing },
      'malloc_trim addon not built (no C compiler at build time?): memory malloc keeps after a load is not given back',
    );
  }
  releaseMemoryWhenQuiet(
    (before, after, collections, trimmed) =>
      log.info(
        {
          rssMbBefore: Math.round(before / 1e6),
          rssMb: Math.round(after / 1e6),
          collections,
          trimmed,
        },
        'memory given back after a load',
      ),
    'trim' in native ? native.trim : null,
  );
}
