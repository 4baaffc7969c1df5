/*
 * malloc_trim(0) for the idle release (src/observe/idle-memory.ts). Why: the main
 * thread's malloc heap cannot grow by brk in Node (V8 maps its code pages right
 * above it), so glibc grows it by mmapped segments, and free() never hands
 * those back, nor does the heap's top trimming. Under a load of request bodies
 * (64 KiB socket reads each, freed only when V8 collects their Buffers) that
 * heap reached ~48 MB with ~40 MB of it free a minute later. malloc_trim gives
 * the free pages of every arena back (MADV_DONTNEED), segments included.
 * Built by scripts/build-native.mjs when a C compiler is there; N-API only, so
 * one build serves every Node version of the same ABI.
 */
#include <node_api.h>
#include <stdbool.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* trim(): true when memory was given back to the system */
static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) == 1;
#endif
  napi_value result;
  if (napi_get_boolean(env, released, &result) != napi_ok) return NULL;
  return result;
}

NAPI_MODULE_INIT() {
  napi_value trim;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &trim) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", trim) != napi_ok) return NULL;
  return exports;
}
