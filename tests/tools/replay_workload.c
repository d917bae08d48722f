/*
 * replay_workload: an application that records its allocations with the
 * log adaptor, for the tests of `mrctx replay` and `mrctx plot` (and the
 * example picture in docs/observability.md).
 *
 *   replay_workload UPSTREAM DIR [--slow]
 *
 * A library "mylib" with two tags, temp and result, each configured on
 * device 0 as log(UPSTREAM, file=DIR/mylib-TAG.csv). The workload: 40
 * steps, each allocating a result it keeps (every fifth step frees the
 * older half of them) and a few temporaries it frees again, alternating
 * between two streams of its own and the legacy stream (streams only when
 * UPSTREAM is not host memory); the second half runs on another thread,
 * after the first has ended, so every number is the same on every run. One
 * temporary of 1 PiB fails. --slow sleeps 25 ms a step (15 of them
 * while the temporaries are live), to spread the events over time for a
 * picture.
 *
 * Prints, as JSON, what it did per tag: allocations and frees that
 * succeeded and the most bytes live at once. Everything is freed at the
 * end.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mrctx/mrctx.h>

#include "replay_streams.h"

enum { TEMP, RESULT, TAGS };
static const char *const tag_names[TAGS] = {"temp", "result"};

#define STEPS 40
#define MAX_RESULTS STEPS

typedef struct tally {
  unsigned long allocations, frees;
  unsigned long long live, peak;
} tally;

typedef struct workload {
  mr_context *ctx;
  mr_stream streams[3]; /* legacy, and two of the workload's own */
  bool slow;
  tally tallies[TAGS];
  void *results[MAX_RESULTS];
  size_t result_sizes[MAX_RESULTS];
  size_t result_count;
  int failed; /* a step that went wrong, or 0 */
} workload;

/* Device 0's resource: the second thread has no current device. */
static mr_resource *tag_mr(const workload *w, int tag) {
  return mr_context_get_mr_on(w->ctx, tag, 0);
}

static bool allocate(workload *w, int tag, size_t bytes, mr_stream stream, void **ptr) {
  if (mr_allocate(tag_mr(w, tag), bytes, 0, stream, ptr) != MR_OK) return false;
  tally *t = &w->tallies[tag];
  t->allocations++;
  t->live += bytes;
  if (t->live > t->peak) t->peak = t->live;
  return true;
}

static void deallocate(workload *w, int tag, void *ptr, size_t bytes, mr_stream stream) {
  if (mr_deallocate(tag_mr(w, tag), ptr, bytes, 0, stream) != MR_OK) {
    fprintf(stderr, "replay_workload: freeing %zu bytes of %s: %s\n", bytes, tag_names[tag],
            mr_last_error());
    w->failed = 1;
    return;
  }
  w->tallies[tag].frees++;
  w->tallies[tag].live -= bytes;
}

static void step(workload *w, int i) {
  mr_stream stream = w->streams[i % 3];
  /* Temporaries: a few of different sizes, freed in the same step. */
  void *temps[4] = {NULL};
  size_t sizes[4];
  for (int k = 0; k < 4; k++) {
    sizes[k] = ((size_t)(i % 7) + 1) * ((size_t)1 << (16 + k)); /* 64 KiB .. 3.5 MiB */
    if (!allocate(w, TEMP, sizes[k], stream, &temps[k])) {
      fprintf(stderr, "replay_workload: step %d: %s\n", i, mr_last_error());
      w->failed = i + 1;
    }
  }
  if (i == STEPS / 2 + 3) {
    void *huge = NULL; /* fails: no device and no host has 1 PiB */
    if (allocate(w, TEMP, (size_t)1 << 50, stream, &huge)) {
      fputs("replay_workload: 1 PiB was allocated\n", stderr);
      deallocate(w, TEMP, huge, (size_t)1 << 50, stream);
      w->failed = i + 1;
    }
  }
  if (w->slow) {
    struct timespec pause = {0, 15 * 1000000L};
    nanosleep(&pause, NULL);
  }
  for (int k = 3; k >= 0; k--)
    if (temps[k] != NULL) deallocate(w, TEMP, temps[k], sizes[k], stream);
  /* A result to keep; every fifth step the older half go. */
  size_t bytes = (size_t)(i % 5 + 1) << 20;
  void *result = NULL;
  if (allocate(w, RESULT, bytes, stream, &result)) {
    w->results[w->result_count] = result;
    w->result_sizes[w->result_count++] = bytes;
  }
  if (i % 5 == 4) {
    size_t half = w->result_count / 2;
    for (size_t k = 0; k < half; k++)
      deallocate(w, RESULT, w->results[k], w->result_sizes[k], stream);
    memmove(w->results, w->results + half, (w->result_count - half) * sizeof *w->results);
    memmove(w->result_sizes, w->result_sizes + half,
            (w->result_count - half) * sizeof *w->result_sizes);
    w->result_count -= half;
  }
  if (w->slow) {
    struct timespec pause = {0, 10 * 1000000L};
    nanosleep(&pause, NULL);
  }
}

static void *second_half(void *arg) {
  workload *w = arg;
  for (int i = STEPS / 2; i < STEPS; i++) step(w, i);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "--slow") != 0)) {
    fputs("usage: replay_workload UPSTREAM DIR [--slow]\n", stderr);
    return 2;
  }
  const char *upstream = argv[1], *dir = argv[2];
  workload w = {.slow = argc == 4};
  char overrides[2048];
  snprintf(overrides, sizeof overrides,
           "temp@0=log(%s, file=\"%s/mylib-temp.csv\"); "
           "result@0=log(%s, file=\"%s/mylib-result.csv\")",
           upstream, dir, upstream, dir);
  static const mr_tag tags[TAGS] = {{"temp", "host"}, {"result", "host"}};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "mylib",
                          .tags = tags,
                          .tag_count = TAGS,
                          .overrides = overrides};
  if (mr_context_create(&desc, &w.ctx) != MR_OK) {
    fprintf(stderr, "replay_workload: %s\n", mr_last_error());
    return 1;
  }
  /* Stream values: 0 is the legacy stream; the others become streams. */
  const uint64_t values[3] = {0, 0x10, 0x20};
  bool streams = strncmp(upstream, "host", 4) != 0;
  char why[256];
  if (streams && !replay_streams_create(0, values, 3, w.streams, why, sizeof why)) {
    fprintf(stderr, "replay_workload: %s\n", why);
    mr_context_destroy(w.ctx);
    return 1;
  }
  for (int i = 0; i < STEPS / 2; i++) step(&w, i);
  pthread_t thread;
  if (pthread_create(&thread, NULL, second_half, &w) != 0) {
    fputs("replay_workload: cannot start a thread\n", stderr);
    mr_context_destroy(w.ctx);
    return 1;
  }
  pthread_join(thread, NULL);
  for (size_t k = 0; k < w.result_count; k++)
    deallocate(&w, RESULT, w.results[k], w.result_sizes[k], w.streams[0]);
  mr_context_destroy(w.ctx);
  if (streams) replay_streams_destroy(values, 3, w.streams);
  printf("{");
  for (int t = 0; t < TAGS; t++)
    printf("\"%s\": {\"allocations\": %lu, \"frees\": %lu, \"peak\": %llu}, ", tag_names[t],
           w.tallies[t].allocations, w.tallies[t].frees, w.tallies[t].peak);
  printf("\"steps\": %d}\n", STEPS);
  return w.failed ? 1 : 0;
}
