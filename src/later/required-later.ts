// A CommonJS package that only some requests or runs use, required at its
// first use instead of at start (dns-packet: the first DNS query; tz-lookup:
// a compile without the time-zone index). Synchronous, unlike the import()
// of the other modules of src/later/, for callers that cannot wait.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** `name`'s exports, required at the first call and kept. */
export function requiredLater<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(name) as T);
}
