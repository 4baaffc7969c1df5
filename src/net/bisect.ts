// The search both range tables use: sorted, disjoint ranges by start, and
// the candidate for a value is the last range starting at or below it.

/** Index of the last element ≤ value in an ascending array, or -1. */
export function lastAtMost(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) <= value) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
