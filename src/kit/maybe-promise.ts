// Values that are ready now or later. The request pipeline chains its steps
// with `after` so that a request whose every step is synchronous (rate limit
// in memory, cache in memory, a lookup in embedded data) completes in one go,
// without a promise or a microtask per step; any step may still be async
// (Redis, DNS, RDAP), and then the rest of the chain follows it.

export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now when `value` is ready, after it settles otherwise. */
export function after<T, R>(
  value: MaybePromise<T>,
  next: (value: T) => MaybePromise<R>,
): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
