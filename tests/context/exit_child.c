/*
 * exit_child.c: a process that ends while mrctx contexts are live, the way
 * applications end (test_exit_gpu.c runs it). It creates a context whose
 * tags cover every kind of resource that keeps state (a log, a cache, an
 * arena, pinned fixed blocks, plain pinned memory), uses them on a stream
 * with work queued, leaves allocations live, and then, by MODE:
 *   return        returns from main without destroying anything;
 *   exit-thread   another thread calls exit(0) while main keeps allocating
 *                 (once main has made a round: waited for, not slept for);
 *   pthread-exit  main calls pthread_exit while another thread works on and
 *                 then returns.
 * Before ending it prints "events N": log lines the log must hold (at
 * least N: main may append more after the exit-thread's count).
 * Usage: exit_child MODE LOGFILE
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mrctx/mrctx.h>

enum { TEMP, SCRATCH, STAGING, PINNED, TAG_COUNT };

static mr_context *ctx;
static _Atomic long logged;   /* events on the logged tag so far */
static sem_t main_allocating; /* exit-thread: main made its first round */

static void die(const char *what) {
  fprintf(stderr, "exit_child: %s: %s\n", what, mr_last_error());
  exit(3);
}

/* One round of work on every tag; the logged tag's events are counted.
 * Returns false on a failure (`fatal`: the process stops with status 3;
 * otherwise the caller decides: while exit() runs, the driver shuts down
 * under a thread that still allocates, and failing then is right). */
static bool round_trip(mr_stream stream, bool keep, bool fatal) {
  for (int tag = 0; tag < TAG_COUNT; tag++) {
    mr_resource *mr = ctx_get_mr(ctx, tag);
    void *p = NULL;
    if (mr_allocate(mr, 4096, 0, stream, &p) != MR_OK) {
      if (fatal) die("allocate");
      return false;
    }
    if (tag == TEMP) logged++;
    if (keep) continue; /* left live at exit */
    if (mr_deallocate(mr, p, 4096, 0, stream) != MR_OK) {
      if (fatal) die("deallocate");
      return false;
    }
    if (tag == TEMP) logged++;
  }
  return true;
}

static void *exit_soon(void *arg) {
  while (sem_wait(&main_allocating) != 0) continue;
  printf("events %ld\n", (long)logged);
  fflush(stdout);
  exit(0);
}

static void *work_then_return(void *arg) {
  for (int i = 0; i < 200; i++) round_trip(NULL, false, true);
  round_trip(NULL, true, true);
  printf("events %ld\n", (long)logged);
  fflush(stdout);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: exit_child return|exit-thread|pthread-exit LOGFILE\n");
    return 2;
  }
  const char *mode = argv[1];
  char temp[4096];
  snprintf(temp, sizeof temp, "log(arena(device, chunk=1MiB), file=%s)", argv[2]);
  const mr_tag tags[TAG_COUNT] = {
      [TEMP] = {"temp", temp},
      [SCRATCH] = {"scratch", "cache(device)"},
      [STAGING] = {"staging", "fixed(pinned, block=64KiB, count=4)"},
      [PINNED] = {"pinned", "pinned"},
  };
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "exit_child",
                          .tags = tags,
                          .tag_count = TAG_COUNT};
  if (mr_context_create(&desc, &ctx) != MR_OK) die("mr_context_create");
  for (int i = 0; i < 100; i++) round_trip(NULL, false, true);
  round_trip(NULL, true, true);

  if (strcmp(mode, "return") == 0) {
    printf("events %ld\n", (long)logged);
    return 0;
  }
  pthread_t t;
  if (strcmp(mode, "exit-thread") == 0) {
    if (sem_init(&main_allocating, 0, 0) != 0) die("sem_init");
    pthread_create(&t, NULL, exit_soon, NULL);
    round_trip(NULL, false, true); /* no exit has begun: a failure is one */
    sem_post(&main_allocating);
    while (round_trip(NULL, false, false)) continue; /* until the other thread exits */
    for (;;) pause();
  }
  if (strcmp(mode, "pthread-exit") == 0) {
    pthread_create(&t, NULL, work_then_return, NULL);
    pthread_exit(NULL);
  }
  if (strcmp(mode, "pthread-exit-control") == 0) {
    /* The same end without mrctx's adaptors: only the driver is in use
     * (a device allocation), to tell the driver's threads from ours. */
    mr_context_destroy(ctx);
    mr_resource *device = NULL;
    void *p = NULL;
    if (mr_resource_from_spec("device", 0, &device) != MR_OK ||
        mr_allocate_sync(device, 4096, 0, &p) != MR_OK)
      die("device");
    printf("events 0\n");
    fflush(stdout);
    pthread_exit(NULL);
  }
  fprintf(stderr, "exit_child: unknown mode %s\n", mode);
  return 2;
}
