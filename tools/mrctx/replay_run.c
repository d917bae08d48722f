/*
 * replay_run.c: replay a log's events on an allocator, each on a thread
 * standing for its recorded one (replay_run.h).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "replay_run.h"

/* The turn before the replay starts: no event's index. */
#define NOT_STARTED SIZE_MAX

typedef struct replay_shared replay_shared;

/* One replay thread: the events of one recorded thread, in order. */
typedef struct replay_worker {
  replay_shared *shared;
  size_t index;         /* the recorded thread's */
  const size_t *events; /* its events' indices, increasing */
  size_t count;
  pid_t tid;    /* the OS thread that runs it */
  bool started; /* a thread of its own was made (index > 0) */
  bool ok;      /* thread_begin succeeded */
  char why[512];
  pthread_t thread;
} replay_worker;

struct replay_shared {
  const replay_log *log;
  const replay_target *target;
  const mr_stream *streams;
  /* The index of the event whose turn it is (NOT_STARTED before the
   * first, log->event_count after the last). Written with release by the
   * thread that ran the event before, read with acquire by the thread
   * that runs it: everything below is touched only by the thread whose
   * turn it is, so it needs no lock. */
  atomic_size_t turn;
  atomic_bool abort;   /* stop: the replay could not start */
  atomic_size_t ready; /* threads past their thread_begin */
  void **blocks;       /* each live block's pointer by slot; NULL: its allocation failed */
  pid_t *owner;        /* the OS thread that allocated each live block */
  uint64_t live, peak, failures, free_errors, cross_thread_frees, handoffs;
};

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static pid_t current_tid(void) { return (pid_t)syscall(SYS_gettid); }

const char *replay_threads_name(replay_threads threads) {
  return threads == REPLAY_THREADS_ONE ? "one" : "recorded";
}

/* Wait until it is event `want`'s turn; false if the replay was stopped.
 * Spins, yielding the CPU after a while: a thread's turn often comes back
 * within microseconds (training's threads hand over per layer), and two
 * threads on one core still get on. */
static bool wait_turn(replay_shared *s, size_t want) {
  for (unsigned spins = 0; atomic_load_explicit(&s->turn, memory_order_acquire) != want; spins++) {
    if (atomic_load_explicit(&s->abort, memory_order_relaxed)) return false;
    if (spins >= 256) sched_yield();
  }
  return true;
}

static void run_event(replay_shared *s, const replay_event *e, pid_t tid) {
  const replay_target *t = s->target;
  mr_stream stream = s->streams[e->stream];
  void *ptr = NULL;
  if (e->action == REPLAY_FREE) {
    ptr = s->blocks[e->block];
    if (ptr == NULL) return; /* its allocation failed here */
    s->blocks[e->block] = NULL;
    s->live -= e->size;
    if (s->owner[e->block] != tid) s->cross_thread_frees++;
    if (t->deallocate(t->state, ptr, e->size, stream) != 0) s->free_errors++;
  } else if (t->allocate(t->state, e->size, stream, &ptr) != 0) {
    s->failures++;
  } else if (e->action == REPLAY_ALLOCATE) {
    s->blocks[e->block] = ptr;
    s->owner[e->block] = tid;
    s->live += e->size;
    if (s->live > s->peak) {
      s->peak = s->live;
      if (t->sample != NULL) t->sample(t->state);
    }
  } else if (t->deallocate(t->state, ptr, e->size, stream) != 0) {
    /* The recording failed here, so the program never had the block: it
     * goes back at once. */
    s->free_errors++;
  }
}

/* A thread's events: each run of consecutive ones in the log is one turn,
 * passed on to the thread of the event after it. */
static void run_worker(replay_worker *w) {
  replay_shared *s = w->shared;
  const replay_event *events = s->log->events;
  size_t k = 0;
  while (k < w->count) {
    size_t i = w->events[k];
    if (!wait_turn(s, i)) return;
    do {
      run_event(s, &events[i], w->tid);
      k++;
      i++;
    } while (k < w->count && w->events[k] == i);
    if (i < s->log->event_count) s->handoffs++;
    atomic_store_explicit(&s->turn, i, memory_order_release);
  }
}

/* The calling thread's share, or a thread of its own's, up to the start. */
static bool begin_worker(replay_worker *w) {
  const replay_target *t = w->shared->target;
  w->tid = current_tid();
  w->ok = t->thread_begin == NULL || t->thread_begin(t->state, w->index, w->why, sizeof w->why);
  if (!w->ok) atomic_store_explicit(&w->shared->abort, true, memory_order_relaxed);
  atomic_fetch_add_explicit(&w->shared->ready, 1, memory_order_release);
  return w->ok;
}

static void *worker_main(void *arg) {
  replay_worker *w = arg;
  if (begin_worker(w)) run_worker(w);
  return NULL;
}

/* Free the blocks the log leaves live, on the stream of their allocation.
 * Backwards: a slot is reused only after its block's free, so the last
 * allocation into a slot is the only one that can still hold it. */
static void free_live_blocks(replay_shared *s) {
  const replay_log *log = s->log;
  const replay_target *t = s->target;
  for (size_t i = log->event_count; i-- > 0;) {
    const replay_event *e = &log->events[i];
    if (e->action != REPLAY_ALLOCATE || s->blocks[e->block] == NULL) continue;
    if (t->deallocate(t->state, s->blocks[e->block], e->size, s->streams[e->stream]) != 0)
      s->free_errors++;
    s->blocks[e->block] = NULL;
  }
}

bool replay_run(const replay_log *log, const replay_target *target, const mr_stream *streams,
                replay_threads threads, replay_outcome *out, char *why, size_t cap) {
  memset(out, 0, sizeof *out);
  if (threads == REPLAY_THREADS_RECORDED && log->thread_count > REPLAY_MAX_THREADS) {
    snprintf(why, cap,
             "%s has %zu threads, and at most %d are replayed on threads of their own: "
             "replay it on one thread instead",
             log->path, log->thread_count, REPLAY_MAX_THREADS);
    return false;
  }
  size_t nworkers = threads == REPLAY_THREADS_ONE || log->thread_count == 0 ? 1 : log->thread_count;
  replay_shared s = {.log = log, .target = target, .streams = streams};
  atomic_init(&s.turn, NOT_STARTED);
  atomic_init(&s.abort, false);
  atomic_init(&s.ready, 0);
  size_t slots = log->block_slots ? log->block_slots : 1;
  s.blocks = calloc(slots, sizeof *s.blocks);
  s.owner = calloc(slots, sizeof *s.owner);
  replay_worker *workers = calloc(nworkers, sizeof *workers);
  size_t *order = malloc((log->event_count ? log->event_count : 1) * sizeof *order);
  size_t *start = calloc(nworkers + 1, sizeof *start);
  if (s.blocks == NULL || s.owner == NULL || workers == NULL || order == NULL || start == NULL) {
    snprintf(why, cap, "out of host memory for %zu events and %zu blocks", log->event_count,
             log->block_slots);
    free(s.blocks);
    free(s.owner);
    free(workers);
    free(order);
    free(start);
    return false;
  }
  /* Each thread's events in log order: counted, then placed. */
  for (size_t i = 0; i < log->event_count; i++)
    start[(nworkers == 1 ? 0 : log->events[i].thread) + 1]++;
  for (size_t w = 0; w < nworkers; w++) start[w + 1] += start[w];
  for (size_t w = 0; w < nworkers; w++)
    workers[w] = (replay_worker){
        .shared = &s, .index = w, .events = order + start[w], .count = start[w + 1] - start[w]};
  for (size_t i = 0, *next = start; i < log->event_count; i++)
    order[next[nworkers == 1 ? 0 : log->events[i].thread]++] = i;

  /* Worker 0 runs on the calling thread; the others on threads of their
   * own, made before the clock starts and waiting for their first turn. */
  bool ok = true;
  size_t made = 1;
  for (; made < nworkers; made++) {
    int error = pthread_create(&workers[made].thread, NULL, worker_main, &workers[made]);
    if (error != 0) {
      snprintf(why, cap, "cannot make replay thread %zu of %zu: %s", made + 1, nworkers,
               strerror(error));
      atomic_store_explicit(&s.abort, true, memory_order_relaxed);
      ok = false;
      break;
    }
    workers[made].started = true;
  }
  if (!begin_worker(&workers[0])) ok = false;
  while (atomic_load_explicit(&s.ready, memory_order_acquire) < made) sched_yield();
  for (size_t w = 0; w < made && ok; w++)
    if (!workers[w].ok) {
      snprintf(why, cap, "%s", workers[w].why);
      ok = false;
    }
  double begin = 0, end = 0;
  if (ok) {
    begin = now_seconds();
    atomic_store_explicit(&s.turn, 0, memory_order_release);
    run_worker(&workers[0]);
    wait_turn(&s, log->event_count);
    end = now_seconds();
  } else {
    atomic_store_explicit(&s.abort, true, memory_order_relaxed);
  }
  for (size_t w = 1; w < made; w++) pthread_join(workers[w].thread, NULL);
  if (ok) {
    if (target->sample != NULL) target->sample(target->state);
    out->wall_seconds = end - begin;
    out->peak_requested = s.peak;
    out->failures = s.failures;
    out->cross_thread_frees = s.cross_thread_frees;
    out->handoffs = s.handoffs;
    /* The OS threads that ran events: every worker with events ran on its
     * own thread, alive together, so their ids are distinct exactly when
     * the threads were. */
    for (size_t w = 0; w < nworkers; w++) {
      if (workers[w].count == 0) continue;
      bool seen = false;
      for (size_t v = 0; v < w && !seen; v++)
        seen = workers[v].count > 0 && workers[v].tid == workers[w].tid;
      if (!seen) out->threads++;
    }
    free_live_blocks(&s);
    out->free_errors = s.free_errors;
  }
  free(s.blocks);
  free(s.owner);
  free(workers);
  free(order);
  free(start);
  return ok;
}
