/*
 * bench_harness.c: what every workload of `mrctx bench` runs on. The
 * allocators and the context of one run of the suite (made fresh for each
 * run), the trace workload's log (read once), a run of the suite through
 * the workload table, and a measurement: the allocator starts from trimmed
 * pools, its peak reserved bytes are read around the workload's own
 * timing, and workloads measured in rounds keep the median round.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"
#include "replay_streams.h"
#include "core/variables.h"

size_t bench_log_uniform(uint64_t *rng, size_t lo, size_t hi) {
  double u = (double)(bench_next_random(rng) >> 11) * 0x1.0p-53; /* [0, 1) */
  return (size_t)((double)lo * pow((double)hi / (double)lo, u));
}


/* Keep each benchmark thread on its own CPU (CPU 0 is left to the driver's
 * own threads where there are enough): migrations otherwise show up as
 * noise larger than the differences being measured. */
void bench_pin_to_cpu(int index) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int)((index + 1) % cpus), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

void bench_progress(const bench_options *o, const char *format, ...) {
  if (o->quiet) return;
  va_list args;
  va_start(args, format);
  fputs("\r\033[K", stderr);
  vfprintf(stderr, format, args);
  va_end(args);
  fflush(stderr);
}

/* ---- cache hit rates ----------------------------------------------------------- */

/* The cache in an allocator's chain, if any. */
void bench_cache_counts(const bench_allocator *a, uint64_t *hits, uint64_t *misses) {
  mr_cache_stats st = {.size = sizeof st};
  mr_resource *cache = mrctx_find_cache(a->mr);
  *hits = *misses = 0;
  if (cache != NULL && mr_cache_resource_get_stats(cache, &st) == MR_OK) {
    *hits = st.hits;
    *misses = st.misses;
  }
}

/* ---- peak reserved ------------------------------------------------------------ */

/* The bench's pools keep all freed memory (release threshold max, as mrctx
 * sets a default pool), so what one measurement left reserved would count
 * against the next. Each measurement therefore starts from pools trimmed
 * to what is in use (after a device synchronization, so every free has
 * completed), and the peak is the watermark's rise above that. */
static void trim_pools(const bench_cuda *cu) {
  cu->cuCtxSynchronize(NULL);
  cu->cuMemPoolTrimTo(cu->device_pool, 0);
  if (cu->device_default_pool != cu->device_pool) cu->cuMemPoolTrimTo(cu->device_default_pool, 0);
  cu->cuMemPoolTrimTo(cu->pinned_pool, 0);
}

/* What a pool held when a measurement started (its watermark reset there). */
typedef struct memory_mark {
  cuuint64_t base;
  bool known;
  bool books; /* the cache's books' peak was reset */
} memory_mark;

/* The allocator under test starts holding nothing (a fixed(...) keeps a
 * slab, a cache its blocks, until trimmed): all it holds during the
 * measurement is then above the mark. */
static memory_mark memory_begin(const bench_cuda *cu, const bench_allocator *a) {
  memory_mark m = {0, false, false};
  cu->cuCtxSynchronize(NULL); /* every event its blocks wait on is complete */
  if (a->trim != NULL) a->trim(a->state);
  trim_pools(cu);
  m.books = a->books != NULL && mr_stats_resource_reset_peak(a->books) == MR_OK;
  if (a->pool != NULL) {
    cuuint64_t zero = 0; /* the only value the driver takes: high = current */
    m.known = cu->cuMemPoolGetAttribute(a->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &m.base) ==
                  CUDA_SUCCESS &&
              cu->cuMemPoolSetAttribute(a->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero) ==
                  CUDA_SUCCESS;
  } else if (a->pages != NULL) {
    /* The trim above gave its idle pages back: the peak starts from the
     * pages live blocks hold. */
    mr_expandable_info info = {.size = sizeof info};
    m.known = mr_expandable_resource_reset_peak(a->pages) == MR_OK &&
              mr_expandable_resource_get_info(a->pages, &info) == MR_OK;
    m.base = info.mapped_bytes;
  } else if (a->reset_peak != NULL) {
    a->reset_peak(a->state);
  }
  return m;
}

/* The most the allocator held during the measurement, or NaN. */
static double memory_end(const bench_cuda *cu, const bench_allocator *a, const memory_mark *m) {
  if (a->pool != NULL) {
    cuuint64_t high = 0;
    if (!m->known ||
        cu->cuMemPoolGetAttribute(a->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &high) !=
            CUDA_SUCCESS ||
        high < m->base)
      return NAN;
    return (double)(high - m->base);
  }
  if (a->pages != NULL) {
    mr_expandable_info info = {.size = sizeof info};
    if (!m->known || mr_expandable_resource_get_info(a->pages, &info) != MR_OK ||
        info.mapped_high < m->base)
      return NAN;
    return (double)(info.mapped_high - m->base);
  }
  return a->peak_reserved != NULL ? a->peak_reserved(a->state) : NAN;
}


/* ---- rounds ------------------------------------------------------------------ */

/* Keep, of ROUNDS results, the one with the median time per operation: the
 * allocators are measured in turn, round after round, so a slow moment of
 * the machine does not land on one allocator only. */
static bench_result median_of(bench_result r[ROUNDS]) {
  for (int i = 1; i < ROUNDS; i++)
    for (int k = i; k > 0 && r[k].ns_per_op < r[k - 1].ns_per_op; k--) {
      bench_result t = r[k];
      r[k] = r[k - 1];
      r[k - 1] = t;
    }
  return r[ROUNDS / 2];
}

/* ---- running a workload ------------------------------------------------------ */

void bench_add(bench_run *b, const bench_workload *w, bench_result r) {
  r.run = b->run;
  r.baseline = w->baseline;
  bench_results_add(&b->results, r);
}

/* One measurement, with the peak reserved bytes around it. */
bench_result bench_measure(const bench_run *b, const bench_workload *w, const workload_case *c,
                           int threads, bench_allocator *a) {
  memory_mark mark = memory_begin(&b->cu, a);
  bench_result r = w->measure(b, w, c, threads, a);
  r.peak_reserved = memory_end(&b->cu, a, &mark);
  r.peak_books = NAN;
  mr_stats books;
  mr_stats_init(&books);
  if (mark.books && mr_stats_resource_get(a->books, &books) == MR_OK)
    r.peak_books = (double)books.peak_bytes;
  r.reference = a->reference;
  return r;
}

/* Time every allocator of `w` on every case (and thread count), in turn,
 * round after round where the workload takes rounds, and add the results:
 * per case, in the order of the workload's allocators. */
void bench_run_each(bench_run *b, const bench_workload *w) {
  const bench_options *o = b->o;
  /* 1, 2, 4, ... below the largest count, then the largest. */
  int counts[16], ncounts = 0;
  if (w->scale_threads)
    for (int t = 1; t < o->max_threads && ncounts < 15; t *= 2) counts[ncounts++] = t;
  counts[ncounts++] = w->scale_threads ? o->max_threads : 1;
  size_t ncases = 0;
  while (w->cases[ncases].sizes != NULL) ncases++;
  bench_allocator *list[MAX_WORKLOAD_ALLOCATORS];
  size_t n = 0;
  for (size_t i = 0; i < MAX_WORKLOAD_ALLOCATORS && w->allocators[i] != ALLOC_NONE; i++) {
    bench_allocator *a = &b->allocators[w->allocators[i]];
    if (a->alloc != NULL) list[n++] = a; /* a peer that could not be opened is left out */
  }
  int rounds = w->rounds ? ROUNDS : 1;
  for (size_t ci = 0; ci < ncases; ci++) {
    const workload_case *c = &w->cases[ci];
    for (int ti = 0; ti < ncounts; ti++) {
      int threads = counts[ti];
      /* Progress names the case where there is a choice: "pairs 8B-4KiB",
       * "threads 4". */
      char what[64];
      if (w->scale_threads)
        snprintf(what, sizeof what, "%s %d", w->name, threads);
      else if (ncases > 1)
        snprintf(what, sizeof what, "%s %s", w->name, c->sizes);
      else
        snprintf(what, sizeof what, "%s", w->name);
      bench_result r[MAX_WORKLOAD_ALLOCATORS][ROUNDS];
      for (int round = 0; round < rounds; round++) {
        for (size_t i = 0; i < n; i++) {
          if (w->rounds)
            bench_progress(o, "%s%s, round %d: %s", b->prefix, what, round + 1, list[i]->name);
          else
            bench_progress(o, "%s%s: %s", b->prefix, what, list[i]->name);
          r[i][round] = bench_measure(b, w, c, threads, list[i]);
        }
      }
      for (size_t i = 0; i < n; i++) bench_add(b, w, w->rounds ? median_of(r[i]) : r[i][0]);
    }
  }
}

/* Whether `list` (comma-separated) names `workload` exactly. */
static bool list_names(const char *list, const char *workload) {
  size_t n = strlen(workload);
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    if (len == n && strncmp(p, workload, n) == 0) return true;
    p += len;
    if (*p == ',') p++;
  }
  return false;
}

/* --only selects the workloads its list names (checked by check_only). */
bool bench_selected(const bench_options *o, const char *workload) {
  return o->only == NULL || list_names(o->only, workload);
}

/* The context the benchmark allocates through, like any library's. Its tags
 * can be overridden with MRCTX_BENCH_MEMORY to measure other chains. */
static const mr_tag bench_tags[TAG_COUNT] = {
    [TAG_DEVICE] = {"device", "device"},
    [TAG_DEVICE_DEFAULT] = {"device_default", "device_default"},
    /* The stats(...) below the cache counts only what the cache takes
     * from upstream (its misses): its peak is the cache's own books. */
    [TAG_CACHE] = {"cached", "cache(stats(device, peak=exact))"},
    [TAG_ARENA] = {"temp", "arena(device, chunk=64MiB)"},
    [TAG_STAGING_FIXED] = {"staging", "fixed(pinned, block=4MiB, count=32)"},
    [TAG_STAGING_CACHE] = {"staging_cache", "cache(pinned)"},
    [TAG_SLABS] = {"slabs", "cache(bin(device, min=256B, max=1MiB, count=16))"},
    /* The cached tag with exact peaks: what they cost beside the default. */
    [TAG_CACHE_EXACT] = {"cached_exact", "stats(cache(device), peak=exact)"},
};


/* Make every allocator for one run. False, with the reason printed, if one
 * of mrctx's own cannot be made; a peer may be missing (it is skipped, and
 * the first run says why). */
static bool open_allocators(bench_run *b) {
  bench_allocator *al = b->allocators;
  mr_context *ctx = b->ctx;
  const bench_cuda *cu = &b->cu;
  /* "Kept" context resources are what a site that allocates several times
   * holds after one ctx_get_mr: the tag's resource with its per-tag
   * statistics. */
  al[ALLOC_RAW] =
      bench_pool_allocator("cuMemAllocFromPoolAsync (raw pool)", "raw", cu, cu->device_pool);
  al[ALLOC_DEVICE] =
      bench_tag_allocator("mrctx ctx_get_mr -> device", "device", cu, ctx, TAG_DEVICE);
  al[ALLOC_DEVICE_DEFAULT] = bench_tag_allocator("mrctx ctx_get_mr -> device_default",
                                                 "device_default", cu, ctx, TAG_DEVICE_DEFAULT);
  al[ALLOC_CACHE] = bench_resource_allocator("mrctx cache(device), per-tag stats", "cache", cu,
                                             mr_context_get_mr_on(ctx, TAG_CACHE, 0));
  al[ALLOC_CACHE_LOOKUP] =
      bench_tag_allocator("mrctx ctx_get_mr -> cache(device)", "cache_lookup", cu, ctx, TAG_CACHE);
  /* The same chain as the context's cached tag (retry(cache(device)), the
   * retry being the default one), built directly: without per-tag
   * statistics, so the difference is what the statistics cost. */
  if (mr_device_resource_create(0, &b->device_mr) != MR_OK ||
      mr_stats_resource_create_peak(b->device_mr, MR_STATS_PEAK_EXACT, &b->books_mr) != MR_OK ||
      mr_cache_resource_create(b->books_mr, 0, &b->cache_mr) != MR_OK ||
      mr_retry_resource_create(b->cache_mr, 0, NULL, NULL, &b->bare_cache) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return false;
  }
  al[ALLOC_CACHE_BARE] =
      bench_resource_allocator("mrctx cache(device), no stats", "cache_bare", cu, b->bare_cache);
  /* The same cache over pageable host memory makes no driver call at all:
   * beside the device rows, it separates the cache's own cost, and its own
   * thread scaling, from the driver's. */
  if (mr_host_resource_create(&b->host_mr) != MR_OK ||
      mr_cache_resource_create(b->host_mr, 0, &b->host_cache) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return false;
  }
  al[ALLOC_HOST_CACHE] = bench_resource_allocator("mrctx cache(host), no driver calls",
                                                  "cache_host", cu, b->host_cache);
  al[ALLOC_HOST_CACHE].reference = true;
  if (mr_track_resource_create(b->host_cache, &b->track) != MR_OK ||
      mr_track_resource_create_stacks(b->host_cache, 8, &b->track_stacks) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return false;
  }
  al[ALLOC_TRACK] = bench_resource_allocator("mrctx track(cache(host))", "track", cu, b->track);
  al[ALLOC_TRACK_STACKS] = bench_resource_allocator("mrctx track(cache(host), stacks=8)",
                                                    "track_stacks", cu, b->track_stacks);
  al[ALLOC_CACHE_EXACT] =
      bench_resource_allocator("mrctx cache(device), exact peaks", "cache_exact", cu,
                               mr_context_get_mr_on(ctx, TAG_CACHE_EXACT, 0));
  al[ALLOC_CACHE_SLABS] =
      bench_resource_allocator("mrctx cache(bin(device, ...)), slabs", "cache_slabs", cu,
                               mr_context_get_mr_on(ctx, TAG_SLABS, 0));
  al[ALLOC_ARENA] = bench_resource_allocator("mrctx arena(device, chunk=64MiB)", "arena", cu,
                                             mr_context_get_mr_on(ctx, TAG_ARENA, 0));
  al[ALLOC_RAW_PINNED] = bench_pool_allocator("cuMemAllocFromPoolAsync (pinned pool)", "raw_pinned",
                                              cu, cu->pinned_pool);
  al[ALLOC_HOST_ALLOC] = bench_host_alloc_allocator(cu);
  al[ALLOC_DRIVER_CALLS] = bench_stream_query_allocator(cu);
  al[ALLOC_FIXED] = bench_resource_allocator("mrctx fixed(pinned, block=4MiB, count=32)", "fixed",
                                             cu, mr_context_get_mr_on(ctx, TAG_STAGING_FIXED, 0));
  al[ALLOC_PINNED_CACHE] = bench_resource_allocator(
      "mrctx cache(pinned)", "cache_pinned", cu, mr_context_get_mr_on(ctx, TAG_STAGING_CACHE, 0));
  bool first = b->run == 0;
#if MRCTX_BENCH_CUB
  /* The peers are skipped (with a line saying so) where they cannot be
   * made: their rows are then absent, never estimated. */
  if ((!bench_cub_open(&al[ALLOC_CUB], true) || !bench_cub_open(&al[ALLOC_CUB_DEFAULT], false)) &&
      first)
    printf("mrctx bench: cub peer not available (cudaSetDevice failed)\n");
#else
  if (first) printf("mrctx bench: cub peer not available (built without nvcc)\n");
#endif
#if MRCTX_BENCH_RMM
  char rmm_why[256];
  if (!bench_rmm_open(&al[ALLOC_RMM_POOL], BENCH_RMM_POOL, rmm_why, sizeof rmm_why) && first)
    printf("mrctx bench: rmm pool peer not available (%s)\n", rmm_why);
  if (!bench_rmm_open(&al[ALLOC_RMM_ARENA], BENCH_RMM_ARENA, rmm_why, sizeof rmm_why) && first)
    printf("mrctx bench: rmm arena peer not available (%s)\n", rmm_why);
#else
  if (first) printf("mrctx bench: rmm peer not available (built without -Drmm)\n");
#endif
#if MRCTX_BENCH_TORCH
  char why[256];
  if (!bench_torch_open(&al[ALLOC_TORCH], why, sizeof why) && first)
    printf("mrctx bench: PyTorch peer not available (%s)\n", why);
#else
  if (first) printf("mrctx bench: PyTorch peer not available (built without libtorch)\n");
#endif
  return true;
}

static void close_allocators(bench_run *b) {
  for (size_t i = 0; i < ALLOC_COUNT; i++) bench_allocator_close(&b->allocators[i]);
  memset(b->allocators, 0, sizeof b->allocators);
  mr_resource_release(b->bare_cache);
  mr_resource_release(b->cache_mr);
  mr_resource_release(b->books_mr);
  mr_resource_release(b->device_mr);
  mr_resource_release(b->track_stacks);
  mr_resource_release(b->track);
  b->track = b->track_stacks = NULL;
  mr_resource_release(b->host_cache);
  mr_resource_release(b->host_mr);
  b->bare_cache = b->cache_mr = b->books_mr = b->device_mr = b->host_cache = b->host_mr = NULL;
}

/* The benchmark's context for one run (fresh in each, as its allocators). */
bool bench_create_context(bench_run *b) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mrctx-bench",
                          .tags = bench_tags,
                          .tag_count = TAG_COUNT,
                          .env_var = mri_variable_info(MRI_VAR_BENCH_MEMORY)->name};
  if (mr_context_create(&desc, &b->ctx) != MR_OK) {
    printf("mrctx bench: cannot create the benchmark's context:\n%s\n", mr_last_error());
    return false;
  }
  /* The rows keep their names (the default chains'): say what they measure. */
  const char *override = getenv(desc.env_var);
  if (b->run == 0 && override != NULL && override[0] != '\0') {
    printf("mrctx bench: %s=%s: the tags are\n", desc.env_var, override);
    for (int i = 0; i < TAG_COUNT; i++) {
      mr_resource *mr = mr_context_get_mr_on(b->ctx, i, 0);
      printf("  %-15s %s\n", bench_tags[i].name, mr != NULL ? mr_resource_describe(mr) : "-");
    }
  }
  return true;
}

/* One run of the suite: fresh context and allocators, every selected
 * workload, everything given back. False if mrctx's own could not be made. */
bool bench_run_suite(bench_run *b) {
  if (b->ctx == NULL && !bench_create_context(b)) return false;
  bool ok = open_allocators(b);
  bench_pin_to_cpu(0); /* the single-threaded workloads run on this thread */
  if (ok)
    for (size_t i = 0; i < bench_workload_count; i++)
      if (bench_selected(b->o, bench_workloads[i].name))
        bench_workloads[i].run(b, &bench_workloads[i]);
  close_allocators(b);
  mr_context_destroy(b->ctx);
  b->ctx = NULL;
  trim_pools(&b->cu);
  return ok;
}

#ifndef MRCTX_BENCH_TRACE_DEFAULT
#define MRCTX_BENCH_TRACE_DEFAULT "../shared/data/gpt-training-trace.csv.gz"
#endif

/* The trace workload's log, read once for every run: --trace FILE, which
 * must read; else $MRCTX_BENCH_TRACE or the GPT training trace beside the
 * source tree, where found: where not, the workload is skipped with a line
 * saying why. False if --trace's log could not be used (the reason
 * printed). */
bool bench_open_trace(bench_run *b, replay_log *log, mr_stream **streams) {
  const bench_options *o = b->o;
  const char *path = o->trace;
  if (path == NULL) path = mri_variable_get(MRI_VAR_BENCH_TRACE);
  if (path == NULL || path[0] == '\0') path = MRCTX_BENCH_TRACE_DEFAULT;
  char why[1024];
  bool ok = replay_log_read(path, false, log, why, sizeof why);
  if (ok &&
      (*streams = calloc(log->stream_count ? log->stream_count : 1, sizeof **streams)) == NULL) {
    snprintf(why, sizeof why, "out of host memory");
    replay_log_free(log);
    ok = false;
  }
  if (ok && !replay_streams_create(0, log->streams, log->stream_count, *streams, why, sizeof why)) {
    free(*streams);
    *streams = NULL;
    replay_log_free(log);
    ok = false;
  }
  if (!ok) {
    if (o->trace != NULL) {
      printf("mrctx bench: --trace: %s\n", why);
      return false;
    }
    printf("mrctx bench: trace workload skipped: %s (name a log with --trace FILE or "
           "MRCTX_BENCH_TRACE)\n",
           why);
    return true;
  }
  char events[32];
  size_t n = (size_t)snprintf(events, sizeof events, "%zu", log->event_count), out = 0;
  for (size_t i = 0; i < n && out + 2 < sizeof b->trace_label; i++) {
    if (i > 0 && (n - i) % 3 == 0) b->trace_label[out++] = ',';
    b->trace_label[out++] = events[i];
  }
  snprintf(b->trace_label + out, sizeof b->trace_label - out, " events");
  b->trace = log;
  b->trace_streams = *streams;
  b->results.trace = path;
  printf("mrctx bench: trace: %s, %s on %zu thread%s and %zu stream%s\n", path, b->trace_label,
         log->thread_count, log->thread_count == 1 ? "" : "s", log->stream_count,
         log->stream_count == 1 ? "" : "s");
  return true;
}

void bench_close_trace(bench_run *b, replay_log *log, mr_stream *streams) {
  if (b->trace == NULL) return;
  replay_streams_destroy(log->streams, log->stream_count, streams);
  free(streams);
  replay_log_free(log);
  b->trace = NULL;
  b->trace_streams = NULL;
}
