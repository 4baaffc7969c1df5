// How far the suite's heaviest checks go. `npm test` runs them on data small
// enough to be exact in seconds (a contributor's loop: the suite in three
// minutes); `npm run test:full` (TEST_FULL=1, scripts/run-tests.mjs --full)
// runs the files that import this module again at full size (the whole
// embedded data, every split), and CI runs both (.ci/run). A test chooses its
// sizes with `sized`, so the full run checks all the quick one does and more.
export const FULL = process.env['TEST_FULL'] === '1';

/** `quick` in `npm test`, `full` in `npm run test:full`. */
export function sized<T>(quick: T, full: T): T {
  return FULL ? full : quick;
}
