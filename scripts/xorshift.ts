// A reproducible stream of numbers from a seed, for samples that must be the
// same on every run (random cloud addresses, held-out exits, a benchmark's log).

/** Marsaglia's xorshift32: uint32 values from a seed (0 counts as 1). */
export function xorshift32(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}
