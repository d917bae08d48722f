/*
 * cmd_bench.c: `mrctx bench`, mrctx against the allocators users pick today,
 * on one device. The workloads are the rows of one table (`workloads`,
 * below): --only and --help take their names from it, a run of the suite
 * goes through it in order, and the report compares each result with its
 * workload's baseline row. Baselines: the raw driver calls on the same pools,
 * cuMemHostAlloc; peers: cub's CachingDeviceAllocator (where built with
 * nvcc) and PyTorch's caching allocator (where built with libtorch).
 * --runs N repeats the whole suite with fresh allocators; the report gives
 * each row's median and spread over the runs. Every measurement also finds
 * the workload's peak requested bytes and the allocator's peak reserved
 * bytes. Output: a table, the targets with met/missed, --json FILE
 * and --svg FILE. The trace workload replays a recorded allocation log
 * (replay_run.c, as `mrctx replay` does) with its threads.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"
#include "replay_log.h"
#include "replay_run.h"
#include "replay_streams.h"

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

/* lo..hi bytes, log-uniformly: as many blocks of 1-2 MiB as of 128-256 MiB
 * (sizes of tensors spread over orders of magnitude). Not for timed loops:
 * it costs a pow(). */
static size_t log_uniform(uint64_t *rng, size_t lo, size_t hi) {
  double u = (double)(next_random(rng) >> 11) * 0x1.0p-53; /* [0, 1) */
  return (size_t)((double)lo * pow((double)hi / (double)lo, u));
}

typedef struct bench_options {
  double seconds;  /* per measurement */
  int max_threads;
  int runs;        /* of the whole suite */
  bool quiet;      /* no progress on stderr */
  const char *only;
  const char *trace; /* --trace FILE: the trace workload's log, or NULL */
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
} memory_mark;

/* The allocator under test starts holding nothing (a fixed(...) keeps a
 * slab, a cache its blocks, until trimmed): all it holds during the
 * measurement is then above the mark. */
static memory_mark memory_begin(const bench_cuda *cu, const bench_allocator *a) {
  memory_mark m = {0, false};
  cu->cuCtxSynchronize(NULL); /* every event its blocks wait on is complete */
  if (a->trim != NULL) a->trim(a->state);
  trim_pools(cu);
  if (a->pool != NULL) {
    cuuint64_t zero = 0; /* the only value the driver takes: high = current */
    m.known = cu->cuMemPoolGetAttribute(a->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &m.base) ==
                  CUDA_SUCCESS &&
              cu->cuMemPoolSetAttribute(a->pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero) ==
                  CUDA_SUCCESS;
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
  return a->peak_reserved != NULL ? a->peak_reserved(a->state) : NAN;
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
  ALLOC_TORCH,          /* PyTorch's CUDA caching allocator */
  ALLOC_DRIVER_CALLS,   /* a cached pair's driver calls alone, no memory */
  ALLOC_HOST_CACHE,     /* cache(host): the cache's own work, no driver calls */
  ALLOC_CACHE_SLABS,    /* cache(bin(device, ...)): misses carved from slabs */
  ALLOC_CACHE_EXACT,    /* stats(cache(device), peak=exact), kept: exact per-tag peaks */
  ALLOC_TRACK,          /* track(cache(host)): a tracker's own cost, no driver calls */
  ALLOC_TRACK_STACKS,   /* track(cache(host), stacks=8): and each allocation's call site */
  ALLOC_COUNT
} allocator_id;

#define MAX_WORKLOAD_ALLOCATORS 12
#define MAX_WORKLOAD_CASES 4

/* One range of request sizes a workload is timed with. */
typedef struct workload_case {
  const char *sizes; /* the results' sizes column; NULL past a workload's last case */
  size_t lo, hi;     /* requests are lo..hi bytes */
  bool log_uniform;  /* drawn log-uniformly (else uniformly) */
  /* On the legacy default stream (what PyTorch and CuPy use) rather than a
   * stream of the thread's own. */
  bool legacy_stream;
} workload_case;

/* What a run of the suite holds: the options, the driver, the benchmark's
 * context, the allocators and the results so far. */
typedef struct bench_run {
  const bench_options *o;
  bench_cuda cu;
  int run;          /* which run of the suite, from 0 */
  char prefix[32];  /* "run 2/5: " for progress, or "" for one run */
  mr_context *ctx;
  bench_allocator allocators[ALLOC_COUNT];
  mr_resource *device_mr, *cache_mr, *bare_cache; /* the statistics-free cache's chain */
  mr_resource *host_mr, *host_cache;              /* cache(host) */
  mr_resource *track, *track_stacks; /* track(cache(host)), with stacks=8 */
  /* The trace workload's log, read once before the first run (NULL: the
   * workload is skipped), and a stream for each of its Stream values. */
  const replay_log *trace;
  const mr_stream *trace_streams;
  char trace_label[32]; /* its sizes column: "138,893 events" */
  bench_results results;
} bench_run;

typedef struct bench_workload bench_workload;

/* One measurement: allocator `a` on case `c` with `threads` threads. It
 * fills in the workload's peak requested bytes (NaN where its threads'
 * own counts cannot tell it: they are not added up while they run); the
 * caller adds the run and the peak reserved. */
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

/* Log-uniform sizes come from a table drawn before the clock starts, so
 * the timed loop pays an index, not a pow(). */
#define SIZE_TABLE 4096

typedef struct pair_job {
  int index; /* the thread's number, for its CPU */
  const bench_cuda *cu;
  CUcontext context; /* made current on the thread: its device's primary context */
  bench_allocator *allocator;
  const workload_case *sizes;
  int live;
  bool sample; /* the only thread: sample the allocator's reserved bytes */
  double seconds;
  pthread_barrier_t *ready;
  uint64_t seed;
  long pairs, failures;
  double elapsed;
  size_t peak_requested;
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

/* The next request's size: uniform with a modulo, or from the table. */
static inline size_t next_size(uint64_t *rng, size_t lo, size_t span, const size_t *table) {
  return table != NULL ? table[next_random(rng) & (SIZE_TABLE - 1)] : lo + next_random(rng) % span;
}

static void *pair_thread(void *arg) {
  pair_job *j = arg;
  bench_allocator *a = j->allocator;
  pin_to_cpu(j->index);
  j->cu->cuCtxSetCurrent(j->context);
  CUstream stream = NULL;
  if (!j->sizes->legacy_stream) j->cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void *ptr[LIVE_BLOCKS] = {0};
  size_t size[LIVE_BLOCKS] = {0};
  uint64_t rng = j->seed;
  size_t lo = j->sizes->lo, span = j->sizes->hi - j->sizes->lo + 1;
  size_t *table = NULL;
  if (j->sizes->log_uniform && (table = malloc(SIZE_TABLE * sizeof *table)) != NULL)
    for (int i = 0; i < SIZE_TABLE; i++) table[i] = log_uniform(&rng, j->sizes->lo, j->sizes->hi);
  bench_usage usage = {.sampled = j->sample && a->sample_reserved != NULL ? a : NULL};
  unsigned mask = (unsigned)j->live - 1; /* live is a power of two */
  /* Fill, then warm up: the caches and pools reach their steady state. */
  for (int k = 0; k < j->live; k++) {
    size[k] = next_size(&rng, lo, span, table);
    if (a->alloc(a->state, size[k], stream, &ptr[k]))
      ptr[k] = NULL;
    else
      bench_usage_alloc(&usage, size[k]);
  }
  /* Warm up for a fifth of the timed run: caches reach their steady state
   * (every size class stocked) before the clock starts. */
  double warm_until = now_ns() + j->seconds * 0.2e9;
  do {
    for (int i = 0; i < BATCH; i++) {
      unsigned k = (unsigned)next_random(&rng) & mask;
      if (ptr[k]) {
        a->free(a->state, ptr[k], size[k], stream);
        bench_usage_free(&usage, size[k]);
      }
      size[k] = next_size(&rng, lo, span, table);
      if (a->alloc(a->state, size[k], stream, &ptr[k]))
        ptr[k] = NULL;
      else
        bench_usage_alloc(&usage, size[k]);
    }
  } while (now_ns() < warm_until);
  pthread_barrier_wait(j->ready);
  double start = now_ns(), deadline = start + j->seconds * 1e9, end;
  long pairs = 0, failures = 0;
  do {
    for (int i = 0; i < BATCH; i++) {
      unsigned k = (unsigned)next_random(&rng) & mask;
      if (ptr[k]) {
        a->free(a->state, ptr[k], size[k], stream);
        bench_usage_free(&usage, size[k]);
      }
      size[k] = next_size(&rng, lo, span, table);
      if (a->alloc(a->state, size[k], stream, &ptr[k])) {
        ptr[k] = NULL;
        failures++;
      } else {
        bench_usage_alloc(&usage, size[k]);
      }
    }
    pairs += BATCH;
    end = now_ns();
  } while (end < deadline);
  j->elapsed = end - start;
  j->pairs = pairs;
  j->failures = failures;
  bench_usage_end(&usage);
  j->peak_requested = usage.peak;
  for (int k = 0; k < j->live; k++)
    if (ptr[k]) a->free(a->state, ptr[k], size[k], stream);
  free(table);
  j->cu->cuStreamSynchronize(stream);
  if (stream != NULL) j->cu->cuStreamDestroy(stream);
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
    jobs[t] = (pair_job){.index = t, .cu = &b->cu, .context = b->cu.context, .allocator = a,
                         .sizes = c, .live = w->live,
                         .sample = threads == 1, .seconds = b->o->seconds, .ready = &ready,
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
  /* Each thread knows its own peak; the peaks of several need not coincide,
   * so their sum would overstate what was live at once. */
  double requested = threads == 1 ? (double)jobs[0].peak_requested : NAN;
  pthread_barrier_destroy(&ready);
  free(jobs);
  free(tids);
  cache_counts(a, &hits1, &misses1);
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  if (a->trim) a->trim(a->state);
  return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                        .label = a->label, .threads = threads,
                        .ns_per_op = per_thread_ns / threads,
                        .mops = (double)pairs / longest * 1e3, .ops = pairs,
                        .failures = failures,
                        .hit_rate = lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN,
                        .peak_requested = requested};
}

/* ---- handoff: one thread allocates, another frees (PyTorch's autograd) --- */

/* A training step as PyTorch runs it: the main thread's forward pass
 * allocates HANDOFF_BLOCKS activations and hands them over; the autograd
 * thread, going backward, allocates a gradient per activation and frees
 * the activation; the main thread's optimizer step frees the gradients.
 * So each thread frees what the other allocated, on one shared stream, and
 * a few GiB are live at the step's peak. The sizes are drawn once and are
 * the same every step (a model's shapes do not change), the gradients' from
 * their own draw: three in four blocks 1 MiB..hi log-uniformly, one in four
 * small, lo..1 MiB. The phases take turns (as the autograd engine blocks
 * the main thread in backward), through a flag each side spins on. */
#define HANDOFF_BLOCKS 200

enum { TURN_FORWARD, TURN_BACKWARD, TURN_OPTIMIZER, TURN_STOP };

typedef struct handoff {
  const bench_cuda *cu;
  bench_allocator *a;
  CUstream stream;
  size_t act_size[HANDOFF_BLOCKS], grad_size[HANDOFF_BLOCKS];
  void *act[HANDOFF_BLOCKS], *grad[HANDOFF_BLOCKS];
  atomic_int turn;
  /* Touched only by the thread whose turn it is. */
  bench_usage usage;
  long failures;
} handoff;

/* Wait until it is `want`'s turn (or the end); spin, yielding the CPU after
 * a while so that two threads on one core still get on. */
static int wait_turn(handoff *h, int want) {
  int turn;
  for (unsigned spins = 0;
       (turn = atomic_load_explicit(&h->turn, memory_order_acquire)) != want && turn != TURN_STOP;
       spins++)
    if (spins >= 256) sched_yield();
  return turn;
}

static void pass_turn(handoff *h, int to) {
  atomic_store_explicit(&h->turn, to, memory_order_release);
}

static void handoff_alloc(handoff *h, void **ptr, size_t bytes) {
  if (h->a->alloc(h->a->state, bytes, h->stream, ptr) != 0) {
    *ptr = NULL;
    h->failures++;
  } else {
    bench_usage_alloc(&h->usage, bytes);
  }
}

static void handoff_free(handoff *h, void *ptr, size_t bytes) {
  if (ptr == NULL) return;
  h->a->free(h->a->state, ptr, bytes, h->stream);
  bench_usage_free(&h->usage, bytes);
}

/* The autograd thread. */
static void *handoff_backward(void *arg) {
  handoff *h = arg;
  pin_to_cpu(1);
  h->cu->cuCtxSetCurrent(h->cu->context);
  while (wait_turn(h, TURN_BACKWARD) == TURN_BACKWARD) {
    for (int i = HANDOFF_BLOCKS; i-- > 0;) {
      handoff_alloc(h, &h->grad[i], h->grad_size[i]);
      handoff_free(h, h->act[i], h->act_size[i]);
    }
    pass_turn(h, TURN_OPTIMIZER);
  }
  return NULL;
}

/* One step on the main thread: forward, wait for backward, optimizer. */
static void handoff_step(handoff *h) {
  for (int i = 0; i < HANDOFF_BLOCKS; i++) handoff_alloc(h, &h->act[i], h->act_size[i]);
  pass_turn(h, TURN_BACKWARD);
  wait_turn(h, TURN_OPTIMIZER);
  for (int i = 0; i < HANDOFF_BLOCKS; i++) handoff_free(h, h->grad[i], h->grad_size[i]);
}

static size_t handoff_size(uint64_t *rng, const workload_case *c) {
  size_t split = (size_t)1 << 20;
  return next_random(rng) % 4 == 0 ? log_uniform(rng, c->lo, split) : log_uniform(rng, split, c->hi);
}

/* Reported as 2 threads, per pair (wall time: the threads take turns). */
static bench_result run_handoff(const bench_run *b, const bench_workload *w,
                                const workload_case *c, int threads, bench_allocator *a) {
  uint64_t hits0, misses0, hits1, misses1;
  handoff *h = calloc(1, sizeof *h);
  if (h == NULL) {
    fprintf(stderr, "mrctx bench: out of host memory\n");
    exit(MRCTX_EXIT_FAILURE);
  }
  h->cu = &b->cu;
  h->a = a;
  h->usage.sampled = a->sample_reserved != NULL ? a : NULL;
  uint64_t rng = 0x243F6A8885A308D3ull;
  for (int i = 0; i < HANDOFF_BLOCKS; i++) h->act_size[i] = handoff_size(&rng, c);
  for (int i = 0; i < HANDOFF_BLOCKS; i++) h->grad_size[i] = handoff_size(&rng, c);
  if (!c->legacy_stream) b->cu.cuStreamCreate(&h->stream, CU_STREAM_NON_BLOCKING);
  atomic_init(&h->turn, TURN_FORWARD);
  pthread_t backward;
  pthread_create(&backward, NULL, handoff_backward, h);
  /* Warm up for a fifth of the timed run (at least one step), then time
   * whole steps (at least one). */
  double warm_until = now_ns() + b->o->seconds * 0.2e9;
  do handoff_step(h);
  while (now_ns() < warm_until);
  cache_counts(a, &hits0, &misses0);
  long warm_failures = h->failures, steps = 0;
  double start = now_ns(), deadline = start + b->o->seconds * 1e9, end;
  do {
    handoff_step(h);
    steps++;
    end = now_ns();
  } while (end < deadline);
  cache_counts(a, &hits1, &misses1);
  bench_usage_end(&h->usage);
  pass_turn(h, TURN_STOP);
  pthread_join(backward, NULL);
  b->cu.cuStreamSynchronize(h->stream);
  if (h->stream != NULL) b->cu.cuStreamDestroy(h->stream);
  if (a->trim) a->trim(a->state);
  long pairs = 2L * HANDOFF_BLOCKS * steps; /* each step: 2 x blocks allocations and frees */
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  bench_result r = {.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                    .label = a->label, .threads = 2,
                    .ns_per_op = (end - start) / (double)pairs,
                    .mops = (double)pairs / (end - start) * 1e3, .ops = pairs,
                    .failures = h->failures - warm_failures,
                    .hit_rate = lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN,
                    .peak_requested = (double)h->usage.peak};
  free(h);
  return r;
}

/* ---- trace: a recorded log, replayed with its threads ------------------------ */

/* What a program asked of its allocator, event by event (the GPT training
 * trace by default): replayed as `mrctx replay` replays it, each event on a
 * thread standing for its recorded one, the threads taking turns in the
 * log's order (replay_run.c). Reported per event, wall time over events:
 * the hand-offs between threads are in it, as they were in the program. */

typedef struct trace_state {
  const bench_cuda *cu;
  bench_allocator *a;
} trace_state;

static int trace_allocate(void *state, size_t bytes, mr_stream stream, void **ptr) {
  bench_allocator *a = ((trace_state *)state)->a;
  return a->alloc(a->state, bytes, stream, ptr);
}

static int trace_deallocate(void *state, void *ptr, size_t bytes, mr_stream stream) {
  bench_allocator *a = ((trace_state *)state)->a;
  a->free(a->state, ptr, bytes, stream);
  return 0;
}

/* Each replay thread on a CPU of its own, with device 0's context. */
static bool trace_thread_begin(void *state, size_t index, char *why, size_t cap) {
  const bench_cuda *cu = ((trace_state *)state)->cu;
  pin_to_cpu((int)index);
  CUresult r = cu->cuCtxSetCurrent(cu->context);
  if (r != CUDA_SUCCESS) snprintf(why, cap, "cuCtxSetCurrent failed (CUDA error %d)", (int)r);
  return r == CUDA_SUCCESS;
}

static void trace_sample(void *state) {
  bench_allocator *a = ((trace_state *)state)->a;
  if (a->sample_reserved != NULL) a->sample_reserved(a->state);
}

static bench_result run_trace_replay(const bench_run *b, const bench_workload *w,
                                     const workload_case *c, int threads, bench_allocator *a) {
  (void)threads;
  const replay_log *log = b->trace;
  uint64_t hits0, misses0, hits1, misses1;
  cache_counts(a, &hits0, &misses0);
  trace_state state = {.cu = &b->cu, .a = a};
  replay_target target = {.state = &state, .allocate = trace_allocate,
                          .deallocate = trace_deallocate, .thread_begin = trace_thread_begin,
                          .sample = trace_sample};
  replay_outcome out;
  char why[512];
  bool ok = replay_run(log, &target, b->trace_streams, REPLAY_THREADS_RECORDED, &out, why,
                       sizeof why);
  pin_to_cpu(0); /* the calling thread was the first recorded thread */
  cache_counts(a, &hits1, &misses1);
  b->cu.cuCtxSynchronize(NULL);
  if (a->trim != NULL) a->trim(a->state);
  if (!ok) {
    /* Nothing was replayed: the row says so (failures), and why. */
    printf("mrctx bench: trace: %s: %s\n", a->name, why);
    return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                          .label = a->label, .threads = (int)log->thread_count,
                          .ns_per_op = NAN, .mops = NAN, .failures = 1, .hit_rate = NAN,
                          .peak_requested = NAN};
  }
  double ns = log->event_count > 0 ? out.wall_seconds * 1e9 / (double)log->event_count : NAN;
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                        .label = a->label, .threads = (int)out.threads, .ns_per_op = ns,
                        .mops = 1e3 / ns, .ops = (long)log->event_count,
                        .failures = (long)out.failures,
                        .hit_rate = lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN,
                        .peak_requested = (double)out.peak_requested};
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
  bench_usage usage = {.sampled = a->sample_reserved != NULL ? a : NULL};
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
        } else {
          bench_usage_alloc(&usage, size[i]);
        }
      }
      for (int i = TEMPORARIES; i-- > 0;)
        if (ptr[i]) {
          a->free(a->state, ptr[i], size[i], stream);
          bench_usage_free(&usage, size[i]);
        }
      ops += TEMPORARIES;
      end = now_ns();
    } while (end < deadline);
  }
  bench_usage_end(&usage);
  cu->cuStreamSynchronize(stream);
  cu->cuStreamDestroy(stream);
  if (a->trim) a->trim(a->state);
  return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                        .label = a->label, .threads = 1, .ns_per_op = (end - start) / ops,
                        .mops = ops / (end - start) * 1e3, .ops = ops, .failures = failures,
                        .hit_rate = NAN, .peak_requested = (double)usage.peak};
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
  bench_usage requested = {.sampled = a->sample_reserved != NULL ? a : NULL};
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
        bench_usage_alloc(&requested, n);
        run_ops++;
        continue;
      }
      if (alloc) failures++;
      if (active > 0) { /* free a random live allocation */
        int k = (int)(next_random(&rng) % (uint64_t)active);
        a->free(a->state, ptr[k], size[k], stream);
        usage -= size[k];
        bench_usage_free(&requested, size[k]);
        active--;
        ptr[k] = ptr[active];
        size[k] = size[active];
        run_ops++;
      }
    }
    bench_usage_end(&requested);
    while (active > 0) {
      active--;
      a->free(a->state, ptr[active], size[active], stream);
      bench_usage_free(&requested, size[active]);
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
  return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                        .label = a->label, .threads = 1, .ns_per_op = median,
                        .mops = 1e3 / median, .ops = ops, .failures = failures,
                        .hit_rate = NAN, .peak_requested = (double)requested.peak};
}

/* ---- lookup ----------------------------------------------------------------- */

#define LOOKUPS 20000000L

static volatile uintptr_t lookup_sink;

/* What the lookups and driver calls on every allocation cost. */
typedef enum lookup_kind {
  LOOKUP_CTX_GET_MR,
  LOOKUP_GET_MR_ON,
  LOOKUP_CTX_GET_DEVICE,
  LOOKUP_CTX_GET_CURRENT,   /* a cheaper way to know the current device? */
  LOOKUP_STREAM_GET_ID,     /* the stream identity the reuse adaptors read */
  LOOKUP_STREAM_CAPTURING,  /* the capture check on every allocation */
} lookup_kind;

static bench_result time_lookup(const bench_run *b, const bench_workload *w, const char *allocator,
                                const char *label, lookup_kind which) {
  const bench_cuda *cu = &b->cu;
  mr_context *ctx = b->ctx;
  uintptr_t acc = 0;
  CUdevice device;
  CUcontext current = NULL;
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
  case LOOKUP_CTX_GET_CURRENT:
    for (long i = 0; i < LOOKUPS; i++) {
      cu->cuCtxGetCurrent(&current);
      acc ^= (uintptr_t)current;
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
  return (bench_result){.workload = w->name, .sizes = "", .allocator = allocator, .label = label,
                        .threads = 1, .ns_per_op = ns, .mops = 1e3 / ns, .ops = LOOKUPS,
                        .hit_rate = NAN, .peak_requested = NAN, .peak_reserved = NAN};
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
  bench_usage usage = {.sampled = a->sample_reserved != NULL ? a : NULL};
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
      } else {
        bench_usage_alloc(&usage, sizes[i]);
      }
    }
    for (int i = REQUEST_BLOCKS; i-- > 0;)
      if (ptrs[i] != NULL) {
        a->free(a->state, ptrs[i], sizes[i], stream);
        bench_usage_free(&usage, sizes[i]);
      }
    cu->cuStreamDestroy(stream);
    requests++;
    if ((requests & 63) == 0) end = now_ns();
  }
  end = now_ns();
  bench_usage_end(&usage);
  if (a->trim != NULL) a->trim(a->state);
  double ns = requests > 0 ? (end - start) / requests : NAN;
  return (bench_result){.workload = w->name, .sizes = c->sizes, .allocator = a->name,
                        .label = a->label, .threads = 1, .ns_per_op = ns, .mops = 1e3 / ns,
                        .ops = requests, .failures = failures, .hit_rate = NAN,
                        .peak_requested = (double)usage.peak};
}

/* ---- running a workload ------------------------------------------------------ */

/* One measurement, with the peak reserved bytes around it. */
static bench_result measure(const bench_run *b, const bench_workload *w, const workload_case *c,
                            int threads, bench_allocator *a) {
  memory_mark mark = memory_begin(&b->cu, a);
  bench_result r = w->measure(b, w, c, threads, a);
  r.peak_reserved = memory_end(&b->cu, a, &mark);
  r.run = b->run;
  r.reference = a->reference;
  return r;
}

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
            progress(o, "%s%s, round %d: %s", b->prefix, what, round + 1, list[i]->name);
          else
            progress(o, "%s%s: %s", b->prefix, what, list[i]->name);
          r[i][round] = measure(b, w, c, threads, list[i]);
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
    {"cuCtxGetCurrent", "cuCtxGetCurrent", LOOKUP_CTX_GET_CURRENT},
    {"ctx_get_mr", "ctx_get_mr", LOOKUP_CTX_GET_MR},
    {"mr_context_get_mr_on", "get_mr_on", LOOKUP_GET_MR_ON},
    {"cuStreamGetId", "cuStreamGetId", LOOKUP_STREAM_GET_ID},
    {"cuStreamIsCapturing", "cuStreamIsCapturing", LOOKUP_STREAM_CAPTURING},
};

static void run_lookups(bench_run *b, const bench_workload *w) {
  progress(b->o, "%s%s", b->prefix, w->name);
  for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
    bench_result r = time_lookup(b, w, lookups[i].allocator, lookups[i].label, lookups[i].kind);
    r.run = b->run;
    bench_results_add(&b->results, r);
  }
}

static void run_devices(bench_run *b, const bench_workload *w);

/* The trace workload: its log, where one was read, replayed on each of the
 * workload's allocators once (the log is its own warm-up: a training run's
 * first step is in it). */
static void run_trace(bench_run *b, const bench_workload *w) {
  if (b->trace == NULL) return; /* said when it was looked for */
  workload_case c = w->cases[0];
  c.sizes = b->trace_label;
  for (size_t i = 0; i < MAX_WORKLOAD_ALLOCATORS && w->allocators[i] != ALLOC_NONE; i++) {
    bench_allocator *a = &b->allocators[w->allocators[i]];
    if (a->alloc == NULL) continue; /* a peer that could not be opened */
    progress(b->o, "%s%s: %s", b->prefix, w->name, a->name);
    bench_results_add(&b->results, measure(b, w, &c, (int)b->trace->thread_count, a));
  }
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
                    ALLOC_CACHE_BARE, ALLOC_CACHE_SLABS, ALLOC_DRIVER_CALLS, ALLOC_HOST_CACHE,
                    ALLOC_CUB, ALLOC_CUB_DEFAULT, ALLOC_TORCH},
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false},
               {"8B-4KiB", 8, 4096, false, false},
               {"256B-1MiB legacy", 256, 1 << 20, false, true},
               {"8B-4KiB legacy", 8, 4096, false, true}},
     .live = LIVE_BLOCKS,
     .rounds = true},
    /* The same at 1, 2, 4, 8 and 16 threads (--threads), one stream each. */
    {.name = "threads",
     .baseline = "raw",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_CACHE_BARE, ALLOC_CACHE_EXACT,
                    ALLOC_DRIVER_CALLS, ALLOC_HOST_CACHE, ALLOC_CUB, ALLOC_TORCH},
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false}},
     .live = LIVE_BLOCKS,
     .rounds = true,
     .scale_threads = true},
    /* rmm's random_allocations pattern. */
    {.name = "random",
     .baseline = "raw",
     .run = run_each,
     .measure = run_random,
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CACHE_SLABS, ALLOC_CUB,
                    ALLOC_TORCH},
     .cases = {{"1B-1MiB", 1, 1 << 20, false, false}}},
    /* PyTorch's autograd: allocated on one thread, freed on another. */
    {.name = "handoff",
     .baseline = "raw",
     .run = run_each,
     .measure = run_handoff,
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CUB, ALLOC_TORCH},
     /* run_handoff draws its own mix within lo..hi (see there). */
     .cases = {{"256B-64MiB", 256, (size_t)64 << 20, false, false},
               {"256B-64MiB legacy", 256, (size_t)64 << 20, false, true}}},
    /* Large blocks: 32 live, one thread. */
    {.name = "large",
     .baseline = "raw",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CUB, ALLOC_TORCH},
     .cases = {{"1MiB-256MiB", (size_t)1 << 20, (size_t)256 << 20, true, false}},
     .live = 32},
    /* Pinned host staging buffers. */
    {.name = "pinned",
     .baseline = "cuMemHostAlloc",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_HOST_ALLOC, ALLOC_RAW_PINNED, ALLOC_FIXED, ALLOC_PINNED_CACHE},
     .cases = {{"4KiB-4MiB", 4096, 4 << 20, false, false}},
     .live = 16,
     .rounds = true},
    /* Temporaries: a few allocations per "kernel", freed together. */
    {.name = "arena",
     .baseline = "raw",
     .run = run_each,
     .measure = run_temporaries,
     .allocators = {ALLOC_RAW, ALLOC_ARENA, ALLOC_CACHE},
     .cases = {{"8 x 256B-1MiB", 256, 1 << 20, false, false}},
     .rounds = true},
    /* A stream per request: created, used, destroyed. */
    {.name = "churn",
     .baseline = "raw",
     .run = run_each,
     .measure = run_churn,
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_ARENA},
     .cases = {{"8 x 256B-1MiB", 256, (1 << 20) - 1, false, false}},
     .rounds = true},
    /* What track(...) costs per pair, and its call sites (stacks=8) on top:
     * over cache(host), so no driver call hides it. */
    {.name = "track",
     .baseline = "cache_host",
     .run = run_each,
     .measure = run_pairs,
     .allocators = {ALLOC_HOST_CACHE, ALLOC_TRACK, ALLOC_TRACK_STACKS},
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false}},
     .live = LIVE_BLOCKS,
     .rounds = true},
    /* A recorded log replayed with its threads (--trace; by default the GPT
     * training trace beside the source tree). */
    {.name = "trace",
     .baseline = "raw",
     .run = run_trace,
     .measure = run_trace_replay,
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_TORCH},
     .cases = {{"recorded", 0, 0, false, false}}},
    /* pairs on 1, 2, ... every device at once, a group of threads per
     * device: the aggregate shows how throughput scales with GPUs. */
    {.name = "devices",
     .baseline = "raw",
     .run = run_devices,
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false}},
     .live = LIVE_BLOCKS},
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
  TAG_SLABS,
  TAG_CACHE_EXACT,
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
    [TAG_SLABS] = {"slabs", "cache(bin(device, min=256B, max=1MiB, count=16))"},
    /* The cached tag with exact peaks: what they cost beside the default. */
    [TAG_CACHE_EXACT] = {"cached_exact", "stats(cache(device), peak=exact)"},
};

/* ---- devices: the pairs workload on several devices at once --------------- */

/* Threads in each device's group. */
#define DEVICE_GROUP_THREADS 4
/* At most this many devices are measured (the results' sizes column names
 * the count, from a fixed table). */
#define MAX_BENCH_DEVICES 64

/* One device's share of the devices workload: its primary context, its
 * current pool (the raw baseline) and the benchmark context's cache(device)
 * for it. */
typedef struct bench_device {
  CUcontext context;
  bench_allocator raw, cache;
} bench_device;

/* "3 devices": the results' sizes column (the sizes are the case's,
 * 256B-1MiB), which keeps the rows of each device count apart. Built once;
 * lives as long as the process. */
static const char *devices_label(int devices) {
  static char labels[MAX_BENCH_DEVICES + 1][16];
  if (labels[devices][0] == '\0')
    snprintf(labels[devices], sizeof labels[devices], "%d device%s", devices,
             devices == 1 ? "" : "s");
  return labels[devices];
}

/* Devices 0..devices-1 each run DEVICE_GROUP_THREADS threads of pairs, all
 * at once, each group on its own device's allocator: cache(device), or the
 * raw pool. Throughput is the aggregate over every thread. */
static bench_result run_device_groups(const bench_run *b, const bench_workload *w,
                                      bench_device *dev, int devices, bool cache) {
  const workload_case *c = &w->cases[0];
  int threads = devices * DEVICE_GROUP_THREADS;
  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, (unsigned)threads);
  pair_job *jobs = calloc((size_t)threads, sizeof *jobs);
  pthread_t *tids = calloc((size_t)threads, sizeof *tids);
  if (jobs == NULL || tids == NULL) {
    fprintf(stderr, "mrctx bench: out of host memory\n");
    exit(MRCTX_EXIT_FAILURE);
  }
  for (int t = 0; t < threads; t++) {
    bench_device *d = &dev[t / DEVICE_GROUP_THREADS];
    jobs[t] = (pair_job){.index = t, .cu = &b->cu, .context = d->context,
                         .allocator = cache ? &d->cache : &d->raw, .sizes = c, .live = w->live,
                         .seconds = b->o->seconds, .ready = &ready,
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
  for (int i = 0; i < devices; i++) {
    bench_allocator *a = cache ? &dev[i].cache : &dev[i].raw;
    if (a->trim) a->trim(a->state);
  }
  const bench_allocator *a = cache ? &dev[0].cache : &dev[0].raw;
  return (bench_result){.workload = w->name, .sizes = devices_label(devices),
                        .allocator = a->name, .label = a->label, .threads = threads,
                        .run = b->run, .ns_per_op = per_thread_ns / threads,
                        .mops = (double)pairs / longest * 1e3, .ops = pairs,
                        .failures = failures, .hit_rate = NAN, .peak_requested = NAN,
                        .peak_reserved = NAN};
}

/* The devices workload: for 1, 2, ... every device, the raw pools and
 * cache(device) (the benchmark context's tag, kept per device), each
 * device's group of threads bound to it. */
static void run_devices(bench_run *b, const bench_workload *w) {
  const bench_cuda *cu = &b->cu;
  int count = 0;
  if (mr_device_count(&count) != MR_OK || count < 1) {
    printf("mrctx bench: devices: %s\n", mr_last_error());
    return;
  }
  if (count > MAX_BENCH_DEVICES) count = MAX_BENCH_DEVICES;
  bench_device *dev = calloc((size_t)count, sizeof *dev);
  if (dev == NULL) {
    fprintf(stderr, "mrctx bench: out of host memory\n");
    exit(MRCTX_EXIT_FAILURE);
  }
  /* As for device 0 (bench_cuda_open), the raw pools keep freed memory. */
  cuuint64_t keep_all = UINT64_MAX;
  for (int d = 0; d < count; d++) {
    CUdevice device;
    CUmemoryPool pool = NULL;
    CUmemLocation where = {.type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d};
    CUresult r = cu->cuDeviceGet(&device, d);
    if (r == CUDA_SUCCESS) r = cu->cuDevicePrimaryCtxRetain(&dev[d].context, device);
    if (r == CUDA_SUCCESS) r = cu->cuMemGetMemPool(&pool, &where, CU_MEM_ALLOCATION_TYPE_PINNED);
    if (r == CUDA_SUCCESS)
      r = cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep_all);
    if (r != CUDA_SUCCESS) {
      printf("mrctx bench: devices: cannot set up device %d (CUDA error %d)\n", d, (int)r);
      count = d;
      break;
    }
    dev[d].raw = bench_pool_allocator("cuMemAllocFromPoolAsync (raw pool)", "raw", cu, pool);
    dev[d].cache = bench_resource_allocator("mrctx cache(device), per-tag stats", "cache", cu,
                                            mr_context_get_mr_on(b->ctx, TAG_CACHE, d));
  }
  for (int devices = 1; devices <= count; devices++) {
    for (int which = 0; which < 2; which++) {
      progress(b->o, "%s%s %d: %s", b->prefix, w->name, devices,
               which ? dev[0].cache.name : dev[0].raw.name);
      bench_results_add(&b->results,
                        run_device_groups(b, w, dev, devices, which == 1));
    }
  }
  for (int d = 0; d < count; d++) {
    bench_allocator_close(&dev[d].raw);
    bench_allocator_close(&dev[d].cache);
  }
  free(dev);
  cu->cuCtxSetCurrent(cu->context);
}

/* One run's value of a row (NaN if it is missing, had failures, or the
 * value is unknown). */
static const bench_result *row_of(const bench_results *r, int run, const char *workload,
                                  const char *sizes, const char *label, int threads) {
  const bench_result *x = bench_results_find(r, run, workload, sizes, label, threads);
  return x != NULL && x->failures == 0 ? x : NULL;
}

static double ns_of(const bench_results *r, int run, const char *workload, const char *sizes,
                    const char *label, int threads) {
  const bench_result *x = row_of(r, run, workload, sizes, label, threads);
  return x != NULL ? x->ns_per_op : NAN;
}

static double mops_of(const bench_results *r, int run, const char *workload, const char *sizes,
                      const char *label, int threads) {
  const bench_result *x = row_of(r, run, workload, sizes, label, threads);
  return x != NULL ? x->mops : NAN;
}

static double reserved_ratio_of(const bench_results *r, int run, const char *workload,
                                const char *sizes, const char *label, int threads) {
  const bench_result *x = row_of(r, run, workload, sizes, label, threads);
  return x != NULL ? x->peak_reserved / x->peak_requested : NAN;
}

static double hit_percent_of(const bench_results *r, int run, const char *workload,
                             const char *sizes, const char *label, int threads) {
  const bench_result *x = row_of(r, run, workload, sizes, label, threads);
  return x != NULL ? x->hit_rate * 100 : NAN;
}

/* rmm 25.10's pool_memory_resource (4 GiB initial), ns per pair at one
 * thread, 256 B-1 MiB, 64 live: measured on the same kind of H200 on
 * 2026-12-02 by a separate program (issue 11), not by this command. The
 * issue's target is against it. */
#define RMM_POOL_NS_QUOTED 644.0

/* Add one target's value in run `run` (its description is the same in
 * every run). */
static void target(bench_target *t, size_t *n, int run, const char *what, double measured,
                   double wanted, bool at_most, const char *unit) {
  bench_target *x = &t[(*n)++];
  x->what = what;
  x->wanted = wanted;
  x->at_most = at_most;
  x->unit = unit;
  x->every_run = false;
  x->measured[run] = measured;
}

/* The targets, measured in run `run`. Returns how many. */
static size_t make_targets(const bench_results *r, int run, bench_target *t) {
  size_t n = 0;
  const char *big = "256B-1MiB";
  double get_on = ns_of(r, run, "lookup", "", "get_mr_on", 1);
  double get = ns_of(r, run, "lookup", "", "ctx_get_mr", 1);
  double device = ns_of(r, run, "lookup", "", "cuCtxGetDevice", 1);
  target(t, &n, run, "mr_context_get_mr_on", get_on, 2.0, true, "ns");
  target(t, &n, run, "ctx_get_mr minus cuCtxGetDevice", get - device, 2.0, true, "ns");
  /* The cache reads the stream's ID on allocate and free: 2 calls a pair. */
  double stream_id = ns_of(r, run, "lookup", "", "cuStreamGetId", 1);
  target(t, &n, run, "stream identity per pair (2 x cuStreamGetId)", 2 * stream_id, 60, true,
         "ns");
  double raw = ns_of(r, run, "pairs", big, "raw", 1);
  double routed = ns_of(r, run, "pairs", big, "device", 1);
  target(t, &n, run, "context -> device over the raw pool", routed / raw, 1.02, true, "x");
  double cache = ns_of(r, run, "pairs", big, "cache", 1);
  double cub = ns_of(r, run, "pairs", big, "cub", 1);
  target(t, &n, run, "cache(device) vs raw pool, 1 thread", raw / cache, 30, false, "x");
  target(t, &n, run, "cache(device) vs cub (no cap), 1 thread", cub / cache, 10, false, "x");
  target(t, &n, run, "cache(device) vs rmm pool (644 ns, quoted)", RMM_POOL_NS_QUOTED / cache,
         10, false, "x");
  double raw16 = mops_of(r, run, "threads", big, "raw", 16);
  double cache16 = mops_of(r, run, "threads", big, "cache", 16);
  double cache1 = mops_of(r, run, "threads", big, "cache", 1);
  target(t, &n, run, "cache(device) vs raw pool, 16 threads aggregate", cache16 / raw16, 1000,
         false, "x");
  target(t, &n, run, "cache(device) scaling 1 -> 16 threads", cache16 / cache1, 12, false, "x");
  t[n - 1].every_run = true; /* the issue: "in every one of the 5 runs" */
  double random_raw = ns_of(r, run, "random", "1B-1MiB", "raw", 1);
  double random_cache = ns_of(r, run, "random", "1B-1MiB", "cache", 1);
  target(t, &n, run, "random: cache(device) vs raw pool", random_raw / random_cache, 10, false,
         "x");
  double arena_raw = ns_of(r, run, "arena", "8 x 256B-1MiB", "raw", 1);
  double arena = ns_of(r, run, "arena", "8 x 256B-1MiB", "arena", 1);
  target(t, &n, run, "arena(device) vs raw pool", arena_raw / arena, 40, false, "x");
  double host = ns_of(r, run, "pinned", "4KiB-4MiB", "cuMemHostAlloc", 1);
  double fixed = ns_of(r, run, "pinned", "4KiB-4MiB", "fixed", 1);
  double pcache = ns_of(r, run, "pinned", "4KiB-4MiB", "cache_pinned", 1);
  double staging = fmin(isnan(fixed) ? INFINITY : fixed, isnan(pcache) ? INFINITY : pcache);
  target(t, &n, run, "pinned staging (fixed or cache) vs cuMemHostAlloc",
         isfinite(staging) ? host / staging : NAN, 500, false, "x");
  double stats1 = ns_of(r, run, "pairs", big, "cache", 1);
  double bare1 = ns_of(r, run, "pairs", big, "cache_bare", 1);
  target(t, &n, run, "per-tag statistics, 1 thread", (stats1 - bare1) / bare1 * 100, 10, true,
         "%");
  double stats16 = ns_of(r, run, "threads", big, "cache", 16);
  double bare16 = ns_of(r, run, "threads", big, "cache_bare", 16);
  target(t, &n, run, "per-tag statistics, 16 threads", (stats16 - bare16) / bare16 * 100, 20,
         true, "%");
  target(t, &n, run, "cache(device) reserved/requested, pairs",
         reserved_ratio_of(r, run, "pairs", big, "cache", 1), 1.15, true, "x");
  target(t, &n, run, "cache(device) reserved/requested, random",
         reserved_ratio_of(r, run, "random", "1B-1MiB", "cache", 1), 1.15, true, "x");
  target(t, &n, run, "cache(device) reserved/requested, handoff",
         reserved_ratio_of(r, run, "handoff", "256B-64MiB", "cache", 2), 1.15, true, "x");
  /* Issue 22: the patterns training makes, against PyTorch's allocator. */
  double torch_pairs = ns_of(r, run, "pairs", big, "torch", 1);
  target(t, &n, run, "pairs: cache(device) vs PyTorch", torch_pairs / cache, 5, false, "x");
  /* A cached pair on the legacy stream: 8 B-4 KiB, where every request
   * finds its class on the thread's stack. */
  target(t, &n, run, "cached pair, legacy stream: cache(device)",
         ns_of(r, run, "pairs", "8B-4KiB legacy", "cache", 1), 40, true, "ns");
  target(t, &n, run, "cached pair, legacy stream: cache(device), no stats",
         ns_of(r, run, "pairs", "8B-4KiB legacy", "cache_bare", 1), 40, true, "ns");
  const char *hand = "256B-64MiB";
  target(t, &n, run, "handoff: cache(device) hits", hit_percent_of(r, run, "handoff", hand, "cache", 2),
         99, false, "%");
  target(t, &n, run, "handoff: cache(device) time vs PyTorch",
         ns_of(r, run, "handoff", hand, "cache", 2) / ns_of(r, run, "handoff", hand, "torch", 2), 0.5,
         true, "x");
  target(t, &n, run, "handoff: reserved/requested vs PyTorch's",
         reserved_ratio_of(r, run, "handoff", hand, "cache", 2) /
             reserved_ratio_of(r, run, "handoff", hand, "torch", 2),
         1.0, true, "x");
  const char *large = "1MiB-256MiB";
  target(t, &n, run, "large: cache(device) hits", hit_percent_of(r, run, "large", large, "cache", 1),
         95, false, "%");
  target(t, &n, run, "large: cache(device) time vs PyTorch",
         ns_of(r, run, "large", large, "cache", 1) / ns_of(r, run, "large", large, "torch", 1), 0.5,
         true, "x");
  target(t, &n, run, "large: cache(device) reserved/requested",
         reserved_ratio_of(r, run, "large", large, "cache", 1), 1.15, true, "x");
  return n;
}

#define MAX_TARGETS 36

static void usage(FILE *out) {
  fputs("usage: mrctx bench [--seconds S] [--threads N] [--runs N] [--only LIST]\n"
        "                   [--trace FILE] [--json FILE] [--svg FILE] [--quiet]\n"
        "\n"
        "Times mrctx's resources against the raw driver pools, cuMemHostAlloc, cub's\n"
        "CachingDeviceAllocator and PyTorch's caching allocator (where built) on\n"
        "device 0 (devices: on 1, 2, ... every device at once), with each one's\n"
        "peak reserved memory, and checks the targets.\n"
        "\n"
        "  --seconds S   time per measurement (default 0.25; most are taken three\n"
        "                times, interleaved, and the median kept)\n"
        "  --threads N   largest thread count in the scaling run (default 16)\n"
        "  --runs N      run the whole suite N times, 1..100 (default 1); rows show\n"
        "                the median and spread, targets are judged on the median\n",
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
        "  --trace FILE  the allocation log the trace workload replays with its\n"
        "                threads (rmm's CSV format, gzip-compressed or not); by\n"
        "                default $MRCTX_BENCH_TRACE, else the GPT training trace\n"
        "                in ../shared/data beside the source tree, where found\n"
        "  --json FILE   write every run's results and the targets as JSON\n"
        "  --svg FILE    draw thread scaling and ns per pair as an SVG chart\n"
        "  --quiet       no progress on stderr\n"
        "\n"
        "MRCTX_BENCH_MEMORY overrides the benchmark's tags (device, device_default,\n"
        "cached, temp, staging, staging_cache, slabs) like any library's variable.\n",
        out);
}

/* Read the options into `o`, `json` and `svg`. Returns -1 to go on, or the
 * exit status (help, or a usage error). */
static int parse_options(int argc, char **argv, bench_options *o, const char **json,
                         const char **svg) {
  static const struct option longopts[] = {
      {"seconds", required_argument, NULL, 's'}, {"threads", required_argument, NULL, 't'},
      {"runs", required_argument, NULL, 'r'},    {"only", required_argument, NULL, 'o'},
      {"json", required_argument, NULL, 'j'},    {"svg", required_argument, NULL, 'g'},
      {"quiet", no_argument, NULL, 'q'},         {"help", no_argument, NULL, 'h'},
      {"trace", required_argument, NULL, 'T'},   {NULL, 0, NULL, 0},
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
    case 'r': {
      char *end;
      long runs = strtol(optarg, &end, 10);
      if (end == optarg || *end != '\0' || runs < 1 || runs > BENCH_MAX_RUNS) {
        fprintf(stderr, "mrctx bench: --runs wants 1..%d, not '%s'\n", BENCH_MAX_RUNS, optarg);
        return 2;
      }
      o->runs = (int)runs;
      break;
    }
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
    case 'T':
      if (optarg[0] == '\0') {
        fprintf(stderr, "mrctx bench: --trace wants the allocation log to replay\n");
        return 2;
      }
      o->trace = optarg;
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
  al[ALLOC_RAW] = bench_pool_allocator("cuMemAllocFromPoolAsync (raw pool)", "raw", cu,
                                       cu->device_pool);
  al[ALLOC_DEVICE] =
      bench_tag_allocator("mrctx ctx_get_mr -> device", "device", cu, ctx, TAG_DEVICE);
  al[ALLOC_DEVICE_DEFAULT] = bench_tag_allocator(
      "mrctx ctx_get_mr -> device_default", "device_default", cu, ctx, TAG_DEVICE_DEFAULT);
  al[ALLOC_CACHE] = bench_resource_allocator("mrctx cache(device), per-tag stats", "cache", cu,
                                             mr_context_get_mr_on(ctx, TAG_CACHE, 0));
  al[ALLOC_CACHE_LOOKUP] = bench_tag_allocator("mrctx ctx_get_mr -> cache(device)",
                                               "cache_lookup", cu, ctx, TAG_CACHE);
  /* The same chain as the context's cached tag (retry(cache(device)), the
   * retry being the default one), built directly: without per-tag
   * statistics, so the difference is what the statistics cost. */
  if (mr_device_resource_create(0, &b->device_mr) != MR_OK ||
      mr_cache_resource_create(b->device_mr, 0, &b->cache_mr) != MR_OK ||
      mr_retry_resource_create(b->cache_mr, 0, NULL, NULL, &b->bare_cache) != MR_OK) {
    printf("mrctx bench: %s\n", mr_last_error());
    return false;
  }
  al[ALLOC_CACHE_BARE] = bench_resource_allocator("mrctx cache(device), no stats", "cache_bare",
                                                  cu, b->bare_cache);
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
      bench_resource_allocator("mrctx cache(bin(device, ...)), slabs",
                               "cache_slabs", cu, mr_context_get_mr_on(ctx, TAG_SLABS, 0));
  al[ALLOC_ARENA] = bench_resource_allocator("mrctx arena(device, chunk=64MiB)", "arena", cu,
                                             mr_context_get_mr_on(ctx, TAG_ARENA, 0));
  al[ALLOC_RAW_PINNED] = bench_pool_allocator("cuMemAllocFromPoolAsync (pinned pool)",
                                              "raw_pinned", cu, cu->pinned_pool);
  al[ALLOC_HOST_ALLOC] = bench_host_alloc_allocator(cu);
  al[ALLOC_DRIVER_CALLS] = bench_stream_query_allocator(cu);
  al[ALLOC_FIXED] =
      bench_resource_allocator("mrctx fixed(pinned, block=4MiB, count=32)", "fixed", cu,
                               mr_context_get_mr_on(ctx, TAG_STAGING_FIXED, 0));
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
  mr_resource_release(b->device_mr);
  mr_resource_release(b->track_stacks);
  mr_resource_release(b->track);
  b->track = b->track_stacks = NULL;
  mr_resource_release(b->host_cache);
  mr_resource_release(b->host_mr);
  b->bare_cache = b->cache_mr = b->device_mr = b->host_cache = b->host_mr = NULL;
}

/* The benchmark's context for one run (fresh in each, as its allocators). */
static bool create_context(bench_run *b) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mrctx-bench",
                          .tags = bench_tags,
                          .tag_count = TAG_COUNT,
                          .env_var = "MRCTX_BENCH_MEMORY"};
  if (mr_context_create(&desc, &b->ctx) != MR_OK) {
    printf("mrctx bench: cannot create the benchmark's context:\n%s\n", mr_last_error());
    return false;
  }
  return true;
}

#ifndef MRCTX_BENCH_TRACE_DEFAULT
#define MRCTX_BENCH_TRACE_DEFAULT "../shared/data/gpt-training-trace.csv.gz"
#endif

/* The trace workload's log, read once for every run: --trace FILE, which
 * must read; else $MRCTX_BENCH_TRACE or the GPT training trace beside the
 * source tree, where found: where not, the workload is skipped with a line
 * saying why. False if --trace's log could not be used (the reason
 * printed). */
static bool open_trace(bench_run *b, replay_log *log, mr_stream **streams) {
  const bench_options *o = b->o;
  const char *path = o->trace;
  if (path == NULL) path = getenv("MRCTX_BENCH_TRACE");
  if (path == NULL || path[0] == '\0') path = MRCTX_BENCH_TRACE_DEFAULT;
  char why[1024];
  bool ok = replay_log_read(path, false, log, why, sizeof why);
  if (ok && (*streams = calloc(log->stream_count ? log->stream_count : 1, sizeof **streams)) ==
                NULL) {
    snprintf(why, sizeof why, "out of host memory");
    replay_log_free(log);
    ok = false;
  }
  if (ok && !replay_streams_create(0, log->streams, log->stream_count, *streams, why,
                                   sizeof why)) {
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

static void close_trace(bench_run *b, replay_log *log, mr_stream *streams) {
  if (b->trace == NULL) return;
  replay_streams_destroy(log->streams, log->stream_count, streams);
  free(streams);
  replay_log_free(log);
  b->trace = NULL;
  b->trace_streams = NULL;
}

/* One run of the suite: fresh context and allocators, every selected
 * workload, everything given back. False if mrctx's own could not be made. */
static bool run_suite(bench_run *b) {
  if (b->ctx == NULL && !create_context(b)) return false;
  bool ok = open_allocators(b);
  pin_to_cpu(0); /* the single-threaded workloads run on this thread */
  if (ok)
    for (size_t i = 0; i < WORKLOAD_COUNT; i++)
      if (selected(b->o, workloads[i].name)) workloads[i].run(b, &workloads[i]);
  close_allocators(b);
  mr_context_destroy(b->ctx);
  b->ctx = NULL;
  trim_pools(&b->cu);
  return ok;
}

int mrctx_cmd_bench(int argc, char **argv) {
  bench_options o = {.seconds = 0.25, .max_threads = 16, .runs = 1};
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
  /* The first run's context is made before the first line, so that a bad
   * MRCTX_BENCH_MEMORY is all a failed start prints. */
  if (!create_context(&b)) return 1;
  printf("mrctx bench: %s, driver %d.%d, mrctx %s, %.2f s per measurement", b.cu.device_name,
         b.cu.version / 1000, (b.cu.version % 1000) / 10, mr_version(), o.seconds);
  if (o.runs > 1) printf(", %d runs", o.runs);
  putchar('\n');

  replay_log trace_log;
  mr_stream *trace_streams = NULL;
  if (selected(&o, "trace") && !open_trace(&b, &trace_log, &trace_streams)) {
    mr_context_destroy(b.ctx);
    return 1;
  }

  static bench_target targets[MAX_TARGETS];
  size_t ntargets = 0;
  bool ok = true;
  for (int run = 0; run < o.runs && ok; run++) {
    b.run = run;
    if (o.runs > 1) snprintf(b.prefix, sizeof b.prefix, "run %d/%d: ", run + 1, o.runs);
    ok = run_suite(&b);
    if (ok) {
      b.results.runs = run + 1;
      ntargets = make_targets(&b.results, run, targets);
    }
  }
  progress(&o, "%s", "");
  if (!ok) {
    close_trace(&b, &trace_log, trace_streams);
    free(b.results.items);
    return 1;
  }

  bench_print_table(stdout, &b.results);
  bench_print_targets(stdout, targets, ntargets, o.runs);
  int rc = 0;
  if (json != NULL && !bench_write_json(json, &b.cu, &b.results, targets, ntargets)) rc = 1;
  if (svg != NULL && !bench_write_svg(svg, &b.results)) rc = 1;
  close_trace(&b, &trace_log, trace_streams);
  free(b.results.items);
  return rc;
}
