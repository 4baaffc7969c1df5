// Seeded random numbers for tests that check code against a reference over
// many generated inputs: every run uses a fresh seed unless TEST_SEED names
// one, and the tests print the seed with any failure so that
// `TEST_SEED=<seed> node scripts/run-tests.mjs <file>` replays it exactly.
import { randomInt } from 'node:crypto';

export interface SeededRandom {
  readonly seed: number;
  /** a number in [0, 1) */
  float(): number;
  /** an unsigned 32-bit integer */
  u32(): number;
  /** an integer in [0, n), n ≤ 2^32 */
  below(n: number): number;
  /** an unsigned integer of `bits` random bits */
  bigBits(bits: number): bigint;
  /** true with probability p */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** TEST_SEED when set (decimal or 0x…), otherwise a random 32-bit seed. */
export function testSeed(env: NodeJS.ProcessEnv = process.env): number {
  const given = env['TEST_SEED'];
  if (given === undefined || given === '') return randomInt(0, 2 ** 32);
  const seed = Number(given);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
    throw new Error(`TEST_SEED must be an integer in [0, 2^32): ${given}`);
  }
  return seed;
}

/** sfc32 (Chris Doty-Humphrey's Small Fast Counter), seeded through splitmix32. */
export function seededRandom(seed: number = testSeed()): SeededRandom {
  let s = seed >>> 0;
  const splitmix = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const u32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) u32();
  const float = (): number => u32() / 2 ** 32;
  return {
    seed,
    float,
    u32,
    below: (n) => Math.floor(float() * n),
    bigBits(bits) {
      let out = 0n;
      for (let have = 0; have < bits; have += 32) out = (out << 32n) | BigInt(u32());
      return out & ((1n << BigInt(bits)) - 1n);
    },
    chance: (p) => float() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new Error('pick from an empty list');
      return items[Math.floor(float() * items.length)]!;
    },
  };
}

/**
 * Runs a test body that draws from `random`; any failure it throws carries the
 * seed, so `TEST_SEED=<seed>` replays it exactly.
 */
export function withSeed<T>(random: SeededRandom, body: () => T): T {
  const tag = (error: unknown): never => {
    if (error instanceof Error) error.message += `\n(replay: TEST_SEED=${random.seed})`;
    throw error;
  };
  try {
    const result = body();
    return result instanceof Promise ? (result.catch(tag) as T) : result;
  } catch (error) {
    return tag(error);
  }
}
