/*
 * cmd_bench.c: `mrctx bench`, mrctx against the allocators users pick today,
 * in one run on one device:
 *   lookup   ctx_get_mr and mr_context_get_mr_on, against cuCtxGetDevice;
 *            and the driver calls every reuse adaptor makes per call
 *            (cuStreamGetId, cuStreamIsCapturing);
 *   pairs    alloc+free pairs, 64 live blocks, sizes 256 B-1 MiB and
 *            8 B-4 KiB, one thread;
 *   threads  the same at 1, 2, 4, 8 and 16 threads, one stream each;
 *   random   rmm's random_allocations pattern;
 *   pinned   pinned host staging buffers;
 *   arena    temporaries: a few allocations per "kernel", freed together;
 *   churn    a stream per request: created, used, destroyed.
 * Baselines: the raw driver calls on the same pools, cuMemHostAlloc, and
 * cub's CachingDeviceAllocator (where built with nvcc). Output: a table,
 * the targets with pass/miss, --json FILE and --svg FILE.
 */
#include <getopt.h>
#include <stdarg.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"

#define LIVE_BLOCKS 64
#define BATCH 64

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static inline uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  *state = x;
  return x;
}

typedef struct bench_options {
  double seconds;  /* per measurement */
  int max_threads;
  bool quiet;      /* no progress on stderr */
  const char *only;
} bench_options;

static void progress(const bench_options *o, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void progress(const bench_options *o, const char *format, ...) {
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
static mr_resource *cache_in(const bench_allocator *a) {
  for (mr_resource *r = a->mr; r != NULL; r = mr_resource_upstream(r))
    if (strcmp(mr_resource_name(r), "cache") == 0) return r;
  return NULL;
}

static void cache_counts(const bench_allocator *a, uint64_t *hits, uint64_t *misses) {
  mr_cache_stats st = {.size = sizeof st};
  mr_resource *cache = cache_in(a);
  *hits = *misses = 0;
  if (cache != NULL && mr_cache_resource_get_stats(cache, &st) == MR_OK) {
    *hits = st.hits;
    *misses = st.misses;
  }
}

/* ---- pairs: alloc+free with a fixed number of live blocks ----------------- */

typedef struct pair_job {
  int index; /* the thread's number, for its CPU */
  const bench_cuda *cu;
  bench_allocator *allocator;
  size_t lo, hi;
  int live;
  double seconds;
  pthread_barrier_t *ready;
  uint64_t seed;
  long pairs, failures;
  double elapsed;
} pair_job;

/* Keep each benchmark thread on its own CPU (CPU 0 is left to the driver's
 * own threads where there are enough): migrations otherwise show up as
 * noise larger than the differences being measured. */
static void pin_to_cpu(int index) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  if (cpus < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((int)((index + 1) % cpus), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *pair_thread(void *arg) {
  pair_job *j = arg;
  bench_allocator *a = j->allocator;
  pin_to_cpu(j->index);
  j->cu->cuCtxSetCurrent(j->cu->context);
  CUstream stream = NULL;
  j->cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void *ptr[LIVE_BLOCKS] = {0};
  size_t size[LIVE_BLOCKS] = {0};
  uint64_t rng = j->seed;
  size_t span = j->hi - j->lo + 1;
  unsigned mask = (unsigned)j->live - 1; /* live is a power of two */
  /* Fill, then warm up: the caches and pools reach their steady state. */
  for (int k = 0; k < j->live; k++) {
    size[k] = j->lo + next_random(&rng) % span;
    if (a->alloc(a->state, size[k], stream, &ptr[k])) ptr[k] = NULL;
  }
  /* Warm up for a fifth of the timed run: caches reach their steady state
   * (every size class stocked) before the clock starts. */
  double warm_until = now_ns() + j->seconds * 0.2e9;
  do {
    for (int i = 0; i < BATCH; i++) {
      unsigned k = (unsigned)next_random(&rng) & mask;
      if (ptr[k]) a->free(a->state, ptr[k], size[k], stream);
      size[k] = j->lo + next_random(&rng) % span;
      if (a->alloc(a->state, size[k], stream, &ptr[k])) ptr[k] = NULL;
    }
  } while (now_ns() < warm_until);
  pthread_barrier_wait(j->ready);
  double start = now_ns(), deadline = start + j->seconds * 1e9, end;
  long pairs = 0, failures = 0;
  do {
    for (int i = 0; i < BATCH; i++) {
      unsigned k = (unsigned)next_random(&rng) & mask;
      if (ptr[k]) a->free(a->state, ptr[k], size[k], stream);
      size[k] = j->lo + next_random(&rng) % span;
      if (a->alloc(a->state, size[k], stream, &ptr[k])) {
        ptr[k] = NULL;
        failures++;
      }
    }
    pairs += BATCH;
    end = now_ns();
  } while (end < deadline);
  j->elapsed = end - start;
  j->pairs = pairs;
  j->failures = failures;
  for (int k = 0; k < j->live; k++)
    if (ptr[k]) a->free(a->state, ptr[k], size[k], stream);
  j->cu->cuStreamSynchronize(stream);
  j->cu->cuStreamDestroy(stream);
  return NULL;
}

static bench_result run_pairs(const bench_cuda *cu, bench_allocator *a, const char *workload,
                              const char *sizes, size_t lo, size_t hi, int threads, int live,
                              double seconds) {
  uint64_t hits0, misses0, hits1, misses1;
  cache_counts(a, &hits0, &misses0);
  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, (unsigned)threads);
  pair_job *jobs = calloc((size_t)threads, sizeof *jobs);
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  for (int t = 0; t < threads; t++) {
    jobs[t] = (pair_job){.index = t, .cu = cu, .allocator = a, .lo = lo, .hi = hi, .live = live,
                         .seconds = seconds, .ready = &ready,
                         .seed = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1)};
    pthread_create(&tids[t], NULL, pair_thread, &jobs[t]);
  }
  long pairs = 0, failures = 0;
  double longest = 0, per_thread_ns = 0;
  for (int t = 0; t < threads; t++) {
    pthread_join(tids[t], NULL);
    pairs += jobs[t].pairs;
    failures += jobs[t].failures;
    if (jobs[t].elapsed > longest) longest = jobs[t].elapsed;
    per_thread_ns += jobs[t].elapsed / (double)jobs[t].pairs;
  }
  pthread_barrier_destroy(&ready);
  free(jobs);
  free(tids);
  cache_counts(a, &hits1, &misses1);
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  if (a->trim) a->trim(a->state);
  return (bench_result){workload, sizes, a->name, a->label, threads, per_thread_ns / threads,
                        (double)pairs / longest * 1e3, pairs, failures,
                        lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN};
}

/* ---- rounds ------------------------------------------------------------------ */

#define ROUNDS 3

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

/* ---- arena: temporaries of one "kernel", freed together ------------------- */

#define TEMPORARIES 8

static bench_result run_temporaries(const bench_cuda *cu, bench_allocator *a, double seconds) {
  CUstream stream = NULL;
  cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void *ptr[TEMPORARIES];
  size_t size[TEMPORARIES];
  uint64_t rng = 12345;
  long ops = 0, failures = 0;
  double start = 0, end = 0;
  for (int round = 0; round < 2; round++) { /* warm-up, then timed */
    double deadline = now_ns() + (round == 0 ? 0.05 : seconds) * 1e9;
    start = now_ns();
    ops = failures = 0;
    do {
      for (int i = 0; i < TEMPORARIES; i++) {
        size[i] = 256 + next_random(&rng) % ((1 << 20) - 255);
        if (a->alloc(a->state, size[i], stream, &ptr[i])) {
          ptr[i] = NULL;
          failures++;
        }
      }
      for (int i = TEMPORARIES; i-- > 0;)
        if (ptr[i]) a->free(a->state, ptr[i], size[i], stream);
      ops += TEMPORARIES;
      end = now_ns();
    } while (end < deadline);
  }
  cu->cuStreamSynchronize(stream);
  cu->cuStreamDestroy(stream);
  if (a->trim) a->trim(a->state);
  return (bench_result){"arena", "8 x 256B-1MiB", a->name, a->label, 1, (end - start) / ops,
                        ops / (end - start) * 1e3, ops, failures, NAN};
}

/* ---- random: rmm's random_allocations pattern ------------------------------ */

/* As rmm's benchmark: 2N steps; each allocates (73%, while under N
 * allocations and the usage cap) a uniformly random size, or frees a random
 * live allocation. Reported per operation (allocations + frees). */
static bench_result run_random(const bench_cuda *cu, bench_allocator *a, int allocations,
                               size_t max_size, size_t max_usage) {
  CUstream stream = NULL;
  cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void **ptr = calloc((size_t)allocations, sizeof *ptr);
  size_t *size = calloc((size_t)allocations, sizeof *size);
  double per_op[3];
  long ops = 0, failures = 0;
  for (int run = 0; run < 3; run++) {
    uint64_t rng = 42;
    int active = 0, made = 0;
    size_t usage = 0;
    long run_ops = 0;
    double start = now_ns();
    for (int i = 0; i < 2 * allocations; i++) {
      size_t n = 1 + next_random(&rng) % max_size;
      bool alloc = active == 0 || ((int)(next_random(&rng) % 100) < 73 && made < allocations &&
                                   usage + n < max_usage);
      if (alloc && a->alloc(a->state, n, stream, &ptr[active]) == 0) {
        size[active++] = n;
        made++;
        usage += n;
        run_ops++;
        continue;
      }
      if (alloc) failures++;
      if (active > 0) { /* free a random live allocation */
        int k = (int)(next_random(&rng) % (uint64_t)active);
        a->free(a->state, ptr[k], size[k], stream);
        usage -= size[k];
        active--;
        ptr[k] = ptr[active];
        size[k] = size[active];
        run_ops++;
      }
    }
    while (active > 0) {
      active--;
      a->free(a->state, ptr[active], size[active], stream);
      run_ops++;
    }
    per_op[run] = (now_ns() - start) / (double)run_ops;
    ops += run_ops;
  }
  /* The median of the three runs. */
  double lo = fmin(per_op[0], fmin(per_op[1], per_op[2]));
  double hi = fmax(per_op[0], fmax(per_op[1], per_op[2]));
  double median = per_op[0] + per_op[1] + per_op[2] - lo - hi;
  free(ptr);
  free(size);
  cu->cuStreamSynchronize(stream);
  cu->cuStreamDestroy(stream);
  if (a->trim) a->trim(a->state);
  return (bench_result){"random", "1B-1MiB", a->name, a->label, 1, median, 1e3 / median, ops,
                        failures, NAN};
}

/* ---- lookup ----------------------------------------------------------------- */

#define LOOKUPS 20000000L

static volatile uintptr_t lookup_sink;

/* What the lookups and driver calls on every allocation cost. */
typedef enum lookup_kind {
  LOOKUP_CTX_GET_MR,
  LOOKUP_GET_MR_ON,
  LOOKUP_CTX_GET_DEVICE,
  LOOKUP_STREAM_GET_ID,     /* the stream identity the reuse adaptors read */
  LOOKUP_STREAM_CAPTURING,  /* the capture check on every allocation */
} lookup_kind;

static bench_result time_lookup(const char *allocator, const char *label, mr_context *ctx,
                                const bench_cuda *cu, lookup_kind which) {
  uintptr_t acc = 0;
  CUdevice device;
  unsigned long long id = 0;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  CUstream stream = NULL;
  if (which >= LOOKUP_STREAM_GET_ID) cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  double start = now_ns();
  switch (which) {
  case LOOKUP_CTX_GET_MR:
    for (long i = 0; i < LOOKUPS; i++) acc ^= (uintptr_t)ctx_get_mr(ctx, (int)(i & 1));
    break;
  case LOOKUP_GET_MR_ON:
    for (long i = 0; i < LOOKUPS; i++) acc ^= (uintptr_t)mr_context_get_mr_on(ctx, (int)(i & 1), 0);
    break;
  case LOOKUP_CTX_GET_DEVICE:
    for (long i = 0; i < LOOKUPS; i++) {
      cu->cuCtxGetDevice(&device, NULL);
      acc ^= (uintptr_t)device;
    }
    break;
  case LOOKUP_STREAM_GET_ID:
    for (long i = 0; i < LOOKUPS; i++) {
      cu->cuStreamGetId(stream, &id);
      acc ^= (uintptr_t)id;
    }
    break;
  case LOOKUP_STREAM_CAPTURING:
    for (long i = 0; i < LOOKUPS; i++) {
      cu->cuStreamIsCapturing(stream, &capture);
      acc ^= (uintptr_t)capture;
    }
    break;
  }
  double ns = (now_ns() - start) / LOOKUPS;
  if (stream != NULL) cu->cuStreamDestroy(stream);
  lookup_sink = acc;
  return (bench_result){"lookup", "", allocator, label, 1, ns, 1e3 / ns, LOOKUPS, 0, NAN};
}

/* Streams that come and go: each request creates a stream, allocates
 * REQUEST_BLOCKS blocks of 256 B-1 MiB on it, frees them and destroys the
 * stream (a server with a stream per request; CuPy's `with Stream():`).
 * Memory freed on a destroyed stream cannot be handed to the next stream
 * at once, whatever its handle: this measures what that costs. */
#define REQUEST_BLOCKS 8

static bench_result run_churn(const bench_cuda *cu, bench_allocator *a, double seconds) {
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  void *ptrs[REQUEST_BLOCKS];
  size_t sizes[REQUEST_BLOCKS];
  long requests = 0, failures = 0;
  double start = now_ns(), end = start;
  while (end - start < seconds * 1e9) {
    CUstream stream = NULL;
    if (cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) break;
    for (int i = 0; i < REQUEST_BLOCKS; i++) {
      sizes[i] = 256 + next_random(&rng) % ((1 << 20) - 256);
      if (a->alloc(a->state, sizes[i], stream, &ptrs[i]) != 0) {
        ptrs[i] = NULL;
        failures++;
      }
    }
    for (int i = REQUEST_BLOCKS; i-- > 0;)
      if (ptrs[i] != NULL) a->free(a->state, ptrs[i], sizes[i], stream);
    cu->cuStreamDestroy(stream);
    requests++;
    if ((requests & 63) == 0) end = now_ns();
  }
  end = now_ns();
  if (a->trim != NULL) a->trim(a->state);
  double ns = requests > 0 ? (end - start) / requests : NAN;
  return (bench_result){"churn", "8 x 256B-1MiB", a->name, a->label, 1, ns, 1e3 / ns,
                        requests, failures, NAN};
}

/* ---- the run ---------------------------------------------------------------- */

enum {
  TAG_DEVICE,
  TAG_DEVICE_DEFAULT,
  TAG_CACHE,
  TAG_ARENA,
  TAG_STAGING_FIXED,
  TAG_STAGING_CACHE,
  TAG_COUNT
};

/* The context the benchmark allocates through, like any library's. Its tags
 * can be overridden with MRCTX_BENCH_MEMORY to measure other chains. */
static const mr_tag bench_tags[TAG_COUNT] = {
    [TAG_DEVICE] = {"device", "device"},
    [TAG_DEVICE_DEFAULT] = {"device_default", "device_default"},
    [TAG_CACHE] = {"cached", "cache(device)"},
    [TAG_ARENA] = {"temp", "arena(device, chunk=64MiB)"},
    [TAG_STAGING_FIXED] = {"staging", "fixed(pinned, block=4MiB, count=32)"},
    [TAG_STAGING_CACHE] = {"staging_cache", "cache(pinned)"},
};

static bool selected(const bench_options *o, const char *workload) {
  return o->only == NULL || strstr(o->only, workload) != NULL;
}

/* A result's ns per operation, or its aggregate rate; NaN if it is missing or
 * had failures (a target is then not available). */
static double ns_of(const bench_results *r, const char *workload, const char *sizes,
                    const char *label, int threads) {
  const bench_result *x = bench_results_find(r, workload, sizes, label, threads);
  return x != NULL && x->failures == 0 ? x->ns_per_op : NAN;
}

static double mops_of(const bench_results *r, const char *workload, const char *sizes,
                      const char *label, int threads) {
  const bench_result *x = bench_results_find(r, workload, sizes, label, threads);
  return x != NULL && x->failures == 0 ? x->mops : NAN;
}

static size_t make_targets(const bench_results *r, bench_target *t) {
  size_t n = 0;
  const char *big = "256B-1MiB";
  double get_on = ns_of(r, "lookup", "", "get_mr_on", 1);
  double get = ns_of(r, "lookup", "", "ctx_get_mr", 1);
  double device = ns_of(r, "lookup", "", "cuCtxGetDevice", 1);
  t[n++] = (bench_target){"mr_context_get_mr_on", get_on, 2.0, true, "ns", !isnan(get_on)};
  t[n++] = (bench_target){"ctx_get_mr minus cuCtxGetDevice", get - device, 2.0, true, "ns",
                          !isnan(get) && !isnan(device)};
  /* The cache reads the stream's ID on allocate and free: 2 calls a pair. */
  double stream_id = ns_of(r, "lookup", "", "cuStreamGetId", 1);
  t[n++] = (bench_target){"stream identity per pair (2 x cuStreamGetId)", 2 * stream_id, 60,
                          true, "ns", !isnan(stream_id)};
  double raw = ns_of(r, "pairs", big, "raw", 1);
  double routed = ns_of(r, "pairs", big, "device", 1);
  t[n++] = (bench_target){"context -> device over the raw pool", routed / raw, 1.02, true, "x",
                          !isnan(raw) && !isnan(routed)};
  double cache = ns_of(r, "pairs", big, "cache", 1);
  double cub = ns_of(r, "pairs", big, "cub", 1);
  t[n++] = (bench_target){"cache(device) vs raw pool, 1 thread", raw / cache, 30, false, "x",
                          !isnan(raw) && !isnan(cache)};
  t[n++] = (bench_target){"cache(device) vs cub, 1 thread", cub / cache, 20, false, "x",
                          !isnan(cub) && !isnan(cache)};
  double raw16 = mops_of(r, "threads", big, "raw", 16);
  double cache16 = mops_of(r, "threads", big, "cache", 16);
  double cache1 = mops_of(r, "threads", big, "cache", 1);
  t[n++] = (bench_target){"cache(device) vs raw pool, 16 threads aggregate", cache16 / raw16,
                          1000, false, "x", !isnan(raw16) && !isnan(cache16)};
  t[n++] = (bench_target){"cache(device) scaling 1 -> 16 threads", cache16 / cache1, 12, false,
                          "x", !isnan(cache16) && !isnan(cache1)};
  double arena_raw = ns_of(r, "arena", "8 x 256B-1MiB", "raw", 1);
  double arena = ns_of(r, "arena", "8 x 256B-1MiB", "arena", 1);
  t[n++] = (bench_target){"arena(device) vs raw pool", arena_raw / arena, 100, false, "x",
                          !isnan(arena_raw) && !isnan(arena)};
  double host = ns_of(r, "pinned", "4KiB-4MiB", "cuMemHostAlloc", 1);
  double fixed = ns_of(r, "pinned", "4KiB-4MiB", "fixed", 1);
  double pcache = ns_of(r, "pinned", "4KiB-4MiB", "cache_pinned", 1);
  double staging = fmin(isnan(fixed) ? INFINITY : fixed, isnan(pcache) ? INFINITY : pcache);
  t[n++] = (bench_target){"pinned staging (fixed or cache) vs cuMemHostAlloc", host / staging,
                          500, false, "x", !isnan(host) && isfinite(staging)};
  double stats1 = ns_of(r, "pairs", big, "cache", 1);
  double bare1 = ns_of(r, "pairs", big, "cache_bare", 1);
  t[n++] = (bench_target){"per-tag statistics, 1 thread", (stats1 - bare1) / bare1 * 100, 10,
                          true, "%", !isnan(stats1) && !isnan(bare1)};
  double stats16 = ns_of(r, "threads", big, "cache", 16);
  double bare16 = ns_of(r, "threads", big, "cache_bare", 16);
  t[n++] = (bench_target){"per-tag statistics, 16 threads", (stats16 - bare16) / bare16 * 100,
                          20, true, "%", !isnan(stats16) && !isnan(bare16)};
  return n;
}

static void usage(FILE *out) {
  fputs("usage: mrctx bench [--seconds S] [--threads N] [--only LIST] [--json FILE]\n"
        "                   [--svg FILE] [--quiet]\n"
        "\n"
        "Times mrctx's resources against the raw driver pools, cuMemHostAlloc and\n"
        "cub's CachingDeviceAllocator on device 0, and checks the targets.\n"
        "\n"
        "  --seconds S   time per measurement (default 0.25; each is taken three\n"
        "                times, interleaved, and the median kept)\n"
        "  --threads N   largest thread count in the scaling run (default 16)\n"
        "  --only LIST   workloads to run, comma-separated: lookup, pairs, threads,\n"
        "                random, pinned, arena, churn (default: all)\n"
        "  --json FILE   write every result and target as JSON\n"
        "  --svg FILE    draw thread scaling and ns per pair as an SVG chart\n"
        "  --quiet       no progress on stderr\n"
        "\n"
        "MRCTX_BENCH_MEMORY overrides the benchmark's tags (device, device_default,\n"
        "cached, temp, staging, staging_cache) like any library's variable.\n",
        out);
}

int mrctx_cmd_bench(int argc, char **argv) {
  bench_options o = {.seconds = 0.25, .max_threads = 16};
  const char *json = NULL, *svg = NULL;
  static const struct option longopts[] = {
      {"seconds", required_argument, NULL, 's'}, {"threads", required_argument, NULL, 't'},
      {"only", required_argument, NULL, 'o'},    {"json", required_argument, NULL, 'j'},
      {"svg", required_argument, NULL, 'g'},     {"quiet", no_argument, NULL, 'q'},
      {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
  };
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
    switch (c) {
    case 's':
      o.seconds = atof(optarg);
      if (!(o.seconds > 0 && o.seconds <= 60)) {
        fprintf(stderr, "mrctx bench: --seconds wants a number in (0, 60], not '%s'\n", optarg);
        return 2;
      }
      break;
    case 't':
      o.max_threads = atoi(optarg);
      if (o.max_threads < 1 || o.max_threads > 256) {
        fprintf(stderr, "mrctx bench: --threads wants 1..256, not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'o':
      o.only = optarg;
      break;
    case 'j':
      json = optarg;
      break;
    case 'g':
      svg = optarg;
      break;
    case 'q':
      o.quiet = true;
      break;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    fprintf(stderr, "mrctx bench: unexpected argument '%s'\n", argv[optind]);
    usage(stderr);
    return 2;
  }

  bench_cuda cu;
  char why[256];
  if (mr_driver_load() != MR_OK) {
    printf("mrctx bench: no GPU to measure: %s\n", mr_last_error());
    return 1;
  }
  if (!bench_cuda_open(&cu, why, sizeof why)) {
    printf("mrctx bench: %s\n", why);
    return 1;
  }
  mr_context *ctx = NULL;
  mr_context_desc desc = {.size = sizeof(mr_context_desc),.library = "mrctx-bench",
                          .tags = bench_tags,
                          .tag_count = TAG_COUNT,
                          .env_var = "MRCTX_BENCH_MEMORY"};
  if (mr_context_create(&desc, &ctx) != MR_OK) {
    printf("mrctx bench: cannot create the benchmark's context:\n%s\n", mr_last_error());
    return 1;
  }
  printf("mrctx bench: %s, driver %d.%d, mrctx %s, %.2f s per measurement\n", cu.device_name,
         cu.version / 1000, (cu.version % 1000) / 10, mr_version(), o.seconds);

  /* The allocators. "Kept" context resources are what a site that allocates
   * several times holds after one ctx_get_mr: the tag's resource with its
   * per-tag statistics. */
  bench_allocator raw = bench_pool_allocator("cuMemAllocFromPoolAsync (raw pool)", "raw", &cu,
                                             cu.device_pool);
  bench_allocator device = bench_tag_allocator("mrctx ctx_get_mr -> device", "device", ctx,
                                               TAG_DEVICE);
  bench_allocator device_default = bench_tag_allocator(
      "mrctx ctx_get_mr -> device_default", "device_default", ctx, TAG_DEVICE_DEFAULT);
  bench_allocator cache = bench_resource_allocator(
      "mrctx cache(device), per-tag stats", "cache", mr_context_get_mr_on(ctx, TAG_CACHE, 0));
  bench_allocator cache_lookup = bench_tag_allocator("mrctx ctx_get_mr -> cache(device)",
                                                     "cache_lookup", ctx, TAG_CACHE);
  /* The same chain as the context's cached tag (retry(cache(device)), the
   * retry being the default one), built directly: without per-tag
   * statistics, so the difference is what the statistics cost. */
  mr_resource *device_mr = NULL, *cache_mr = NULL, *bare_cache = NULL;
  if (mr_device_resource_create(0, &device_mr) != MR_OK ||
      mr_cache_resource_create(device_mr, 0, &cache_mr) != MR_OK ||
      mr_retry_resource_create(cache_mr, 0, NULL, NULL, &bare_cache) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return 1;
  }
  bench_allocator cache_bare =
      bench_resource_allocator("mrctx cache(device), no stats", "cache_bare", bare_cache);
  bench_allocator arena = bench_resource_allocator(
      "mrctx arena(device, chunk=64MiB)", "arena", mr_context_get_mr_on(ctx, TAG_ARENA, 0));
  bench_allocator raw_pinned =
      bench_pool_allocator("cuMemAllocFromPoolAsync (pinned pool)", "raw_pinned", &cu,
                           cu.pinned_pool);
  bench_allocator host_alloc = bench_host_alloc_allocator(&cu);
  bench_allocator fixed = bench_resource_allocator(
      "mrctx fixed(pinned, block=4MiB, count=32)", "fixed",
      mr_context_get_mr_on(ctx, TAG_STAGING_FIXED, 0));
  bench_allocator pinned_cache = bench_resource_allocator(
      "mrctx cache(pinned)", "cache_pinned", mr_context_get_mr_on(ctx, TAG_STAGING_CACHE, 0));
  bench_allocator cub = {0};
  bool have_cub = false;
#if MRCTX_BENCH_CUB
  have_cub = bench_cub_open(&cub);
#endif
  if (!have_cub) printf("mrctx bench: cub peer not available (built without nvcc)\n");

  pin_to_cpu(0); /* the single-threaded workloads run on this thread */
  bench_results results = {0};
  const char *big = "256B-1MiB", *small = "8B-4KiB";

  if (selected(&o, "lookup")) {
    progress(&o, "lookup");
    bench_results_add(&results, time_lookup("cuCtxGetDevice", "cuCtxGetDevice", ctx, &cu,
                                            LOOKUP_CTX_GET_DEVICE));
    bench_results_add(&results,
                      time_lookup("ctx_get_mr", "ctx_get_mr", ctx, &cu, LOOKUP_CTX_GET_MR));
    bench_results_add(&results, time_lookup("mr_context_get_mr_on", "get_mr_on", ctx, &cu,
                                            LOOKUP_GET_MR_ON));
    bench_results_add(&results, time_lookup("cuStreamGetId", "cuStreamGetId", ctx, &cu,
                                            LOOKUP_STREAM_GET_ID));
    bench_results_add(&results, time_lookup("cuStreamIsCapturing", "cuStreamIsCapturing", ctx,
                                            &cu, LOOKUP_STREAM_CAPTURING));
  }
  if (selected(&o, "pairs")) {
    bench_allocator *list[] = {&raw, &device, &device_default, &cache, &cache_lookup,
                               &cache_bare, &cub};
    const char *range[] = {big, small};
    size_t los[] = {256, 8}, his[] = {1 << 20, 4096};
    enum { N = sizeof list / sizeof list[0] };
    for (int s = 0; s < 2; s++) {
      bench_result r[N][ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < N; i++) {
          if (list[i] == &cub && !have_cub) continue;
          progress(&o, "pairs %s, round %d: %s", range[s], round + 1, list[i]->name);
          r[i][round] = run_pairs(&cu, list[i], "pairs", range[s], los[s], his[s], 1, LIVE_BLOCKS,
                                  o.seconds);
        }
      }
      for (size_t i = 0; i < N; i++)
        if (list[i] != &cub || have_cub) bench_results_add(&results, median_of(r[i]));
    }
  }
  if (selected(&o, "threads")) {
    bench_allocator *list[] = {&raw, &cache, &cache_bare, &cub};
    /* 1, 2, 4, ... below the largest count, then the largest. */
    int counts[16], ncounts = 0;
    for (int t = 1; t < o.max_threads && ncounts < 15; t *= 2) counts[ncounts++] = t;
    counts[ncounts++] = o.max_threads;
    enum { N = sizeof list / sizeof list[0] };
    for (int ci = 0; ci < ncounts; ci++) {
      int threads = counts[ci];
      bench_result r[N][ROUNDS];
      for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < N; i++) {
          if (list[i] == &cub && !have_cub) continue;
          progress(&o, "threads %d, round %d: %s", threads, round + 1, list[i]->name);
          r[i][round] = run_pairs(&cu, list[i], "threads", big, 256, 1 << 20, threads,
                                  LIVE_BLOCKS, o.seconds);
        }
      }
      for (size_t i = 0; i < N; i++)
        if (list[i] != &cub || have_cub) bench_results_add(&results, median_of(r[i]));
    }
  }
  if (selected(&o, "random")) {
    bench_allocator *list[] = {&raw, &device, &cache, &cub};
    for (size_t i = 0; i < sizeof list / sizeof list[0]; i++) {
      if (list[i] == &cub && !have_cub) continue;
      progress(&o, "random: %s", list[i]->name);
      bench_results_add(&results, run_random(&cu, list[i], 10000, 1 << 20, (size_t)4 << 30));
    }
  }
  if (selected(&o, "pinned")) {
    bench_allocator *list[] = {&host_alloc, &raw_pinned, &fixed, &pinned_cache};
    enum { N = sizeof list / sizeof list[0] };
    bench_result r[N][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      for (size_t i = 0; i < N; i++) {
        progress(&o, "pinned, round %d: %s", round + 1, list[i]->name);
        r[i][round] = run_pairs(&cu, list[i], "pinned", "4KiB-4MiB", 4096, 4 << 20, 1, 16,
                                o.seconds);
      }
    }
    for (size_t i = 0; i < N; i++) bench_results_add(&results, median_of(r[i]));
  }
  if (selected(&o, "arena")) {
    bench_allocator *list[] = {&raw, &arena, &cache};
    enum { N = sizeof list / sizeof list[0] };
    bench_result r[N][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      for (size_t i = 0; i < N; i++) {
        progress(&o, "arena, round %d: %s", round + 1, list[i]->name);
        r[i][round] = run_temporaries(&cu, list[i], o.seconds);
      }
    }
    for (size_t i = 0; i < N; i++) bench_results_add(&results, median_of(r[i]));
  }
  if (selected(&o, "churn")) {
    bench_allocator *list[] = {&raw, &cache, &arena};
    enum { N = sizeof list / sizeof list[0] };
    bench_result r[N][ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      for (size_t i = 0; i < N; i++) {
        progress(&o, "churn, round %d: %s", round + 1, list[i]->name);
        r[i][round] = run_churn(&cu, list[i], o.seconds);
      }
    }
    for (size_t i = 0; i < N; i++) bench_results_add(&results, median_of(r[i]));
  }
  progress(&o, "%s", "");

  bench_print_table(stdout, &results);
  bench_target targets[16];
  size_t ntargets = make_targets(&results, targets);
  bench_print_targets(stdout, targets, ntargets);
  int rc = 0;
  if (json != NULL && !bench_write_json(json, &cu, &results, targets, ntargets)) rc = 1;
  if (svg != NULL && !bench_write_svg(svg, &results)) rc = 1;

  bench_allocator *all[] = {&raw, &device, &device_default, &cache, &cache_lookup, &cache_bare,
                            &arena, &raw_pinned, &host_alloc, &fixed, &pinned_cache};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) bench_allocator_close(all[i]);
  if (have_cub) bench_allocator_close(&cub);
  mr_resource_release(bare_cache);
  mr_resource_release(cache_mr);
  mr_resource_release(device_mr);
  mr_context_destroy(ctx);
  free(results.items);
  return rc;
}
