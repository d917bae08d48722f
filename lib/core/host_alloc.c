/*
 * host_alloc.c: the one door for the library's own host allocations
 * (bookkeeping: resource objects, maps, chunk and slab records, strings),
 * so that a test can make the Nth of them fail and walk N over a whole
 * scenario, as SQLite's test_malloc does. Disarmed, the cost is one relaxed
 * load per allocation. Memory handed to callers (the `host` resource) does
 * not come through here: its failures are the caller's out-of-memory, which
 * the adaptor tests inject with a failing upstream.
 */
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static _Atomic long fault_first; /* 0: disarmed */
static _Atomic long fault_count;
static _Atomic long counted; /* allocations since the last arm */

static bool injected_failure(void) {
  long first = atomic_load_explicit(&fault_first, memory_order_relaxed);
  if (MRI_LIKELY(first == 0)) return false;
  long n = atomic_fetch_add_explicit(&counted, 1, memory_order_relaxed) + 1;
  return n >= first && n - first < atomic_load_explicit(&fault_count, memory_order_relaxed);
}

void *mri_host_malloc(size_t bytes) { return injected_failure() ? NULL : malloc(bytes); }

void *mri_host_calloc(size_t count, size_t size) {
  return injected_failure() ? NULL : calloc(count, size);
}

void *mri_host_realloc(void *p, size_t bytes) {
  return injected_failure() ? NULL : realloc(p, bytes);
}

void *mri_host_aligned_alloc(size_t alignment, size_t bytes) {
  return injected_failure() ? NULL : aligned_alloc(alignment, bytes);
}

long mri_host_fault_arm(long nth, long count) {
  atomic_store_explicit(&fault_first, 0, memory_order_relaxed);
  long seen = atomic_exchange_explicit(&counted, 0, memory_order_relaxed);
  atomic_store_explicit(&fault_count, count > 0 ? count : 1, memory_order_relaxed);
  atomic_store_explicit(&fault_first, nth > 0 ? nth : 0, memory_order_relaxed);
  return seen;
}

long mri_host_fault_counted(void) { return atomic_load_explicit(&counted, memory_order_relaxed); }

char *mri_host_strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *copy = mri_host_malloc(n);
  if (copy != NULL) memcpy(copy, s, n);
  return copy;
}
