// Waiting in tests: for a condition (polled), and how long a call took.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `condition` every `everyMs` until it holds; throws after `ms`, a bound
 * against a hang only (30 s by default: what a test waits for comes within a
 * second or two here, and a loaded machine must not turn a wait into a failure).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  ms = 30_000,
  everyMs = 10,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await sleep(everyMs);
  }
}

/** The result of `fn` and the milliseconds it took. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - started };
}
