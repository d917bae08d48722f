/*
 * _torch_alloc.c: PyTorch's CUDAPluggableAllocator over mrctx tags.
 *
 * PyTorch loads this module with ctypes and calls a pair of functions
 *   void *alloc(ssize_t size, int device, cudaStream_t stream)
 *   void free(void *ptr, ssize_t size, int device, cudaStream_t stream)
 * for every allocation (mrctx.torch.use) or, under torch.cuda.MemPool, for
 * every segment of a pool (mrctx.torch.pool). Each pair serves one *route*:
 * the resources of one (context, tag), one per device, bound once by
 * mrctx_torch_bind from Python and then never changed, so the pairs read
 * one atomic pointer and take no lock. Route 0 is the default allocator
 * (mrctx_torch_alloc in _torch_oom.cpp / mrctx_torch_free); routes 1..8 are
 * the numbered pairs mrctx_torch_pool_alloc_N / mrctx_torch_pool_free_N for
 * MemPools.
 *
 * A route holds a reference to each of its resources and is never freed:
 * PyTorch may free into it until the process ends, after the Python context
 * is gone. Memory is freed on the stream it was allocated on (PyTorch hands
 * back the stream it recorded), stream-ordered, so a block can be reused at
 * once by later work on that stream.
 *
 * Failures: a pool route's alloc returns NULL, which PyTorch's caching
 * allocator turns into torch.OutOfMemoryError; the default route throws
 * instead (_torch_oom.cpp), since PyTorch does not check that pointer. A
 * free that fails cannot be reported to PyTorch: it is counted
 * (mrctx_torch_failed_frees) and its message kept for Python to show.
 *
 * For measuring (_torch_alloc.h, docs/integrations.md "Inside a training
 * step"): the control allocator, a trivial exact-size free list loaded the
 * way route 0 is (mrctx_torch_control_alloc / _free), and timed twins of
 * route 0's and the control's pairs (*_timed) that Python hands PyTorch
 * only under MRCTX_TORCH_TIMING=1, so the plain pairs above pay nothing.
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include <mrctx/mrctx.h>

#include "_torch_alloc.h"

#define EXPORT __attribute__((visibility("default")))

/* One device of a route. The limit sits beside the resource, so the
 * allocation path reads both from one cache line. */
typedef struct route_device {
  mr_resource *mr;         /* one reference */
  atomic_ullong limit;     /* bytes; NO_LIMIT until a memory fraction is set */
  _Atomic double fraction; /* the fraction that set it; 1 when none */
  atomic_ullong total;     /* the device's memory, read when a fraction is set */
  atomic_ullong refused;   /* allocations the limit refused: the tag never saw them */
  atomic_ullong lent;      /* of the refused and failed, those a use_on_oom MemPool served */
} route_device;

#define NO_LIMIT ULLONG_MAX

typedef struct route {
  char name[128]; /* "library/tag", for messages */
  int device_count;
  route_device dev[];
} route;

static _Atomic(route *) routes[MRCTX_TORCH_ROUTES];
static atomic_ullong failed_frees;
static pthread_mutex_t free_error_lock = PTHREAD_MUTEX_INITIALIZER;
static char free_error[512];

EXPORT int mrctx_torch_route_count(void) { return MRCTX_TORCH_ROUTES; }

EXPORT int mrctx_torch_bind(int index, const char *name, mr_resource *const *resources,
                            int device_count) {
  if (index < 0 || index >= MRCTX_TORCH_ROUTES || name == NULL || resources == NULL ||
      device_count <= 0) {
    mr_error(MR_ERR_INVALID_ARGUMENT, "mrctx_torch_bind: route %d, %d devices: invalid", index,
             device_count);
    return -1;
  }
  route *r = malloc(sizeof *r + (size_t)device_count * sizeof r->dev[0]);
  if (r == NULL) {
    mr_error(MR_ERR_OUT_OF_MEMORY, "mrctx_torch_bind: out of host memory");
    return -1;
  }
  snprintf(r->name, sizeof r->name, "%s", name);
  r->device_count = device_count;
  for (int d = 0; d < device_count; d++) {
    r->dev[d].mr = mr_resource_retain(resources[d]);
    atomic_init(&r->dev[d].limit, NO_LIMIT);
    atomic_init(&r->dev[d].fraction, 1.0);
    atomic_init(&r->dev[d].total, 0);
    atomic_init(&r->dev[d].refused, 0);
    atomic_init(&r->dev[d].lent, 0);
  }
  route *expected = NULL;
  if (!atomic_compare_exchange_strong(&routes[index], &expected, r)) {
    for (int d = 0; d < device_count; d++) mr_resource_release(r->dev[d].mr);
    free(r);
    mr_error(MR_ERR_STATE,
             "mrctx_torch_bind: route %d is already bound (memory may still be "
             "live in it, so it is never rebound)",
             index);
    return -1;
  }
  return 0;
}

EXPORT int mrctx_torch_bound(int index) {
  return index >= 0 && index < MRCTX_TORCH_ROUTES &&
         atomic_load_explicit(&routes[index], memory_order_acquire) != NULL;
}

const char *mrctx_torch_route_name(int index) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  return r != NULL ? r->name : "an unbound route";
}

/* MR_OK if `size` more bytes keep the tag within the limit a memory
 * fraction set on `device`; else out of memory, saying so. The tag's bytes
 * are read from its statistics (every context slot counts them), so the
 * limit costs nothing until a fraction is set, and bounds every user of
 * the tag, not only PyTorch. Checked, then allocated: allocations in
 * flight on other threads at that moment may pass it together. */
static mr_status over_limit(route *r, ssize_t size, int device) {
  route_device *dev = &r->dev[device];
  unsigned long long limit = atomic_load_explicit(&dev->limit, memory_order_relaxed);
  mr_stats stats;
  mr_stats_init(&stats);
  mr_status st = mr_stats_resource_get(dev->mr, &stats);
  if (st != MR_OK) return st;
  if (stats.current_bytes <= limit && (unsigned long long)size <= limit - stats.current_bytes)
    return MR_OK;
  atomic_fetch_add_explicit(&dev->refused, 1, memory_order_relaxed);
  return mr_error(MR_ERR_OUT_OF_MEMORY,
                  "%zd bytes would take %s past its limit on device %d: %llu bytes, %g of the "
                  "device's %llu (torch.cuda.set_per_process_memory_fraction); the tag holds "
                  "%llu bytes there",
                  size, r->name, device, limit,
                  atomic_load_explicit(&dev->fraction, memory_order_relaxed),
                  atomic_load_explicit(&dev->total, memory_order_relaxed),
                  (unsigned long long)stats.current_bytes);
}

EXPORT void *mrctx_torch_route_alloc(int index, ssize_t size, int device, void *stream,
                                     mr_status *status) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  void *ptr = NULL;
  if (r == NULL) {
    *status = mr_error(MR_ERR_STATE, "mrctx torch allocator: route %d is not bound", index);
  } else if (size < 0 || device < 0 || device >= r->device_count) {
    *status = mr_error(MR_ERR_INVALID_ARGUMENT,
                       "mrctx torch allocator (%s): %zd bytes on device %d: it has %d "
                       "device(s)",
                       r->name, size, device, r->device_count);
  } else if (__builtin_expect(atomic_load_explicit(&r->dev[device].limit, memory_order_relaxed) !=
                                  NO_LIMIT,
                              0) &&
             (*status = over_limit(r, size, device)) != MR_OK) {
    /* past torch.cuda.set_per_process_memory_fraction's share */
  } else {
    *status = mr_allocate(r->dev[device].mr, (size_t)size, 0, (mr_stream)stream, &ptr);
  }
  return ptr;
}

/* A free that failed: PyTorch cannot be told, so it is counted and its
 * message (this thread's mr_last_error()) kept for Python. */
static void note_failed_free(void) {
  atomic_fetch_add_explicit(&failed_frees, 1, memory_order_relaxed);
  pthread_mutex_lock(&free_error_lock);
  snprintf(free_error, sizeof free_error, "%s", mr_last_error());
  pthread_mutex_unlock(&free_error_lock);
}

EXPORT void mrctx_torch_route_free(int index, void *ptr, ssize_t size, int device, void *stream) {
  route *r = atomic_load_explicit(&routes[index], memory_order_acquire);
  if (ptr == NULL) return;
  mr_status st;
  if (r == NULL || device < 0 || device >= r->device_count || size < 0)
    st = mr_error(MR_ERR_INVALID_ARGUMENT,
                  "mrctx torch allocator (%s): freeing %p (%zd bytes) "
                  "on device %d: not a block of route %d",
                  r != NULL ? r->name : "unbound", ptr, size, device, index);
  else
    st = mr_deallocate(r->dev[device].mr, ptr, (size_t)size, 0, (mr_stream)stream);
  if (st == MR_OK) return;
  note_failed_free();
}

EXPORT unsigned long long mrctx_torch_failed_frees(void) {
  return atomic_load_explicit(&failed_frees, memory_order_relaxed);
}

/* The last failed free's message, copied into buf (cap bytes). */
EXPORT void mrctx_torch_last_free_error(char *buf, size_t cap) {
  if (cap == 0) return;
  pthread_mutex_lock(&free_error_lock);
  snprintf(buf, cap, "%s", free_error);
  pthread_mutex_unlock(&free_error_lock);
}

/* ---- PyTorch's controls (the pluggable allocator's hooks) ------------------
 *
 * torch.cuda.empty_cache() and set_per_process_memory_fraction() reach a
 * pluggable allocator only through its reset and memory-fraction hooks;
 * _torch_oom.cpp exports them (mrctx_torch_empty_cache,
 * mrctx_torch_set_memory_fraction), throwing what these return, and
 * mrctx.torch.use() registers them for route 0. */

static route *bound_route(int index, const char *what, mr_status *status) {
  route *r = index >= 0 && index < MRCTX_TORCH_ROUTES
                 ? atomic_load_explicit(&routes[index], memory_order_acquire)
                 : NULL;
  *status = r != NULL ? MR_OK
                      : mr_error(MR_ERR_STATE, "mrctx torch allocator: %s: route %d is not bound",
                                 what, index);
  return r;
}

EXPORT mr_status mrctx_torch_route_empty_cache(int index) {
  mr_status st;
  route *r = bound_route(index, "empty_cache", &st);
  for (int d = 0; r != NULL && d < r->device_count; d++) {
    /* Only devices the tag has served: waiting on, or trimming the pool of,
     * a device nothing ran on would make it a context. */
    mr_stats stats;
    mr_stats_init(&stats);
    st = mr_stats_resource_get(r->dev[d].mr, &stats);
    if (st == MR_OK && stats.total_count == 0) continue;
    /* The tag's caches give their idle blocks back to the driver pool, then
     * the pool gives its idle memory back to the system. */
    if (st == MR_OK) st = mr_resource_trim(r->dev[d].mr);
    if (st == MR_OK) st = mr_driver_pool_trim(MR_DRIVER_POOL_DEVICE_CURRENT, d, 0);
    if (st != MR_OK) {
      char why[384];
      snprintf(why, sizeof why, "%s", mr_last_error());
      return mr_error(st, "torch.cuda.empty_cache() through mrctx (%s), device %d: %s", r->name, d,
                      why);
    }
  }
  return st;
}

/* Tensor.record_stream through the hook: the block may not be handed out
 * again until `stream`'s work queued before its free has finished
 * (mr_record_stream). PyTorch gives no device: the record keys on the
 * pointer, and the resource of the current device only says how to treat
 * a default-stream handle; the free later goes to the block's own. */
EXPORT mr_status mrctx_torch_route_record_stream(int index, void *ptr, void *stream) {
  mr_status st;
  route *r = bound_route(index, "Tensor.record_stream", &st);
  if (r == NULL) return st;
  int device = mr_current_device();
  if (device < 0 || device >= r->device_count) device = 0;
  st = mr_record_stream(r->dev[device].mr, ptr, (mr_stream)stream);
  if (st != MR_OK) {
    char why[384];
    snprintf(why, sizeof why, "%s", mr_last_error());
    return mr_error(st, "Tensor.record_stream(stream %p) through mrctx (%s), block %p: %s", stream,
                    r->name, ptr, why);
  }
  return MR_OK;
}

EXPORT mr_status mrctx_torch_route_set_fraction(int index, double fraction, int device) {
  mr_status st;
  route *r = bound_route(index, "set_per_process_memory_fraction", &st);
  if (r == NULL) return st;
  if (device < 0 || device >= r->device_count || !(fraction >= 0.0 && fraction <= 1.0))
    return mr_error(MR_ERR_INVALID_ARGUMENT,
                    "torch.cuda.set_per_process_memory_fraction(%g, device=%d) through mrctx "
                    "(%s): the fraction is from 0 to 1, the device from 0 to %d",
                    fraction, device, r->name, r->device_count - 1);
  mr_device_info info;
  memset(&info, 0, sizeof info);
  info.size = sizeof info;
  st = mr_device_get_info(device, &info);
  if (st != MR_OK) {
    char why[384];
    snprintf(why, sizeof why, "%s", mr_last_error());
    return mr_error(st,
                    "torch.cuda.set_per_process_memory_fraction(%g, device=%d) through "
                    "mrctx (%s): %s",
                    fraction, device, r->name, why);
  }
  route_device *dev = &r->dev[device];
  atomic_store_explicit(&dev->total, info.total_memory, memory_order_relaxed);
  atomic_store_explicit(&dev->fraction, fraction, memory_order_relaxed);
  /* 1 is the whole device: the limit PyTorch's own allocator then has
   * (none beyond the device), and the allocation path's fast case. */
  unsigned long long limit =
      fraction >= 1.0 ? NO_LIMIT : (unsigned long long)((double)info.total_memory * fraction);
  atomic_store_explicit(&dev->limit, limit, memory_order_relaxed);
  return MR_OK;
}

/* cuDNN's algorithm search (torch.backends.cudnn.benchmark) asks the
 * allocator, before trying algorithms, for the largest workspace worth
 * trying (c10's cacheInfo). PyTorch's own allocator answers the larger of
 * the device's free memory and its largest cached block, and catches the
 * out-of-memory of a workspace that does not fit after all; this answers
 * the device's free memory plus what its current driver pool holds unused
 * (which the tag's misses draw from), within the memory fraction's limit.
 * The tag's own idle blocks are not added: an allocation that needs them
 * gets them back through the reclaim on out of memory. */
EXPORT mr_status mrctx_torch_route_cache_info(int index, int device, size_t *largest) {
  mr_status st;
  route *r = bound_route(index, "cacheInfo", &st);
  if (largest != NULL) *largest = 0;
  if (r == NULL) return st;
  if (largest == NULL || device < 0 || device >= r->device_count)
    return mr_error(MR_ERR_INVALID_ARGUMENT,
                    "cacheInfo through mrctx (%s): device %d of %d, or no answer to write", r->name,
                    device, r->device_count);
  uint64_t free_bytes = 0, total = 0;
  st = mr_device_get_memory(device, &free_bytes, &total);
  if (st != MR_OK) return st;
  mr_pool_info pool;
  memset(&pool, 0, sizeof pool);
  pool.size = sizeof pool;
  if (mr_driver_pool_get_info(MR_DRIVER_POOL_DEVICE_CURRENT, device, &pool) == MR_OK &&
      pool.reserved_bytes > pool.used_bytes)
    free_bytes += pool.reserved_bytes - pool.used_bytes;
  route_device *dev = &r->dev[device];
  unsigned long long limit = atomic_load_explicit(&dev->limit, memory_order_relaxed);
  if (limit != NO_LIMIT) {
    mr_stats stats;
    mr_stats_init(&stats);
    st = mr_stats_resource_get(dev->mr, &stats);
    if (st != MR_OK) return st;
    unsigned long long room = stats.current_bytes < limit ? limit - stats.current_bytes : 0;
    if (free_bytes > room) free_bytes = room;
  }
  *largest = (size_t)free_bytes;
  return MR_OK;
}

/* The same for the allocator helper's cacheInfo (_torch_alloc_helper in
 * _torch_oom_helper.py): route 0, 0 or -1 with the message in `why`. */
EXPORT int mrctx_torch_cache_info(int device, size_t *largest, char *why, size_t cap) {
  return mrctx_torch_answer(mrctx_torch_route_cache_info(0, device, largest), why, cap);
}

int mrctx_torch_answer(mr_status status, char *why, size_t cap) {
  if (status == MR_OK) return 0;
  if (why != NULL && cap > 0) snprintf(why, cap, "%s", mr_last_error());
  return -1;
}

/* A block of a private pool going back to the tag (_torch_pools.cpp), after
 * the device's work has finished: any stream will do, the calling thread's
 * per-thread default stream is used. */
void mrctx_torch_route_free_block(int index, void *ptr, size_t size, int device) {
  mrctx_torch_route_free(index, ptr, (ssize_t)size, device, (void *)0x2 /* CU_STREAM_PER_THREAD */);
}

EXPORT double mrctx_torch_route_fraction(int index, int device) {
  mr_status st;
  route *r = bound_route(index, "get_per_process_memory_fraction", &st);
  if (r == NULL || device < 0 || device >= r->device_count) return -1.0;
  return atomic_load_explicit(&r->dev[device].fraction, memory_order_relaxed);
}

EXPORT unsigned long long mrctx_torch_route_limit(int index, int device) {
  mr_status st;
  route *r = bound_route(index, "limit", &st);
  if (r == NULL || device < 0 || device >= r->device_count) return 0;
  return atomic_load_explicit(&r->dev[device].limit, memory_order_relaxed);
}

mr_resource *mrctx_torch_route_resource(int index, int device, const char *what, int *devices,
                                        mr_status *status) {
  route *r = bound_route(index, what, status);
  if (r == NULL) return NULL;
  if (devices != NULL) *devices = r->device_count;
  if (device < 0 || device >= r->device_count) {
    *status = mr_error(MR_ERR_NO_DEVICE, "%s through mrctx (%s): device %d is not one of its %d",
                       what, r->name, device, r->device_count);
    return NULL;
  }
  *status = MR_OK;
  return r->dev[device].mr;
}

EXPORT unsigned long long mrctx_torch_route_refused(int index, int device) {
  mr_status st;
  route *r = bound_route(index, "refused", &st);
  if (r == NULL || device < 0 || device >= r->device_count) return 0;
  return atomic_load_explicit(&r->dev[device].refused, memory_order_relaxed);
}

EXPORT void mrctx_torch_route_count_lent(int index, int device) {
  mr_status st;
  route *r = bound_route(index, "lent", &st);
  if (r != NULL && device >= 0 && device < r->device_count)
    atomic_fetch_add_explicit(&r->dev[device].lent, 1, memory_order_relaxed);
}

EXPORT unsigned long long mrctx_torch_route_lent(int index, int device) {
  mr_status st;
  route *r = bound_route(index, "lent", &st);
  if (r == NULL || device < 0 || device >= r->device_count) return 0;
  return atomic_load_explicit(&r->dev[device].lent, memory_order_relaxed);
}

/* The MemPool routes: a pair per route, since PyTorch gives the functions
 * no user argument. They return NULL on failure: the caching allocator over
 * a MemPool reports that as torch.OutOfMemoryError. */
#define MRCTX_TORCH_POOL_PAIR(n)                                                            \
  EXPORT void *mrctx_torch_pool_alloc_##n(ssize_t size, int device, void *stream);          \
  void *mrctx_torch_pool_alloc_##n(ssize_t size, int device, void *stream) {                \
    mr_status st;                                                                           \
    return mrctx_torch_route_alloc(n, size, device, stream, &st);                           \
  }                                                                                         \
  EXPORT void mrctx_torch_pool_free_##n(void *ptr, ssize_t size, int device, void *stream); \
  void mrctx_torch_pool_free_##n(void *ptr, ssize_t size, int device, void *stream) {       \
    mrctx_torch_route_free(n, ptr, size, device, stream);                                   \
  }
MRCTX_TORCH_POOL_PAIR(1)
MRCTX_TORCH_POOL_PAIR(2)
MRCTX_TORCH_POOL_PAIR(3)
MRCTX_TORCH_POOL_PAIR(4)
MRCTX_TORCH_POOL_PAIR(5)
MRCTX_TORCH_POOL_PAIR(6)
MRCTX_TORCH_POOL_PAIR(7)
MRCTX_TORCH_POOL_PAIR(8)

/* ---- Timing (MRCTX_TORCH_TIMING=1; see _torch_alloc.h) --------------------
 *
 * Relaxed atomics: the counters are read after the work they count has
 * been synchronised (the end of a step), and a call may run on any thread
 * (autograd frees on its own). Only the *_timed pairs touch them. */

typedef struct timing_counters {
  _Alignas(64) atomic_ullong calls; /* alloc's and free's on lines of their own */
  atomic_ullong ns, max_ns, slow_calls;
} timing_counters;

static timing_counters timing[2];

unsigned long long mrctx_torch_clock_ns(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (unsigned long long)now.tv_sec * 1000000000ULL + (unsigned long long)now.tv_nsec;
}

void mrctx_torch_time_record(int op, unsigned long long start_ns) {
  unsigned long long ns = mrctx_torch_clock_ns() - start_ns;
  timing_counters *t = &timing[op];
  atomic_fetch_add_explicit(&t->calls, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&t->ns, ns, memory_order_relaxed);
  if (ns > MRCTX_TORCH_SLOW_NS) atomic_fetch_add_explicit(&t->slow_calls, 1, memory_order_relaxed);
  unsigned long long max = atomic_load_explicit(&t->max_ns, memory_order_relaxed);
  while (ns > max && !atomic_compare_exchange_weak_explicit(
                         &t->max_ns, &max, ns, memory_order_relaxed, memory_order_relaxed)) {
  }
}

static void timing_op_read(timing_counters *t, mrctx_torch_timing_op *out) {
  out->calls = atomic_load_explicit(&t->calls, memory_order_relaxed);
  out->ns = atomic_load_explicit(&t->ns, memory_order_relaxed);
  out->max_ns = atomic_load_explicit(&t->max_ns, memory_order_relaxed);
  out->slow_calls = atomic_load_explicit(&t->slow_calls, memory_order_relaxed);
}

EXPORT void mrctx_torch_timing_read(mrctx_torch_timing *out) {
  if (out == NULL) return;
  timing_op_read(&timing[MRCTX_TORCH_TIME_ALLOC], &out->alloc);
  timing_op_read(&timing[MRCTX_TORCH_TIME_FREE], &out->free);
}

EXPORT void mrctx_torch_timing_reset(void) {
  for (int op = 0; op < 2; op++) {
    atomic_store_explicit(&timing[op].calls, 0, memory_order_relaxed);
    atomic_store_explicit(&timing[op].ns, 0, memory_order_relaxed);
    atomic_store_explicit(&timing[op].max_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&timing[op].slow_calls, 0, memory_order_relaxed);
  }
}

/* ---- The control allocator (measurement only; see _torch_alloc.h) ---------
 *
 * One open-addressing hash table of lists, keyed by (device, size, stream),
 * under one mutex; each list a stack of free blocks of exactly that size,
 * freed on exactly that stream, so a block handed out again is only used by
 * work ordered after its free: no event is needed. A miss goes to mrctx's
 * `device` resource for the device (made at the device's first miss) with
 * the table unlocked. Nothing is ever given back to the driver, except a
 * freed block the table has no host memory to keep. Lists are never
 * removed, so the table only grows, with the number of distinct sizes. */

#define CONTROL_DEVICES 64

typedef struct control_list {
  size_t size; /* 0: an empty slot (size 0 is never allocated) */
  void *stream;
  int device;
  size_t count, cap;
  void **blocks;
} control_list;

static struct {
  pthread_mutex_t lock;
  control_list *table;
  size_t table_cap; /* a power of two, or 0 before the first free */
  mr_resource *mr[CONTROL_DEVICES];
  mrctx_torch_control_stats stats;
} control = {.lock = PTHREAD_MUTEX_INITIALIZER};

static size_t control_hash(int device, size_t size, void *stream) {
  uint64_t h = (uint64_t)size * 0x9e3779b97f4a7c15ULL ^ (uint64_t)(uintptr_t)stream ^
               (uint64_t)(unsigned)device << 56;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return (size_t)h;
}

/* The slot of (device, size, stream): its list, or the empty slot where it
 * would go. Needs the lock and a table with at least one empty slot. */
static control_list *control_slot(control_list *table, size_t cap, int device, size_t size,
                                  void *stream) {
  size_t i = control_hash(device, size, stream) & (cap - 1);
  for (;; i = (i + 1) & (cap - 1)) {
    control_list *l = &table[i];
    if (l->size == 0 || (l->size == size && l->stream == stream && l->device == device)) return l;
  }
}

/* The list of (device, size, stream), made if missing; NULL when out of
 * host memory. Needs the lock. Keeps the table at most half full. */
static control_list *control_list_for(int device, size_t size, void *stream) {
  if (control.table_cap != 0) {
    control_list *l = control_slot(control.table, control.table_cap, device, size, stream);
    if (l->size != 0) return l;
  }
  if ((control.stats.lists + 1) * 2 > control.table_cap) {
    size_t cap = control.table_cap != 0 ? control.table_cap * 2 : 64;
    control_list *table = calloc(cap, sizeof *table);
    if (table == NULL) return NULL;
    for (size_t i = 0; i < control.table_cap; i++) {
      if (control.table[i].size == 0) continue;
      control_list *old = &control.table[i];
      *control_slot(table, cap, old->device, old->size, old->stream) = *old;
    }
    free(control.table);
    control.table = table;
    control.table_cap = cap;
  }
  control_list *l = control_slot(control.table, control.table_cap, device, size, stream);
  *l = (control_list){.size = size, .stream = stream, .device = device};
  control.stats.lists++;
  return l;
}

/* A list of this key that holds a block, or NULL. Needs the lock. */
static control_list *control_find(int device, size_t size, void *stream) {
  if (control.table_cap == 0) return NULL;
  control_list *l = control_slot(control.table, control.table_cap, device, size, stream);
  return l->size != 0 && l->count != 0 ? l : NULL;
}

static void control_handed_out(size_t size) {
  control.stats.live_bytes += size;
  if (control.stats.live_bytes > control.stats.peak_live_bytes)
    control.stats.peak_live_bytes = control.stats.live_bytes;
}

EXPORT void *mrctx_torch_control_route_alloc(ssize_t size, int device, void *stream,
                                             mr_status *status) {
  void *ptr = NULL;
  *status = MR_OK;
  if (size < 0 || device < 0 || device >= CONTROL_DEVICES) {
    *status = mr_error(MR_ERR_INVALID_ARGUMENT,
                       "mrctx torch control allocator: %zd bytes on device %d: it serves "
                       "devices 0 to %d and sizes from 0",
                       size, device, CONTROL_DEVICES - 1);
    pthread_mutex_lock(&control.lock);
    control.stats.failed++;
    pthread_mutex_unlock(&control.lock);
    return NULL;
  }
  if (size == 0) return NULL;
  pthread_mutex_lock(&control.lock);
  control_list *l = control_find(device, (size_t)size, stream);
  if (l != NULL) {
    ptr = l->blocks[--l->count];
    control.stats.hits++;
    control.stats.cached_blocks--;
    control.stats.cached_bytes -= (size_t)size;
    control_handed_out((size_t)size);
    pthread_mutex_unlock(&control.lock);
    return ptr;
  }
  mr_resource *mr = control.mr[device];
  if (mr == NULL) {
    /* The device's first miss: its `device` resource (a handle on the
     * current driver pool; cheap, and made once). */
    *status = mr_resource_from_spec("device", device, &mr);
    if (*status == MR_OK) control.mr[device] = mr;
  }
  pthread_mutex_unlock(&control.lock);
  if (*status == MR_OK) *status = mr_allocate(mr, (size_t)size, 0, (mr_stream)stream, &ptr);
  pthread_mutex_lock(&control.lock);
  if (*status == MR_OK) {
    control.stats.misses++;
    control.stats.reserved_bytes += (size_t)size;
    control_handed_out((size_t)size);
  } else {
    control.stats.failed++;
  }
  pthread_mutex_unlock(&control.lock);
  if (*status != MR_OK) {
    char why[384];
    snprintf(why, sizeof why, "%s", mr_last_error());
    *status = mr_error(*status,
                       "mrctx torch control allocator: %zd bytes on device %d, "
                       "stream %p: %s%s",
                       size, device, stream, why,
                       *status == MR_ERR_OUT_OF_MEMORY
                           ? " (the control never gives memory back: it holds every block "
                             "it ever took, at its size and stream)"
                           : "");
  }
  return ptr;
}

EXPORT void mrctx_torch_control_free(void *ptr, ssize_t size, int device, void *stream) {
  if (ptr == NULL) return;
  if (size <= 0 || device < 0 || device >= CONTROL_DEVICES) {
    mr_error(MR_ERR_INVALID_ARGUMENT,
             "mrctx torch control allocator: freeing %p (%zd bytes) "
             "on device %d: not a block of the control",
             ptr, size, device);
    note_failed_free();
    return;
  }
  pthread_mutex_lock(&control.lock);
  mr_resource *mr = control.mr[device];
  if (mr == NULL) {
    pthread_mutex_unlock(&control.lock);
    mr_error(MR_ERR_INVALID_ARGUMENT,
             "mrctx torch control allocator: freeing %p (%zd bytes) "
             "on device %d: the control never allocated on that device",
             ptr, size, device);
    note_failed_free();
    return;
  }
  control.stats.frees++;
  control.stats.live_bytes -= (size_t)size;
  control_list *l = control_list_for(device, (size_t)size, stream);
  if (l != NULL && l->count == l->cap) {
    size_t cap = l->cap != 0 ? l->cap * 2 : 4;
    void **blocks = realloc(l->blocks, cap * sizeof *blocks);
    if (blocks != NULL) {
      l->blocks = blocks;
      l->cap = cap;
    }
  }
  if (l != NULL && l->count < l->cap) {
    l->blocks[l->count++] = ptr;
    control.stats.cached_blocks++;
    control.stats.cached_bytes += (size_t)size;
    pthread_mutex_unlock(&control.lock);
    return;
  }
  /* No host memory to keep it: the block goes back to the pool. */
  control.stats.reserved_bytes -= (size_t)size;
  pthread_mutex_unlock(&control.lock);
  if (mr_deallocate(mr, ptr, (size_t)size, 0, (mr_stream)stream) != MR_OK) note_failed_free();
}

EXPORT void mrctx_torch_control_free_timed(void *ptr, ssize_t size, int device, void *stream) {
  unsigned long long start = mrctx_torch_clock_ns();
  mrctx_torch_control_free(ptr, size, device, stream);
  mrctx_torch_time_record(MRCTX_TORCH_TIME_FREE, start);
}

EXPORT void mrctx_torch_control_read(mrctx_torch_control_stats *out) {
  if (out == NULL) return;
  pthread_mutex_lock(&control.lock);
  *out = control.stats;
  pthread_mutex_unlock(&control.lock);
}
