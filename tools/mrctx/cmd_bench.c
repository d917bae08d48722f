/*
 * cmd_bench.c: `mrctx bench`, mrctx against the allocators users pick today,
 * in one run on one device. The workloads are the rows of one table
 * (`workloads`, below): --only and --help take their names from it, the run
 * goes through it in order, and the report compares each result with its
 * workload's baseline row. Baselines: the raw driver calls on the same pools,
 * cuMemHostAlloc, and cub's CachingDeviceAllocator (where built with nvcc).
 * Output: a table, the issue's targets with pass/miss, --json FILE and
 * --svg FILE.
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

/* ---- workloads ------------------------------------------------------------- */

/* The allocators under test; a workload lists those it times. */
typedef enum allocator_id {
  ALLOC_NONE,           /* ends a workload's list */
  ALLOC_RAW,            /* cuMemAllocFromPoolAsync on the device's pool */
  ALLOC_DEVICE,         /* ctx_get_mr -> device */
  ALLOC_DEVICE_DEFAULT, /* ctx_get_mr -> device_default */
  ALLOC_CACHE,          /* cache(device), kept from the context: per-tag statistics */
  ALLOC_CACHE_LOOKUP,   /* ctx_get_mr -> cache(device) */
  ALLOC_CACHE_BARE,     /* the same chain built directly: no statistics */
  ALLOC_ARENA,          /* arena(device, chunk=64MiB) */
  ALLOC_RAW_PINNED,     /* cuMemAllocFromPoolAsync on the pinned pool */
  ALLOC_HOST_ALLOC,     /* cuMemHostAlloc */
  ALLOC_FIXED,          /* fixed(pinned, block=4MiB, count=32) */
  ALLOC_PINNED_CACHE,   /* cache(pinned) */
  ALLOC_CUB,            /* cub, no cap on cached bytes: the "vs cub" peer */
  ALLOC_CUB_DEFAULT,    /* cub as default-constructed (6 MiB cap), for reference */
  ALLOC_COUNT
} allocator_id;

#define MAX_WORKLOAD_ALLOCATORS 8
#define MAX_WORKLOAD_CASES 2

/* One range of request sizes a workload is timed with. */
typedef struct workload_case {
  const char *sizes; /* the results' sizes column; NULL past a workload's last case */
  size_t lo, hi;     /* requests are lo..hi bytes */
} workload_case;

/* What a run holds: the options, the driver, the benchmark's context, the
 * allocators and the results so far. */
typedef struct bench_run {
  const bench_options *o;
  bench_cuda cu;
  mr_context *ctx;
  bench_allocator allocators[ALLOC_COUNT];
  mr_resource *device_mr, *cache_mr, *bare_cache; /* the statistics-free cache's chain */
  bench_results results;
} bench_run;

typedef struct bench_workload bench_workload;

/* One measurement: allocator `a` on case `c` with `threads` threads. */
typedef bench_result (*measure_fn)(const bench_run *b, const bench_workload *w,
                                   const workload_case *c, int threads, bench_allocator *a);

/* A row of the workload table. */
struct bench_workload {
  const char *name;     /* its --only name and the results' workload column */
  const char *baseline; /* the label of the row its results are compared with */
  /* Runs the workload and adds its results: run_each for all but lookup. */
  void (*run)(bench_run *b, const bench_workload *w);
  /* What run_each reads: */
  measure_fn measure;
  allocator_id allocators[MAX_WORKLOAD_ALLOCATORS]; /* in the results' order */
  workload_case cases[MAX_WORKLOAD_CASES + 1];
  int live;           /* pair workloads: blocks each thread keeps live */
  bool rounds;        /* ROUNDS interleaved rounds, the median kept */
  bool scale_threads; /* each case at 1, 2, 4, ... and --threads threads */
};

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

static bench_result run_pairs(const bench_run *b, const bench_workload *w,
                              const workload_case *c, int threads, bench_allocator *a) {
  uint64_t hits0, misses0, hits1, misses1;
  cache_counts(a, &hits0, &misses0);
  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, (unsigned)threads);
  pair_job *jobs = calloc((size_t)threads, sizeof *jobs);
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  for (int t = 0; t < threads; t++) {
    jobs[t] = (pair_job){.index = t, .cu = &b->cu, .allocator = a, .lo = c->lo, .hi = c->hi,
                         .live = w->live, .seconds = b->o->seconds, .ready = &ready,
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
  return (bench_result){w->name, c->sizes, a->name, a->label, threads, per_thread_ns / threads,
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

static bench_result run_temporaries(const bench_run *b, const bench_workload *w,
                                   const workload_case *c, int threads, bench_allocator *a) {
  const bench_cuda *cu = &b->cu;
  CUstream stream = NULL;
  cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void *ptr[TEMPORARIES];
  size_t size[TEMPORARIES];
  uint64_t rng = 12345;
  long ops = 0, failures = 0;
  double start = 0, end = 0;
  for (int round = 0; round < 2; round++) { /* warm-up, then timed */
    double deadline = now_ns() + (round == 0 ? 0.05 : b->o->seconds) * 1e9;
    start = now_ns();
    ops = failures = 0;
    do {
      for (int i = 0; i < TEMPORARIES; i++) {
        size[i] = c->lo + next_random(&rng) % (c->hi - c->lo + 1);
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
  return (bench_result){w->name, c->sizes, a->name, a->label, 1, (end - start) / ops,
                        ops / (end - start) * 1e3, ops, failures, NAN};
}

/* ---- random: rmm's random_allocations pattern ------------------------------ */

#define RANDOM_ALLOCATIONS 10000
#define RANDOM_MAX_USAGE ((size_t)4 << 30)

/* As rmm's benchmark: 2N steps; each allocates (73%, while under N
 * allocations and the usage cap) a uniformly random size, or frees a random
 * live allocation. Reported per operation (allocations + frees). */
static bench_result run_random(const bench_run *b, const bench_workload *w,
                               const workload_case *c, int threads, bench_allocator *a) {
  const bench_cuda *cu = &b->cu;
  int allocations = RANDOM_ALLOCATIONS;
  size_t max_usage = RANDOM_MAX_USAGE;
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
      size_t n = c->lo + next_random(&rng) % (c->hi - c->lo + 1);
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
  return (bench_result){w->name, c->sizes, a->name, a->label, 1, median, 1e3 / median, ops,
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

static bench_result time_lookup(const bench_run *b, const bench_workload *w, const char *allocator,
                                const char *label, lookup_kind which) {
  const bench_cuda *cu = &b->cu;
  mr_context *ctx = b->ctx;
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
  return (bench_result){w->name, "", allocator, label, 1, ns, 1e3 / ns, LOOKUPS, 0, NAN};
}

/* Streams that come and go: each request creates a stream, allocates
 * REQUEST_BLOCKS blocks of 256 B-1 MiB on it, frees them and destroys the
 * stream (a server with a stream per request; CuPy's `with Stream():`).
 * Memory freed on a destroyed stream cannot be handed to the next stream
 * at once, whatever its handle: this measures what that costs. */
#define REQUEST_BLOCKS 8

static bench_result run_churn(const bench_run *b, const bench_workload *w,
                              const workload_case *c, int threads, bench_allocator *a) {
  const bench_cuda *cu = &b->cu;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  void *ptrs[REQUEST_BLOCKS];
  size_t sizes[REQUEST_BLOCKS];
  long requests = 0, failures = 0;
  double start = now_ns(), end = start;
  while (end - start < b->o->seconds * 1e9) {
    CUstream stream = NULL;
    if (cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) break;
    for (int i = 0; i < REQUEST_BLOCKS; i++) {
      sizes[i] = c->lo + next_random(&rng) % (c->hi - c->lo + 1);
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
  return (bench_result){w->name, c->sizes, a->name, a->label, 1, ns, 1e3 / ns,
                        requests, failures, NAN};
}

/* ---- running a workload ------------------------------------------------------ */

/* Time every allocator of `w` on every case (and thread count), in turn,
 * round after round where the workload takes rounds, and add the results:
 * per case, in the order of the workload's allocators. */
static void run_each(bench_run *b, const bench_workload *w) {
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
            progress(o, "%s, round %d: %s", what, round + 1, list[i]->name);
          else
            progress(o, "%s: %s", what, list[i]->name);
          r[i][round] = w->measure(b, w, c, threads, list[i]);
        }
      }
      for (size_t i = 0; i < n; i++)
        bench_results_add(&b->results, w->rounds ? median_of(r[i]) : r[i][0]);
    }
  }
}

/* The lookup workload's rows. */
static const struct {
  const char *allocator, *label;
  lookup_kind kind;
} lookups[] = {
    {"cuCtxGetDevice", "cuCtxGetDevice", LOOKUP_CTX_GET_DEVICE},
    {"ctx_get_mr", "ctx_get_mr", LOOKUP_CTX_GET_MR},
    {"mr_context_get_mr_on", "get_mr_on", LOOKUP_GET_MR_ON},
    {"cuStreamGetId", "cuStreamGetId", LOOKUP_STREAM_GET_ID},
    {"cuStreamIsCapturing", "cuStreamIsCapturing", LOOKUP_STREAM_CAPTURING},
};

static void run_lookups(bench_run *b, const bench_workload *w) {
  progress(b->o, "%s", w->name);
  for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++)
    bench_results_add(&b->results, time_lookup(b, w, lookups[i].allocator, lookups[i].label,
                                               lookups[i].kind));
}

/* The workloads, in the order they run and are reported. Adding one is a
 * row here (and its measure function, if none of these fits). */
static const bench_workload workloads[] = {
    /* ctx_get_mr and mr_context_get_mr_on, against cuCtxGetDevice; and the
     * driver calls every reuse adaptor makes per call (cuStreamGetId,
     * cuStreamIsCapturing). */
    {.name = "lookup", .baseline = "cuCtxGetDevice", .run = run_lookups},
    /* alloc+free pairs, LIVE_BLOCKS live blocks, one thread. */
    {.name = "pairs",
     .baseline = "raw",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_DEVICE_DEFAULT, ALLOC_CACHE, ALLOC_CACHE_LOOKUP,
                    ALLOC_CACHE_BARE, ALLOC_CUB, ALLOC_CUB_DEFAULT},
     .cases = {{"256B-1MiB", 256, 1 << 20}, {"8B-4KiB", 8, 4096}},
     .live = LIVE_BLOCKS,
     .rounds = true},
    /* The same at 1, 2, 4, 8 and 16 threads (--threads), one stream each. */
    {.name = "threads",
     .baseline = "raw",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_CACHE_BARE, ALLOC_CUB},
     .cases = {{"256B-1MiB", 256, 1 << 20}},
     .live = LIVE_BLOCKS,
     .rounds = true,
     .scale_threads = true},
    /* rmm's random_allocations pattern. */
    {.name = "random",
     .baseline = "raw",
     .run = run_each,
     .measure = run_random,
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CUB},
     .cases = {{"1B-1MiB", 1, 1 << 20}}},
    /* Pinned host staging buffers. */
    {.name = "pinned",
     .baseline = "cuMemHostAlloc",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_HOST_ALLOC, ALLOC_RAW_PINNED, ALLOC_FIXED, ALLOC_PINNED_CACHE},
     .cases = {{"4KiB-4MiB", 4096, 4 << 20}},
     .live = 16,
     .rounds = true},
    /* Temporaries: a few allocations per "kernel", freed together. */
    {.name = "arena",
     .baseline = "raw",
     .run = run_each,
     .measure = run_temporaries,
     .allocators = {ALLOC_RAW, ALLOC_ARENA, ALLOC_CACHE},
     .cases = {{"8 x 256B-1MiB", 256, 1 << 20}},
     .rounds = true},
    /* A stream per request: created, used, destroyed. */
    {.name = "churn",
     .baseline = "raw",
     .run = run_each,
     .measure = run_churn,
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_ARENA},
     .cases = {{"8 x 256B-1MiB", 256, (1 << 20) - 1}},
     .rounds = true},
};

#define WORKLOAD_COUNT (sizeof workloads / sizeof workloads[0])

const char *bench_workload_baseline(const char *name) {
  for (size_t i = 0; i < WORKLOAD_COUNT; i++)
    if (strcmp(workloads[i].name, name) == 0) return workloads[i].baseline;
  return NULL;
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
static bool selected(const bench_options *o, const char *workload) {
  return o->only == NULL || list_names(o->only, workload);
}

/* Every name in --only must be a workload: a typo must not run nothing. */
static bool check_only(const char *list) {
  if (list[0] == '\0') {
    fprintf(stderr, "mrctx bench: --only wants a comma-separated list of workloads\n");
    return false;
  }
  for (const char *p = list; *p != '\0';) {
    size_t len = strcspn(p, ",");
    bool known = false;
    for (size_t i = 0; i < WORKLOAD_COUNT && !known; i++)
      known = strlen(workloads[i].name) == len && strncmp(p, workloads[i].name, len) == 0;
    if (!known) {
      fprintf(stderr, "mrctx bench: --only: no workload '%.*s' (see --help for the list)\n",
              (int)len, p);
      return false;
    }
    p += len;
    if (*p == ',') p++;
  }
  return true;
}

/* ---- the command ------------------------------------------------------------ */

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
        "  --threads N   largest thread count in the scaling run (default 16)\n",
        out);
  /* The workloads' names, filled into lines of at most 79 characters. */
  int column = fprintf(out, "  --only LIST   workloads to run, comma-separated:");
  for (size_t i = 0; i < WORKLOAD_COUNT; i++) {
    char word[64];
    int n = snprintf(word, sizeof word, "%s%s", workloads[i].name,
                     i + 1 < WORKLOAD_COUNT ? "," : " (default: all)");
    if (column + 1 + n > 79)
      column = fprintf(out, "\n                %s", word) - 1;
    else
      column += fprintf(out, " %s", word);
  }
  fputs("\n"
        "  --json FILE   write every result and target as JSON\n"
        "  --svg FILE    draw thread scaling and ns per pair as an SVG chart\n"
        "  --quiet       no progress on stderr\n"
        "\n"
        "MRCTX_BENCH_MEMORY overrides the benchmark's tags (device, device_default,\n"
        "cached, temp, staging, staging_cache) like any library's variable.\n",
        out);
}

/* Read the options into `o`, `json` and `svg`. Returns -1 to go on, or the
 * exit status (help, or a usage error). */
static int parse_options(int argc, char **argv, bench_options *o, const char **json,
                         const char **svg) {
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
      o->seconds = atof(optarg);
      if (!(o->seconds > 0 && o->seconds <= 60)) {
        fprintf(stderr, "mrctx bench: --seconds wants a number in (0, 60], not '%s'\n", optarg);
        return 2;
      }
      break;
    case 't':
      o->max_threads = atoi(optarg);
      if (o->max_threads < 1 || o->max_threads > 256) {
        fprintf(stderr, "mrctx bench: --threads wants 1..256, not '%s'\n", optarg);
        return 2;
      }
      break;
    case 'o':
      if (!check_only(optarg)) return 2;
      o->only = optarg;
      break;
    case 'j':
      *json = optarg;
      break;
    case 'g':
      *svg = optarg;
      break;
    case 'q':
      o->quiet = true;
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
  return -1;
}

/* Make every allocator. False, with the reason printed, if one of mrctx's
 * own cannot be made; the cub peer may be missing (it is skipped). */
static bool open_allocators(bench_run *b) {
  bench_allocator *al = b->allocators;
  mr_context *ctx = b->ctx;
  /* "Kept" context resources are what a site that allocates several times
   * holds after one ctx_get_mr: the tag's resource with its per-tag
   * statistics. */
  al[ALLOC_RAW] = bench_pool_allocator("cuMemAllocFromPoolAsync (raw pool)", "raw", &b->cu,
                                       b->cu.device_pool);
  al[ALLOC_DEVICE] = bench_tag_allocator("mrctx ctx_get_mr -> device", "device", ctx, TAG_DEVICE);
  al[ALLOC_DEVICE_DEFAULT] = bench_tag_allocator(
      "mrctx ctx_get_mr -> device_default", "device_default", ctx, TAG_DEVICE_DEFAULT);
  al[ALLOC_CACHE] = bench_resource_allocator(
      "mrctx cache(device), per-tag stats", "cache", mr_context_get_mr_on(ctx, TAG_CACHE, 0));
  al[ALLOC_CACHE_LOOKUP] = bench_tag_allocator("mrctx ctx_get_mr -> cache(device)",
                                               "cache_lookup", ctx, TAG_CACHE);
  /* The same chain as the context's cached tag (retry(cache(device)), the
   * retry being the default one), built directly: without per-tag
   * statistics, so the difference is what the statistics cost. */
  if (mr_device_resource_create(0, &b->device_mr) != MR_OK ||
      mr_cache_resource_create(b->device_mr, 0, &b->cache_mr) != MR_OK ||
      mr_retry_resource_create(b->cache_mr, 0, NULL, NULL, &b->bare_cache) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return false;
  }
  al[ALLOC_CACHE_BARE] =
      bench_resource_allocator("mrctx cache(device), no stats", "cache_bare", b->bare_cache);
  al[ALLOC_ARENA] = bench_resource_allocator(
      "mrctx arena(device, chunk=64MiB)", "arena", mr_context_get_mr_on(ctx, TAG_ARENA, 0));
  al[ALLOC_RAW_PINNED] = bench_pool_allocator("cuMemAllocFromPoolAsync (pinned pool)",
                                              "raw_pinned", &b->cu, b->cu.pinned_pool);
  al[ALLOC_HOST_ALLOC] = bench_host_alloc_allocator(&b->cu);
  al[ALLOC_FIXED] = bench_resource_allocator("mrctx fixed(pinned, block=4MiB, count=32)", "fixed",
                                             mr_context_get_mr_on(ctx, TAG_STAGING_FIXED, 0));
  al[ALLOC_PINNED_CACHE] = bench_resource_allocator(
      "mrctx cache(pinned)", "cache_pinned", mr_context_get_mr_on(ctx, TAG_STAGING_CACHE, 0));
#if MRCTX_BENCH_CUB
  /* The cub peers are skipped (with a line saying so) where they cannot be
   * made: their rows are then absent, never estimated. */
  if (!bench_cub_open(&al[ALLOC_CUB], true) || !bench_cub_open(&al[ALLOC_CUB_DEFAULT], false))
    printf("mrctx bench: cub peer not available (cudaSetDevice failed)\n");
#else
  printf("mrctx bench: cub peer not available (built without nvcc)\n");
#endif
  return true;
}

static void close_allocators(bench_run *b) {
  for (size_t i = 0; i < ALLOC_COUNT; i++) bench_allocator_close(&b->allocators[i]);
  mr_resource_release(b->bare_cache);
  mr_resource_release(b->cache_mr);
  mr_resource_release(b->device_mr);
}

int mrctx_cmd_bench(int argc, char **argv) {
  bench_options o = {.seconds = 0.25, .max_threads = 16};
  const char *json = NULL, *svg = NULL;
  int status = parse_options(argc, argv, &o, &json, &svg);
  if (status >= 0) return status;

  bench_run b = {.o = &o};
  char why[256];
  if (mr_driver_load() != MR_OK) {
    printf("mrctx bench: no GPU to measure: %s\n", mr_last_error());
    return 1;
  }
  if (!bench_cuda_open(&b.cu, why, sizeof why)) {
    printf("mrctx bench: %s\n", why);
    return 1;
  }
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mrctx-bench",
                          .tags = bench_tags,
                          .tag_count = TAG_COUNT,
                          .env_var = "MRCTX_BENCH_MEMORY"};
  if (mr_context_create(&desc, &b.ctx) != MR_OK) {
    printf("mrctx bench: cannot create the benchmark's context:\n%s\n", mr_last_error());
    return 1;
  }
  printf("mrctx bench: %s, driver %d.%d, mrctx %s, %.2f s per measurement\n", b.cu.device_name,
         b.cu.version / 1000, (b.cu.version % 1000) / 10, mr_version(), o.seconds);
  if (!open_allocators(&b)) {
    close_allocators(&b);
    mr_context_destroy(b.ctx);
    return 1;
  }

  pin_to_cpu(0); /* the single-threaded workloads run on this thread */
  for (size_t i = 0; i < WORKLOAD_COUNT; i++)
    if (selected(&o, workloads[i].name)) workloads[i].run(&b, &workloads[i]);
  progress(&o, "%s", "");

  bench_print_table(stdout, &b.results);
  bench_target targets[16];
  size_t ntargets = make_targets(&b.results, targets);
  bench_print_targets(stdout, targets, ntargets);
  int rc = 0;
  if (json != NULL && !bench_write_json(json, &b.cu, &b.results, targets, ntargets)) rc = 1;
  if (svg != NULL && !bench_write_svg(svg, &b.results)) rc = 1;

  close_allocators(&b);
  mr_context_destroy(b.ctx);
  free(b.results.items);
  return rc;
}
