/*
 * _torch_alloc.h: what _torch_alloc.c and _torch_oom.cpp share (internal to
 * the PyTorch shim; see _torch_alloc.c).
 */
#ifndef MRCTX_TORCH_ALLOC_H
#define MRCTX_TORCH_ALLOC_H

#include <pthread.h>
#include <sys/types.h>

#include <mrctx/mrctx.h>

/* Route 0 is the default allocator; 1..8 the MemPool pairs. */
#define MRCTX_TORCH_ROUTES 9

MR_EXTERN_C_BEGIN

/* Exported for Python (ctypes) and PyTorch. */
int mrctx_torch_route_count(void);
/* Bind route `index`, named `name` ("library/tag") in messages, to one
 * resource per device (each retained; the caller keeps its own
 * references). Once only: 0, or -1 with mr_last_error(). */
int mrctx_torch_bind(int index, const char *name, mr_resource *const *resources, int device_count);
int mrctx_torch_bound(int index);
void mrctx_torch_free(void *ptr, ssize_t size, int device, void *stream);
unsigned long long mrctx_torch_failed_frees(void);
void mrctx_torch_last_free_error(char *buf, size_t cap);

/* PyTorch's controls, for route `index` (0 under mrctx.torch.use). Each
 * returns MR_OK, or a status with mr_last_error() saying what failed;
 * _torch_oom.cpp's hooks throw that for PyTorch.
 *
 * torch.cuda.empty_cache(): on every device the route has served, trim the
 * tag's resource (its caches give idle blocks back) and then the device's
 * current driver pool (mr_driver_pool_trim). */
mr_status mrctx_torch_route_empty_cache(int index);
/* torch.cuda.set_per_process_memory_fraction(fraction, device): from now
 * on an allocation through the route that would take the tag's bytes on
 * `device` (its statistics' current_bytes) past fraction x the device's
 * memory fails as out of memory. 1 lifts the limit. */
mr_status mrctx_torch_route_set_fraction(int index, double fraction, int device);
/* mr_record_stream on route `index` (Tensor.record_stream). */
mr_status mrctx_torch_route_record_stream(int index, void *ptr, void *stream);
/* The fraction set on `device` (1 when none; -1 for an unbound route or a
 * device it does not have), and the limit in bytes (ULLONG_MAX: none). */
double mrctx_torch_route_fraction(int index, int device);
unsigned long long mrctx_torch_route_limit(int index, int device);
/* How many allocations on `device` the limit refused (0 for an unbound
 * route or a device it does not have). They never reached the tag, so its
 * failed_count does not have them: torch.cuda.memory_stats()'s num_ooms
 * adds them, as PyTorch's own allocator counts an OOM past the fraction. */
unsigned long long mrctx_torch_route_refused(int index, int device);
/* An allocation on `device` that the tag or the limit refused and a
 * torch.cuda.MemPool(use_on_oom=True) served (_torch_oom.cpp): PyTorch
 * counts no out-of-memory then, so num_ooms leaves it out. */
void mrctx_torch_route_count_lent(int index, int device);
unsigned long long mrctx_torch_route_lent(int index, int device);

/* cuDNN's cacheInfo (torch.backends.cudnn.benchmark): the largest
 * workspace worth trying on `device` through route `index` (the device's
 * free memory and its current driver pool's unused memory, within a
 * memory fraction's limit), in *largest. */
mr_status mrctx_torch_route_cache_info(int index, int device, size_t *largest);
/* Route 0's, for the allocator helper: 0, or -1 with the message in `why`
 * (`cap` bytes). */
int mrctx_torch_cache_info(int device, size_t *largest, char *why, size_t cap);
/* What the helper's C entries return (C++ catches no mr_status): 0 for
 * MR_OK, else -1 with mr_last_error() in `why` (`cap` bytes). */
int mrctx_torch_answer(mr_status status, char *why, size_t cap);

/* PyTorch's device statistics (c10::CachingDeviceAllocator::DeviceStats,
 * its "all" pool) read from route `index`'s tag on one device: what
 * torch.cuda.memory_stats() reports under use(). mrctx.torch's drop-ins and
 * the allocator helper's getDeviceStats read the same numbers from here.
 * allocated_bytes (also active_bytes and requested_bytes) is the tag's
 * bytes less the free blocks CUDA graphs' private pools keep (PyTorch
 * counts those reserved); allocation (also active) its blocks;
 * reserved_bytes and segment add what the tag's cache keeps (their peaks
 * are at least that: mrctx keeps no peak of a cache); num_ooms counts the
 * tag's failures and the memory fraction's refusals; num_device_alloc and
 * num_device_free the cache's misses and trims (the tag's allocations and
 * frees where it has no cache). Totals and counts since the last
 * mrctx_torch_route_reset_accumulated. */
typedef struct mrctx_torch_stat {
  long long current, peak, allocated, freed;
} mrctx_torch_stat;
typedef struct mrctx_torch_device_stats {
  mrctx_torch_stat allocated_bytes;
  mrctx_torch_stat allocation;
  mrctx_torch_stat reserved_bytes;
  mrctx_torch_stat segment;
  long long num_ooms;
  long long num_device_alloc;
  long long num_device_free;
} mrctx_torch_device_stats;
mr_status mrctx_torch_route_device_stats(int index, int device, mrctx_torch_device_stats *out);
/* resetPeakStats: the tag's peaks on `device` start again from what is
 * live now. resetAccumulatedStats: the totals and counts above start again
 * from 0 (the tag's own statistics keep theirs). */
mr_status mrctx_torch_route_reset_peak(int index, int device);
mr_status mrctx_torch_route_reset_accumulated(int index, int device);
/* Route 0's, for the allocator helper: 0, or -1 with the message in `why`. */
int mrctx_torch_read_device_stats(int device, mrctx_torch_device_stats *out, char *why, size_t cap);
int mrctx_torch_reset_stats(int device, int accumulated, char *why, size_t cap);

/* Free through route `index`, as PyTorch's free function does: a failure
 * is counted (mrctx_torch_failed_frees), never reported. */
void mrctx_torch_route_free(int index, void *ptr, ssize_t size, int device, void *stream);
/* A private pool's block back to route `index`'s tag once the device's
 * work has finished (_torch_pools.cpp), on the per-thread default stream. */
void mrctx_torch_route_free_block(int index, void *ptr, size_t size, int device);

/* Route `index`'s tag on `device`, borrowed (the route holds it for the
 * process's life), with the route's device count in *devices; NULL with
 * *status (MR_ERR_STATE unbound, MR_ERR_NO_DEVICE) naming `what`. */
mr_resource *mrctx_torch_route_resource(int index, int device, const char *what, int *devices,
                                        mr_status *status);

/* The bound route's "library/tag". */
const char *mrctx_torch_route_name(int index);

/* Allocate `size` bytes on `device` through route `index`; NULL on failure
 * (and for size 0), with *status and mr_last_error() saying why. No lock. */
void *mrctx_torch_route_alloc(int index, ssize_t size, int device, void *stream, mr_status *status);

/* ---- The control allocator (measurement only) ----------------------------
 *
 * A trivial exact-size free list that PyTorch loads through
 * CUDAPluggableAllocator exactly as route 0 is loaded
 * (mrctx_torch_control_alloc / mrctx_torch_control_free), so a workload can
 * measure what that path costs by itself. Blocks are kept per (device,
 * size, stream) under one mutex and reused only at that exact size on the
 * stream they were freed on; misses come from mrctx's `device` resource
 * (the device's current driver pool); memory is never given back. A free
 * is trusted as PyTorch's are (there is no map of live blocks). Not an
 * allocator to train with: a workload whose sizes drift holds every size
 * it ever used. */

/* What the control has done (counters) and holds now. */
typedef struct mrctx_torch_control_stats {
  unsigned long long hits;          /* served from the free list */
  unsigned long long misses;        /* served by the driver pool */
  unsigned long long failed;        /* allocations that failed */
  unsigned long long frees;         /* blocks taken back into the list */
  unsigned long long cached_blocks; /* in the lists now */
  unsigned long long cached_bytes;
  unsigned long long live_bytes; /* handed out and not freed */
  unsigned long long peak_live_bytes;
  unsigned long long reserved_bytes; /* taken from the driver, ever (never returned) */
  unsigned long long lists;          /* distinct (device, size, stream) lists */
} mrctx_torch_control_stats;

/* The control's allocation; NULL on failure (and for size 0) with *status
 * and mr_last_error() saying why. mrctx_torch_control_alloc (C++) throws
 * instead, for PyTorch. */
void *mrctx_torch_control_route_alloc(ssize_t size, int device, void *stream, mr_status *status);
void mrctx_torch_control_free(void *ptr, ssize_t size, int device, void *stream);
void mrctx_torch_control_free_timed(void *ptr, ssize_t size, int device, void *stream);
void mrctx_torch_control_read(mrctx_torch_control_stats *out);

/* ---- Timing (MRCTX_TORCH_TIMING=1) -----------------------------------------
 *
 * The *_timed pairs (mrctx_torch_alloc_timed / mrctx_torch_free_timed for
 * route 0, mrctx_torch_control_alloc_timed / _free_timed for the control)
 * do what the plain pairs do and also count, in relaxed atomics, the calls,
 * the nanoseconds spent inside them (CLOCK_MONOTONIC), the longest call and
 * the calls longer than MRCTX_TORCH_SLOW_NS. Python hands PyTorch the timed
 * pair only when MRCTX_TORCH_TIMING=1, so the plain pairs pay nothing. */

#define MRCTX_TORCH_SLOW_NS 10000ULL /* 10 us: a driver call or a wait, not a list */

enum { MRCTX_TORCH_TIME_ALLOC = 0, MRCTX_TORCH_TIME_FREE = 1 };

typedef struct mrctx_torch_timing_op {
  unsigned long long calls;
  unsigned long long ns;         /* total inside the calls */
  unsigned long long max_ns;     /* the longest single call */
  unsigned long long slow_calls; /* calls longer than MRCTX_TORCH_SLOW_NS */
} mrctx_torch_timing_op;

typedef struct mrctx_torch_timing {
  mrctx_torch_timing_op alloc, free;
} mrctx_torch_timing;

/* Now, in ns, for mrctx_torch_time_record. */
unsigned long long mrctx_torch_clock_ns(void);
/* Count one call of `op` that started at `start_ns`. */
void mrctx_torch_time_record(int op, unsigned long long start_ns);
void mrctx_torch_timing_read(mrctx_torch_timing *out);
/* Zero the timing counters (a call in flight may land on either side). */
void mrctx_torch_timing_reset(void);
void mrctx_torch_free_timed(void *ptr, ssize_t size, int device, void *stream);

MR_EXTERN_C_END

#endif
