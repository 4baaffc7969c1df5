// malloc_trim(0), from the addon scripts/build-native.mjs compiles
// (src/native/malloc-trim.c): after a load, glibc keeps the main thread's
// freed memory in segments it never unmaps (see the C file); the idle release
// (./idle-memory.ts) asks for it back once V8 has freed what the load left.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../kit/project-root.js';

export const NATIVE_HEAP_ADDON = join(PROJECT_ROOT, 'dist', 'native', 'malloc-trim.node');

/** Gives malloc's free pages back to the system; true when some were. */
export type NativeHeapTrim = () => boolean;

/** The trim, or why there is none (not built: no C compiler or no Node headers at build time). */
export function loadNativeHeapTrim(
  path: string = NATIVE_HEAP_ADDON,
): { trim: NativeHeapTrim } | { missing: string } {
  try {
    const addon = createRequire(import.meta.url)(path) as { trim?: unknown };
    if (typeof addon.trim !== 'function') return { missing: `${path} has no trim()` };
    const trim = addon.trim as () => unknown;
    return { trim: () => trim() === true };
  } catch (error) {
    return { missing: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}
