/*
 * bench_workloads.c: the workloads of `mrctx bench`, and their table
 * (`bench_workloads`, at the end): --only and --help take their names from
 * it, a run of the suite goes through it in order, and each result row
 * carries its workload's baseline label for the report. A workload is a
 * measure function (one allocator, one case, some threads: a result) that
 * bench_run_each calls for each of its allocators, or a run function of
 * its own (lookup, trace, devices).
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "commands.h"
#include "replay_run.h"

#define LIVE_BLOCKS 64
#define BATCH 64

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

/* Where a pair thread's sizes come from: lo plus a uniform draw below
 * span, or the table (log-uniform sizes). */
typedef struct size_draw {
  size_t lo, span;
  const size_t *table;
} size_draw;

/* The next request's size: uniform with a modulo, or from the table. */
static inline size_t next_size(uint64_t *rng, const size_draw *d) {
  return d->table != NULL ? d->table[bench_next_random(rng) & (SIZE_TABLE - 1)]
                          : d->lo + bench_next_random(rng) % d->span;
}

/* BATCH pairs: a random one of the live blocks freed, a new one allocated
 * in its place. Forced inline into both loops of pair_thread, the warm-up
 * and the timed one, so the timed loop makes no call of its own. Returns
 * the allocations that failed. */
static inline __attribute__((always_inline)) long
pair_batch(bench_allocator *a, CUstream stream, void **ptr, size_t *size, unsigned mask,
           uint64_t *rng, const size_draw *d, bench_usage *usage) {
  long failures = 0;
  for (int i = 0; i < BATCH; i++) {
    unsigned k = (unsigned)bench_next_random(rng) & mask;
    if (ptr[k]) {
      a->free(a->state, ptr[k], size[k], stream);
      bench_usage_free(usage, size[k]);
    }
    size[k] = next_size(rng, d);
    if (a->alloc(a->state, size[k], stream, &ptr[k])) {
      ptr[k] = NULL;
      failures++;
    } else {
      bench_usage_alloc(usage, size[k]);
    }
  }
  return failures;
}

static void *pair_thread(void *arg) {
  pair_job *j = arg;
  bench_allocator *a = j->allocator;
  bench_pin_to_cpu(j->index);
  j->cu->cuCtxSetCurrent(j->context);
  CUstream stream = NULL;
  if (!j->sizes->legacy_stream) j->cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING);
  void *ptr[LIVE_BLOCKS] = {0};
  size_t size[LIVE_BLOCKS] = {0};
  uint64_t rng = j->seed;
  size_t *table = NULL;
  if (j->sizes->log_uniform && (table = malloc(SIZE_TABLE * sizeof *table)) != NULL)
    for (int i = 0; i < SIZE_TABLE; i++)
      table[i] = bench_log_uniform(&rng, j->sizes->lo, j->sizes->hi);
  const size_draw draw = {j->sizes->lo, j->sizes->hi - j->sizes->lo + 1, table};
  bench_usage usage = {.sampled = j->sample && a->sample_reserved != NULL ? a : NULL};
  unsigned mask = (unsigned)j->live - 1; /* live is a power of two */
  /* Fill, then warm up: the caches and pools reach their steady state. */
  for (int k = 0; k < j->live; k++) {
    size[k] = next_size(&rng, &draw);
    if (a->alloc(a->state, size[k], stream, &ptr[k]))
      ptr[k] = NULL;
    else
      bench_usage_alloc(&usage, size[k]);
  }
  /* Warm up for a fifth of the timed run: caches reach their steady state
   * (every size class stocked) before the clock starts. */
  double warm_until = bench_now_ns() + j->seconds * 0.2e9;
  do pair_batch(a, stream, ptr, size, mask, &rng, &draw, &usage);
  while (bench_now_ns() < warm_until);
  pthread_barrier_wait(j->ready);
  double start = bench_now_ns(), deadline = start + j->seconds * 1e9, end;
  long pairs = 0, failures = 0;
  do {
    failures += pair_batch(a, stream, ptr, size, mask, &rng, &draw, &usage);
    pairs += BATCH;
    end = bench_now_ns();
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

/* Host memory the benchmark cannot go on without. */
static void *must_calloc(size_t count, size_t size) {
  void *p = calloc(count, size);
  if (p == NULL) {
    fprintf(stderr, "mrctx bench: out of host memory\n");
    exit(MRCTX_EXIT_FAILURE);
  }
  return p;
}

/* What the threads of a pairs measurement did, added up. */
typedef struct pair_totals {
  long pairs, failures;
  double longest;       /* the longest thread's elapsed ns: aggregate rate */
  double per_thread_ns; /* the sum of each thread's ns per pair */
} pair_totals;

/* The row of `threads` threads' pairs: per thread and in aggregate. */
static bench_result pairs_row(const bench_workload *w, const char *sizes, const bench_allocator *a,
                              int threads, pair_totals s, double hit_rate, double peak_requested) {
  return (bench_result){.workload = w->name,
                        .sizes = sizes,
                        .allocator = a->name,
                        .label = a->label,
                        .threads = threads,
                        .ns_per_op = s.per_thread_ns / threads,
                        .mops = (double)s.pairs / s.longest * 1e3,
                        .ops = s.pairs,
                        .failures = s.failures,
                        .hit_rate = hit_rate,
                        .peak_requested = peak_requested};
}

/* Run `threads` jobs of pair_thread at once (their clocks start together,
 * at a barrier) and add up what they did. */
static pair_totals run_pair_jobs(pair_job *jobs, int threads) {
  pthread_barrier_t ready;
  pthread_barrier_init(&ready, NULL, (unsigned)threads);
  pthread_t *tids = must_calloc((size_t)threads, sizeof *tids);
  for (int t = 0; t < threads; t++) {
    jobs[t].ready = &ready;
    pthread_create(&tids[t], NULL, pair_thread, &jobs[t]);
  }
  pair_totals s = {0, 0, 0, 0};
  for (int t = 0; t < threads; t++) {
    pthread_join(tids[t], NULL);
    s.pairs += jobs[t].pairs;
    s.failures += jobs[t].failures;
    if (jobs[t].elapsed > s.longest) s.longest = jobs[t].elapsed;
    s.per_thread_ns += jobs[t].elapsed / (double)jobs[t].pairs;
  }
  pthread_barrier_destroy(&ready);
  free(tids);
  return s;
}

static bench_result run_pairs(const bench_run *b, const bench_workload *w, const workload_case *c,
                              int threads, bench_allocator *a) {
  uint64_t hits0, misses0, hits1, misses1;
  bench_cache_counts(a, &hits0, &misses0);
  pair_job *jobs = must_calloc((size_t)threads, sizeof *jobs);
  for (int t = 0; t < threads; t++)
    jobs[t] = (pair_job){.index = t,
                         .cu = &b->cu,
                         .context = b->cu.context,
                         .allocator = a,
                         .sizes = c,
                         .live = w->live,
                         .sample = threads == 1,
                         .seconds = b->o->seconds,
                         .seed = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1)};
  pair_totals s = run_pair_jobs(jobs, threads);
  /* Each thread knows its own peak; the peaks of several need not coincide,
   * so their sum would overstate what was live at once. */
  double requested = threads == 1 ? (double)jobs[0].peak_requested : NAN;
  free(jobs);
  bench_cache_counts(a, &hits1, &misses1);
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  if (a->trim) a->trim(a->state);
  return pairs_row(w, c->sizes, a, threads, s,
                   lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN, requested);
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
  bench_pin_to_cpu(1);
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
  return bench_next_random(rng) % 4 == 0 ? bench_log_uniform(rng, c->lo, split)
                                         : bench_log_uniform(rng, split, c->hi);
}

/* Reported as 2 threads, per pair (wall time: the threads take turns). */
static bench_result run_handoff(const bench_run *b, const bench_workload *w, const workload_case *c,
                                int threads, bench_allocator *a) {
  uint64_t hits0, misses0, hits1, misses1;
  handoff *h = must_calloc(1, sizeof *h);
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
  double warm_until = bench_now_ns() + b->o->seconds * 0.2e9;
  do handoff_step(h);
  while (bench_now_ns() < warm_until);
  bench_cache_counts(a, &hits0, &misses0);
  long warm_failures = h->failures, steps = 0;
  double start = bench_now_ns(), deadline = start + b->o->seconds * 1e9, end;
  do {
    handoff_step(h);
    steps++;
    end = bench_now_ns();
  } while (end < deadline);
  bench_cache_counts(a, &hits1, &misses1);
  bench_usage_end(&h->usage);
  pass_turn(h, TURN_STOP);
  pthread_join(backward, NULL);
  b->cu.cuStreamSynchronize(h->stream);
  if (h->stream != NULL) b->cu.cuStreamDestroy(h->stream);
  if (a->trim) a->trim(a->state);
  long pairs = 2L * HANDOFF_BLOCKS * steps; /* each step: 2 x blocks allocations and frees */
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  bench_result r = {.workload = w->name,
                    .sizes = c->sizes,
                    .allocator = a->name,
                    .label = a->label,
                    .threads = 2,
                    .ns_per_op = (end - start) / (double)pairs,
                    .mops = (double)pairs / (end - start) * 1e3,
                    .ops = pairs,
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
  bench_pin_to_cpu((int)index);
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
  bench_cache_counts(a, &hits0, &misses0);
  trace_state state = {.cu = &b->cu, .a = a};
  replay_target target = {.state = &state,
                          .allocate = trace_allocate,
                          .deallocate = trace_deallocate,
                          .thread_begin = trace_thread_begin,
                          .sample = trace_sample};
  replay_outcome out;
  char why[512];
  bool ok =
      replay_run(log, &target, b->trace_streams, REPLAY_THREADS_RECORDED, &out, why, sizeof why);
  bench_pin_to_cpu(0); /* the calling thread was the first recorded thread */
  bench_cache_counts(a, &hits1, &misses1);
  b->cu.cuCtxSynchronize(NULL);
  if (a->trim != NULL) a->trim(a->state);
  if (!ok) {
    /* Nothing was replayed: the row says so (failures), and why. */
    printf("mrctx bench: trace: %s: %s\n", a->name, why);
    return (bench_result){.workload = w->name,
                          .sizes = c->sizes,
                          .allocator = a->name,
                          .label = a->label,
                          .threads = (int)log->thread_count,
                          .ns_per_op = NAN,
                          .mops = NAN,
                          .failures = 1,
                          .hit_rate = NAN,
                          .peak_requested = NAN};
  }
  double ns = log->event_count > 0 ? out.wall_seconds * 1e9 / (double)log->event_count : NAN;
  double lookups = (double)(hits1 - hits0 + misses1 - misses0);
  return (bench_result){.workload = w->name,
                        .sizes = c->sizes,
                        .allocator = a->name,
                        .label = a->label,
                        .threads = (int)out.threads,
                        .ns_per_op = ns,
                        .mops = 1e3 / ns,
                        .ops = (long)log->event_count,
                        .failures = (long)out.failures,
                        .hit_rate = lookups > 0 ? (double)(hits1 - hits0) / lookups : NAN,
                        .peak_requested = (double)out.peak_requested};
}

/* ---- arena: temporaries of one "kernel", freed together ------------------- */

#define TEMPORARIES 8

/* The row of a one-thread measurement: `ops` operations at `ns` each. */
static bench_result one_thread_row(const bench_workload *w, const workload_case *c,
                                   const bench_allocator *a, double ns, long ops, long failures,
                                   double peak_requested) {
  return (bench_result){.workload = w->name,
                        .sizes = c->sizes,
                        .allocator = a->name,
                        .label = a->label,
                        .threads = 1,
                        .ns_per_op = ns,
                        .mops = 1e3 / ns,
                        .ops = ops,
                        .failures = failures,
                        .hit_rate = NAN,
                        .peak_requested = peak_requested};
}

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
    double deadline = bench_now_ns() + (round == 0 ? 0.05 : b->o->seconds) * 1e9;
    start = bench_now_ns();
    ops = failures = 0;
    do {
      for (int i = 0; i < TEMPORARIES; i++) {
        size[i] = c->lo + bench_next_random(&rng) % (c->hi - c->lo + 1);
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
      end = bench_now_ns();
    } while (end < deadline);
  }
  bench_usage_end(&usage);
  cu->cuStreamSynchronize(stream);
  cu->cuStreamDestroy(stream);
  if (a->trim) a->trim(a->state);
  return one_thread_row(w, c, a, (end - start) / ops, ops, failures, (double)usage.peak);
}

/* ---- random: rmm's random_allocations pattern ------------------------------ */

#define RANDOM_ALLOCATIONS 10000
#define RANDOM_MAX_USAGE ((size_t)4 << 30)

/* As rmm's benchmark: 2N steps; each allocates (73%, while under N
 * allocations and the usage cap) a uniformly random size, or frees a random
 * live allocation. Reported per operation (allocations + frees). */
static bench_result run_random(const bench_run *b, const bench_workload *w, const workload_case *c,
                               int threads, bench_allocator *a) {
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
    double start = bench_now_ns();
    for (int i = 0; i < 2 * allocations; i++) {
      size_t n = c->lo + bench_next_random(&rng) % (c->hi - c->lo + 1);
      bool alloc = active == 0 || ((int)(bench_next_random(&rng) % 100) < 73 &&
                                   made < allocations && usage + n < max_usage);
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
        int k = (int)(bench_next_random(&rng) % (uint64_t)active);
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
    per_op[run] = (bench_now_ns() - start) / (double)run_ops;
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
  return one_thread_row(w, c, a, median, ops, failures, (double)requested.peak);
}

/* ---- lookup ----------------------------------------------------------------- */

#define LOOKUPS 20000000L

static volatile uintptr_t lookup_sink;

/* What the lookups and driver calls on every allocation cost. */
typedef enum lookup_kind {
  LOOKUP_CTX_GET_MR,
  LOOKUP_GET_MR_ON,
  LOOKUP_CTX_GET_DEVICE,
  LOOKUP_CTX_GET_CURRENT,  /* a cheaper way to know the current device? */
  LOOKUP_STREAM_GET_ID,    /* the stream identity the reuse adaptors read */
  LOOKUP_STREAM_CAPTURING, /* the capture check on every allocation */
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
  double start = bench_now_ns();
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
  double ns = (bench_now_ns() - start) / LOOKUPS;
  if (stream != NULL) cu->cuStreamDestroy(stream);
  lookup_sink = acc;
  return (bench_result){.workload = w->name,
                        .sizes = "",
                        .allocator = allocator,
                        .label = label,
                        .threads = 1,
                        .ns_per_op = ns,
                        .mops = 1e3 / ns,
                        .ops = LOOKUPS,
                        .hit_rate = NAN,
                        .peak_requested = NAN,
                        .peak_reserved = NAN,
                        .peak_books = NAN};
}

/* Streams that come and go: each request creates a stream, allocates
 * REQUEST_BLOCKS blocks of 256 B-1 MiB on it, frees them and destroys the
 * stream (a server with a stream per request; CuPy's `with Stream():`).
 * Memory freed on a destroyed stream cannot be handed to the next stream
 * at once, whatever its handle: this measures what that costs. */
#define REQUEST_BLOCKS 8

static bench_result run_churn(const bench_run *b, const bench_workload *w, const workload_case *c,
                              int threads, bench_allocator *a) {
  const bench_cuda *cu = &b->cu;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  void *ptrs[REQUEST_BLOCKS];
  size_t sizes[REQUEST_BLOCKS];
  bench_usage usage = {.sampled = a->sample_reserved != NULL ? a : NULL};
  long requests = 0, failures = 0;
  double start = bench_now_ns(), end = start;
  while (end - start < b->o->seconds * 1e9) {
    CUstream stream = NULL;
    if (cu->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) break;
    for (int i = 0; i < REQUEST_BLOCKS; i++) {
      sizes[i] = c->lo + bench_next_random(&rng) % (c->hi - c->lo + 1);
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
    if ((requests & 63) == 0) end = bench_now_ns();
  }
  end = bench_now_ns();
  bench_usage_end(&usage);
  if (a->trim != NULL) a->trim(a->state);
  double ns = requests > 0 ? (end - start) / requests : NAN;
  return one_thread_row(w, c, a, ns, requests, failures, (double)usage.peak);
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
  bench_progress(b->o, "%s%s", b->prefix, w->name);
  for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
    bench_result r = time_lookup(b, w, lookups[i].allocator, lookups[i].label, lookups[i].kind);
    bench_add(b, w, r);
  }
}

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
    bench_progress(b->o, "%s%s: %s", b->prefix, w->name, a->name);
    bench_add(b, w, bench_measure(b, w, &c, (int)b->trace->thread_count, a));
  }
}

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
  pair_job *jobs = must_calloc((size_t)threads, sizeof *jobs);
  for (int t = 0; t < threads; t++) {
    bench_device *d = &dev[t / DEVICE_GROUP_THREADS];
    jobs[t] = (pair_job){.index = t,
                         .cu = &b->cu,
                         .context = d->context,
                         .allocator = cache ? &d->cache : &d->raw,
                         .sizes = c,
                         .live = w->live,
                         .seconds = b->o->seconds,
                         .seed = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1)};
  }
  pair_totals s = run_pair_jobs(jobs, threads);
  free(jobs);
  for (int i = 0; i < devices; i++) {
    bench_allocator *a = cache ? &dev[i].cache : &dev[i].raw;
    if (a->trim) a->trim(a->state);
  }
  const bench_allocator *a = cache ? &dev[0].cache : &dev[0].raw;
  bench_result row = pairs_row(w, devices_label(devices), a, threads, s, NAN, NAN);
  row.peak_reserved = NAN;
  row.peak_books = NAN;
  return row;
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
  bench_device *dev = must_calloc((size_t)count, sizeof *dev);
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
      bench_progress(b->o, "%s%s %d: %s", b->prefix, w->name, devices,
                     which ? dev[0].cache.name : dev[0].raw.name);
      bench_add(b, w, run_device_groups(b, w, dev, devices, which == 1));
    }
  }
  for (int d = 0; d < count; d++) {
    bench_allocator_close(&dev[d].raw);
    bench_allocator_close(&dev[d].cache);
  }
  free(dev);
  cu->cuCtxSetCurrent(cu->context);
}

/* The workloads, in the order they run and are reported. Adding one is a
 * row here (and its measure function, if none of these fits). */
/* Most workloads: each allocator in turn through `measure_fn`, against the
 * row labelled `baseline_label` (the raw driver call of its kind). */
#define EACH_AGAINST(baseline_label, measure_fn) \
  .baseline = baseline_label, .run = bench_run_each, .measure = measure_fn

const bench_workload bench_workloads[] = {
    /* ctx_get_mr and mr_context_get_mr_on, against cuCtxGetDevice; and the
     * driver calls every reuse adaptor makes per call (cuStreamGetId,
     * cuStreamIsCapturing). */
    {.name = "lookup", .baseline = "cuCtxGetDevice", .run = run_lookups},
    /* alloc+free pairs, LIVE_BLOCKS live blocks, one thread. */
    {.name = "pairs",
     EACH_AGAINST("raw", run_pairs),
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_DEVICE_DEFAULT, ALLOC_CACHE, ALLOC_CACHE_LOOKUP,
                    ALLOC_CACHE_BARE, ALLOC_CACHE_SLABS, ALLOC_DRIVER_CALLS, ALLOC_HOST_CACHE,
                    ALLOC_CUB, ALLOC_CUB_DEFAULT, ALLOC_TORCH, ALLOC_RMM_POOL, ALLOC_RMM_ARENA},
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false},
               {"8B-4KiB", 8, 4096, false, false},
               {"256B-1MiB legacy", 256, 1 << 20, false, true},
               {"8B-4KiB legacy", 8, 4096, false, true}},
     .live = LIVE_BLOCKS,
     .rounds = true},
    /* The same at 1, 2, 4, 8 and 16 threads (--threads), one stream each. */
    {.name = "threads",
     EACH_AGAINST("raw", run_pairs),
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_CACHE_BARE, ALLOC_CACHE_EXACT, ALLOC_DRIVER_CALLS,
                    ALLOC_HOST_CACHE, ALLOC_CUB, ALLOC_TORCH},
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false}},
     .live = LIVE_BLOCKS,
     .rounds = true,
     .scale_threads = true},
    /* rmm's random_allocations pattern. */
    {.name = "random",
     EACH_AGAINST("raw", run_random),
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CACHE_SLABS, ALLOC_CUB,
                    ALLOC_TORCH},
     .cases = {{"1B-1MiB", 1, 1 << 20, false, false}}},
    /* PyTorch's autograd: allocated on one thread, freed on another. */
    {.name = "handoff",
     EACH_AGAINST("raw", run_handoff),
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CUB, ALLOC_TORCH, ALLOC_RMM_POOL,
                    ALLOC_RMM_ARENA},
     /* run_handoff draws its own mix within lo..hi (see there). */
     .cases = {{"256B-64MiB", 256, (size_t)64 << 20, false, false},
               {"256B-64MiB legacy", 256, (size_t)64 << 20, false, true}}},
    /* Large blocks: 32 live, one thread. */
    {.name = "large",
     EACH_AGAINST("raw", run_pairs),
     .allocators = {ALLOC_RAW, ALLOC_DEVICE, ALLOC_CACHE, ALLOC_CUB, ALLOC_TORCH, ALLOC_RMM_POOL,
                    ALLOC_RMM_ARENA},
     .cases = {{"1MiB-256MiB", (size_t)1 << 20, (size_t)256 << 20, true, false}},
     .live = 32},
    /* Pinned host staging buffers. */
    {.name = "pinned",
     EACH_AGAINST("cuMemHostAlloc", run_pairs),
     .allocators = {ALLOC_HOST_ALLOC, ALLOC_RAW_PINNED, ALLOC_FIXED, ALLOC_PINNED_CACHE},
     .cases = {{"4KiB-4MiB", 4096, 4 << 20, false, false}},
     .live = 16,
     .rounds = true},
    /* Temporaries: a few allocations per "kernel", freed together. */
    {.name = "arena",
     EACH_AGAINST("raw", run_temporaries),
     .allocators = {ALLOC_RAW, ALLOC_ARENA, ALLOC_CACHE},
     .cases = {{"8 x 256B-1MiB", 256, 1 << 20, false, false}},
     .rounds = true},
    /* A stream per request: created, used, destroyed. */
    {.name = "churn",
     EACH_AGAINST("raw", run_churn),
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_ARENA},
     .cases = {{"8 x 256B-1MiB", 256, (1 << 20) - 1, false, false}},
     .rounds = true},
    /* What track(...) costs per pair, and its call sites (stacks=8) on top:
     * over cache(host), so no driver call hides it. */
    {.name = "track",
     EACH_AGAINST("cache_host", run_pairs),
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
     .allocators = {ALLOC_RAW, ALLOC_CACHE, ALLOC_TORCH, ALLOC_RMM_POOL, ALLOC_RMM_ARENA},
     .cases = {{"recorded", 0, 0, false, false}}},
    /* pairs on 1, 2, ... every device at once, a group of threads per
     * device: the aggregate shows how throughput scales with GPUs. */
    {.name = "devices",
     .baseline = "raw",
     .run = run_devices,
     .cases = {{"256B-1MiB", 256, 1 << 20, false, false}},
     .live = LIVE_BLOCKS},
};

const size_t bench_workload_count = sizeof bench_workloads / sizeof bench_workloads[0];

/* Under the table: what its columns mean for these workloads. */
const char bench_table_notes[] =
    "\nns/op: per pair (alloc + free) and per thread (handoff: per pair, the two\n"
    "threads taking turns), per call for lookup, per operation for random; Mops/s:\n"
    "aggregate over threads. With several runs both are the median of the runs,\n"
    "and spread is the fastest and slowest run's ns/op against it. vs raw / vs\n"
    "cub: how many times faster than the raw driver call of the same kind / than\n"
    "cub with no cap (aggregate throughput when threads > 1). res/req: the most\n"
    "memory the allocator held (its driver pool's reserved high watermark, or\n"
    "cub's and PyTorch's own books) over the most the workload had live; blank\n"
    "where unknown. books: the most a cache in the chain held from upstream\n"
    "(its own books, read by a stats(...) right below it) over the same; the\n"
    "rest of res/req is the driver pool's. Ratios are taken within each run;\n"
    "the median is shown.\n"
    "hits: the share of allocations a cache in the chain served itself.\n"
    "trace: ns/op per event of the recorded log, replayed with its threads\n"
    "taking turns as recorded (the hand-offs included); sizes: its events.\n";
