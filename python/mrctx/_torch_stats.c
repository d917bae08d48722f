/*
 * _torch_stats.c: PyTorch's device statistics (getDeviceStats,
 * resetPeakStats, resetAccumulatedStats) from a route's tag. The allocator
 * helper answers PyTorch's calls with them, so torch.cuda.memory_stats(),
 * memory_allocated() and the rest work under use() without patching, and
 * mrctx.torch's drop-ins read the same numbers: one mapping of the tag's
 * statistics onto PyTorch's, not two (_torch_alloc.h says what each is).
 *
 * Threads: reading takes the tag's statistics and the pools' lock, never
 * the allocation path's; the bases of resetAccumulatedStats are under one
 * mutex. Part of the PyTorch shim, with _torch_pools.cpp (the free blocks
 * of CUDA graphs' private pools count as reserved, not allocated).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <mrctx/mrctx.h>

#include "_torch_alloc.h"
#include "_torch_pools.h"

#define EXPORT __attribute__((visibility("default")))

/* resetAccumulatedStats: the totals at each route's last reset, per
 * device, made at the first reset (NULL: never reset). */
static pthread_mutex_t bases_lock = PTHREAD_MUTEX_INITIALIZER;
static mrctx_torch_device_stats *bases[MRCTX_TORCH_ROUTES];

static mrctx_torch_stat stat_of(long long current, long long peak, long long allocated,
                                long long freed) {
  mrctx_torch_stat st = {current, peak, allocated, freed};
  return st;
}

static long long larger(long long a, long long b) { return a > b ? a : b; }

/* The numbers as they stand, before a reset's bases are taken off. */
static mr_status stats_now(int index, int device, const char *what, int *devices,
                           mrctx_torch_device_stats *out) {
  mr_status st;
  mr_resource *mr = mrctx_torch_route_resource(index, device, what, devices, &st);
  if (mr == NULL) return st;
  mr_stats s;
  mr_stats_init(&s);
  st = mr_stats_resource_get(mr, &s);
  if (st != MR_OK) return st;
  long long pooled = 0;
  if (index == 0) { /* CUDA graphs' private pools are route 0's */
    mrctx_torch_pools_info graphs;
    mrctx_torch_pools_read(device, &graphs);
    pooled = (long long)(graphs.held_bytes - graphs.live_bytes);
  }
  /* The first cache down the tag's chain (a context wraps every tag in
   * statistics and retry); without one the tag reserves what it hands
   * out. */
  mr_cache_stats cache;
  memset(&cache, 0, sizeof cache);
  cache.size = sizeof cache;
  bool cached = false;
  for (const mr_resource *link = mr; link != NULL && !cached; link = mr_resource_upstream(link))
    cached = mr_cache_resource_get_stats(link, &cache) == MR_OK;
  mr_clear_error(); /* the links that were not caches said so */
  long long bytes = (long long)s.current_bytes, total = (long long)s.total_bytes;
  long long count = (long long)s.current_count, total_count = (long long)s.total_count;
  long long peak_bytes = (long long)s.peak_bytes, peak_count = (long long)s.peak_count;
  out->allocated_bytes = stat_of(larger(bytes - pooled, 0), peak_bytes, total, total - bytes);
  out->allocation = stat_of(count, peak_count, total_count, total_count - count);
  long long reserved = bytes + (long long)cache.cached_bytes;
  out->reserved_bytes = stat_of(reserved, larger(peak_bytes, reserved), cached ? 0 : total, 0);
  long long segments = count + (long long)cache.cached_blocks;
  out->segment = stat_of(segments, larger(peak_count, segments), 0, 0);
  out->num_ooms = (long long)s.failed_count + (long long)mrctx_torch_route_refused(index, device) -
                  (long long)mrctx_torch_route_lent(index, device);
  out->num_device_alloc = cached ? (long long)cache.misses : total_count;
  out->num_device_free = cached ? (long long)cache.trims : total_count - count;
  return MR_OK;
}

EXPORT mr_status mrctx_torch_route_device_stats(int index, int device,
                                                mrctx_torch_device_stats *out) {
  if (out == NULL)
    return mr_error(MR_ERR_INVALID_ARGUMENT, "getDeviceStats through mrctx: no answer to write");
  memset(out, 0, sizeof *out);
  mr_status st = stats_now(index, device, "getDeviceStats", NULL, out);
  if (st != MR_OK) return st;
  pthread_mutex_lock(&bases_lock);
  if (bases[index] != NULL) {
    const mrctx_torch_device_stats *b = &bases[index][device];
    out->allocated_bytes.allocated -= b->allocated_bytes.allocated;
    out->allocated_bytes.freed -= b->allocated_bytes.freed;
    out->allocation.allocated -= b->allocation.allocated;
    out->allocation.freed -= b->allocation.freed;
    out->reserved_bytes.allocated -= b->reserved_bytes.allocated;
    out->num_ooms -= b->num_ooms;
    out->num_device_alloc -= b->num_device_alloc;
    out->num_device_free -= b->num_device_free;
  }
  pthread_mutex_unlock(&bases_lock);
  return MR_OK;
}

EXPORT mr_status mrctx_torch_route_reset_peak(int index, int device) {
  mr_status st;
  mr_resource *mr = mrctx_torch_route_resource(index, device, "resetPeakStats", NULL, &st);
  return mr == NULL ? st : mr_stats_resource_reset_peak(mr);
}

EXPORT mr_status mrctx_torch_route_reset_accumulated(int index, int device) {
  mrctx_torch_device_stats now;
  memset(&now, 0, sizeof now);
  int devices = 0;
  mr_status st = stats_now(index, device, "resetAccumulatedStats", &devices, &now);
  if (st != MR_OK) return st;
  pthread_mutex_lock(&bases_lock);
  if (bases[index] == NULL) bases[index] = calloc((size_t)devices, sizeof *bases[index]);
  bool kept = bases[index] != NULL;
  if (kept) bases[index][device] = now;
  pthread_mutex_unlock(&bases_lock);
  if (!kept)
    return mr_error(MR_ERR_OUT_OF_MEMORY,
                    "resetAccumulatedStats through mrctx: out of host memory");
  return MR_OK;
}

/* For the allocator helper: 0, or -1 with the message in `why`. */
EXPORT int mrctx_torch_read_device_stats(int device, mrctx_torch_device_stats *out, char *why,
                                         size_t cap) {
  return mrctx_torch_answer(mrctx_torch_route_device_stats(0, device, out), why, cap);
}

EXPORT int mrctx_torch_reset_stats(int device, int accumulated, char *why, size_t cap) {
  return mrctx_torch_answer(accumulated ? mrctx_torch_route_reset_accumulated(0, device)
                                        : mrctx_torch_route_reset_peak(0, device),
                            why, cap);
}
