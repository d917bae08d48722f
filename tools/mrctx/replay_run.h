/*
 * replay_run.h: a checked allocation log (replay_log.h) replayed against an
 * allocator, for `mrctx replay` and the trace workload of `mrctx bench`.
 *
 * By default each event runs on a thread standing for its recorded one (a
 * thread per distinct Thread value of the log), in the log's order: the
 * threads take turns as the recorded ones did, one running while the
 * others wait, so a block allocated on one thread and freed on another is
 * freed on another here too, and the allocator sees what the program's
 * threads made it do (a per-thread cache's stacks, blocks freed by a
 * thread that did not allocate them). The turn passes through one atomic
 * index, written once per run of consecutive events of one thread, with
 * release and acquire: what one thread did is seen by the next. Or, with
 * REPLAY_THREADS_ONE, every event runs on the calling thread.
 */
#ifndef MRCTX_TOOLS_REPLAY_RUN_H
#define MRCTX_TOOLS_REPLAY_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <mrctx/mrctx.h>

#include "replay_log.h"

/* The most recorded threads replayed on threads of their own: a log with
 * more (a program that made a thread per task) is replayed on one. */
#define REPLAY_MAX_THREADS 1024

typedef enum replay_threads {
  REPLAY_THREADS_RECORDED, /* a thread per recorded thread, taking turns in the log's order */
  REPLAY_THREADS_ONE,      /* every event on the calling thread, in the log's order */
} replay_threads;

/* What the events are replayed on. */
typedef struct replay_target {
  void *state;
  /* 0: *ptr holds `bytes`; anything else: the allocation failed. */
  int (*allocate)(void *state, size_t bytes, mr_stream stream, void **ptr);
  /* 0: freed; anything else: the allocator refused the free. */
  int (*deallocate)(void *state, void *ptr, size_t bytes, mr_stream stream);
  /* Optional: called on each replay thread before its first event (a
   * device's context made current, a CPU picked); `index` is the recorded
   * thread's (log->threads), 0 on the calling thread. False stops the
   * replay before any event, with the reason in `why`. */
  bool (*thread_begin)(void *state, size_t index, char *why, size_t cap);
  /* Optional: called whenever the bytes live reach a new high, and once
   * at the end before the blocks left live are freed (for allocators that
   * report only what they hold now). */
  void (*sample)(void *state);
} replay_target;

typedef struct replay_outcome {
  double wall_seconds;     /* first event to last, the turns' hand-offs included */
  uint64_t peak_requested; /* the most bytes live at once in this replay */
  uint64_t failures;       /* allocations the allocator refused */
  uint64_t free_errors;    /* frees it refused (those at the end included) */
  size_t threads;          /* distinct OS threads that ran events */
  /* Frees that ran on another OS thread than their block's allocation,
   * counted as they ran (not read from the log): with the recorded
   * threads, log->cross_thread_frees less the frees of blocks whose
   * allocation failed here. */
  uint64_t cross_thread_frees;
  uint64_t handoffs; /* times the turn passed to another thread */
} replay_outcome;

/* Replay every event of `log` on `target`, each on streams[event.stream]
 * (log->stream_count of them). An allocation that fails here is counted
 * and its free skipped; a recorded "allocate failure" that succeeds here is
 * freed at once. The blocks the log leaves live are freed at the end, on
 * the calling thread, after the last `sample`. False, with the reason in
 * `why`, if the replay could not start (out of memory, more than
 * REPLAY_MAX_THREADS recorded threads, a thread that could not be made, a
 * thread_begin that failed): nothing was replayed then. */
bool replay_run(const replay_log *log, const replay_target *target, const mr_stream *streams,
                replay_threads threads, replay_outcome *out, char *why, size_t cap);

/* "recorded" or "one". */
const char *replay_threads_name(replay_threads threads);

#endif
