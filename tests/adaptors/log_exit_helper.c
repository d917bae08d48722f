/*
 * log_exit_helper: a small application that ends with a live log(...)
 * resource, for test_log_exit.c. Built against the public shared library,
 * as an application would use it.
 *
 * usage: log_exit_helper SCENARIO FILE
 *   pthread-exit  main logs 10 pairs on stream 0x1000, starts a thread and
 *                 calls pthread_exit(NULL); the thread joins main (so main
 *                 is gone), logs 10 pairs on stream 0x2000, and returns.
 *                 The log is never released.
 *   return        a context whose tag is "log(host, file=FILE)" logs 10
 *                 pairs; main returns without destroying it.
 *   exit-thread   main logs pairs on stream 0x1000 until the process ends;
 *                 a second thread waits until main has logged one, logs
 *                 100 pairs on stream 0x2000, prints "main-allocates N"
 *                 (the allocations main had logged by then) and calls
 *                 exit(0).
 *   exit-blocked  main waits to join a second thread, which waits until
 *                 main sleeps in the join, logs 100 pairs on stream 0x2000
 *                 and calls exit(0).
 *   exit-churn    like exit-thread, but main keeps creating a second log
 *                 on FILE.churn, logging 3 pairs, flushing and releasing
 *                 it, so the exit meets logs being created and destroyed.
 *   write-error   the file may not grow past 1000 bytes (RLIMIT_FSIZE,
 *                 SIGXFSZ ignored); main logs 20 pairs, checks that
 *                 mr_log_resource_flush fails, and returns without
 *                 destroying the log.
 *   xfsz-flush    the file may not grow past 1000 bytes, and SIGXFSZ is
 *   xfsz-destroy  at its default action (which ends the process); main
 *   xfsz-exit     logs 20 pairs and then flushes the log (which must fail
 *                 with "File too large") and releases it, releases it
 *                 without a flush, or returns with the log live, so that
 *                 the write past the limit happens on main's thread.
 *   epipe-flush   FILE is a FIFO: main opens its read end, creates the log
 *   epipe-destroy (the header goes to the FIFO), closes the read end, so
 *   epipe-exit    the reader has left, with SIGPIPE at its default action
 *   epipe-pending (which ends the process); main logs 20 pairs, then
 *                 flushes (which must fail with "Broken pipe") and
 *                 releases the log, releases it without a flush, or
 *                 returns with it live. epipe-pending flushes with a
 *                 SIGPIPE of its own already pending (raised, blocked):
 *                 the flush must leave it pending, as it is not the
 *                 log's; it prints "pending kept" and discards it.
 * A pair is an allocation of 64 bytes of host memory and its free. Exits 2
 * on a usage or library error (printed to stderr). What must happen before
 * what is waited for, never slept for: on a busy machine a sleep orders
 * nothing.
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <mrctx/mrctx.h>

#define STREAM_MAIN ((mr_stream)(uintptr_t)0x1000)
#define STREAM_OTHER ((mr_stream)(uintptr_t)0x2000)

static mr_resource *log_mr;
static mr_context *ctx; /* global: a leak checker sees it is still reachable */
static atomic_long main_allocates;
static sem_t main_logged; /* posted once, when main has logged its first allocation */
static pthread_t main_thread;

/* Count one of main's allocations; the first lets the other thread go. */
static void count_main_allocate(void) {
  if (atomic_fetch_add(&main_allocates, 1) == 0) sem_post(&main_logged);
}

static void check(mr_status st, const char *what) {
  if (st != MR_OK) {
    fprintf(stderr, "log_exit_helper: %s: %s: %s\n", what, mr_status_name(st), mr_last_error());
    exit(2);
  }
}

static void pair(mr_stream stream) {
  void *p = NULL;
  check(mr_allocate(log_mr, 64, 0, stream, &p), "allocate");
  if (stream == STREAM_MAIN) count_main_allocate();
  check(mr_deallocate(log_mr, p, 64, 0, stream), "deallocate");
}

/* Wait until main sleeps (in pthread_join: it does nothing else that
 * sleeps once the thread exists), read from /proc/self/task/PID/stat. */
static void wait_until_main_sleeps(void) {
  char path[64];
  snprintf(path, sizeof path, "/proc/self/task/%ld/stat", (long)getpid());
  for (;;) {
    FILE *f = fopen(path, "r");
    char stat[512] = "";
    size_t n = f != NULL ? fread(stat, 1, sizeof stat - 1, f) : 0;
    if (f != NULL) fclose(f);
    stat[n] = '\0';
    const char *end = strrchr(stat, ')'); /* after the command's name */
    if (end == NULL) {
      fprintf(stderr, "log_exit_helper: cannot read %s\n", path);
      exit(2);
    }
    if (end[1] == ' ' && end[2] == 'S') return;
    sched_yield();
  }
}

static void open_log(const char *path) {
  mr_resource *host = NULL;
  check(mr_host_resource_create(&host), "host");
  check(mr_log_resource_create(host, path, &log_mr), "log");
  mr_resource_release(host); /* the log holds its own reference */
}

static void *after_main_exits(void *arg) {
  /* The main thread of a process may be joined: this returns once it is
   * gone. */
  if (pthread_join(main_thread, NULL) != 0) {
    fprintf(stderr, "log_exit_helper: cannot join main\n");
    exit(2);
  }
  for (int i = 0; i < 10; i++) pair(STREAM_OTHER);
  return NULL;
}

static void churn_logs(const char *path) {
  char churn_path[1024];
  snprintf(churn_path, sizeof churn_path, "%s.churn", path);
  mr_resource *host = NULL;
  check(mr_host_resource_create(&host), "host");
  for (;;) {
    mr_resource *mr = NULL;
    check(mr_log_resource_create(host, churn_path, &mr), "log");
    for (int i = 0; i < 3; i++) {
      void *p = NULL;
      check(mr_allocate(mr, 64, 0, STREAM_MAIN, &p), "allocate");
      count_main_allocate();
      check(mr_deallocate(mr, p, 64, 0, STREAM_MAIN), "deallocate");
    }
    /* It may fail, saying the process is exiting: the log's content is what
     * the test checks. */
    if (mr_log_resource_flush(mr) != MR_OK) {
    }
    mr_resource_release(mr);
  }
}

static void *log_then_exit(void *arg) {
  /* Main is busy logging (exit-thread, exit-churn) or waits in the join
   * (exit-blocked) when the exit comes. */
  if (arg != NULL)
    wait_until_main_sleeps();
  else
    while (sem_wait(&main_logged) != 0) continue;
  for (int i = 0; i < 100; i++) pair(STREAM_OTHER);
  printf("main-allocates %ld\n", atomic_load(&main_allocates));
  fflush(stdout);
  exit(0);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: log_exit_helper pthread-exit|return|exit-thread|exit-blocked|"
                    "exit-churn|write-error|xfsz-flush|xfsz-destroy|xfsz-exit|epipe-flush|"
                    "epipe-destroy|epipe-exit|epipe-pending FILE\n");
    return 2;
  }
  const char *scenario = argv[1], *path = argv[2];
  main_thread = pthread_self();
  if (sem_init(&main_logged, 0, 0) != 0) return 2;
  if (strcmp(scenario, "pthread-exit") == 0) {
    open_log(path);
    for (int i = 0; i < 10; i++) pair(STREAM_MAIN);
    pthread_t t;
    if (pthread_create(&t, NULL, after_main_exits, NULL) != 0) return 2;
    pthread_detach(t);
    pthread_exit(NULL);
  }
  if (strcmp(scenario, "return") == 0) {
    static const mr_tag tags[] = {{"temp", "host"}};
    char overrides[1024];
    snprintf(overrides, sizeof overrides, "temp=log(host, file=\"%s\")", path);
    mr_context_desc desc = {.size = sizeof(mr_context_desc),
                            .library = "log_exit_helper",
                            .tags = tags,
                            .tag_count = 1,
                            .overrides = overrides};
    check(mr_context_create(&desc, &ctx), "context");
    log_mr = mr_context_get_mr(ctx, 0);
    if (log_mr == NULL) return 2;
    for (int i = 0; i < 10; i++) pair(STREAM_MAIN);
    return 0; /* ctx is never destroyed */
  }
  if (strcmp(scenario, "exit-thread") == 0 || strcmp(scenario, "exit-blocked") == 0 ||
      strcmp(scenario, "exit-churn") == 0) {
    open_log(path);
    pthread_t t;
    bool blocked = strcmp(scenario, "exit-blocked") == 0;
    if (pthread_create(&t, NULL, log_then_exit, blocked ? &main_thread : NULL) != 0) return 2;
    if (blocked) {
      pthread_join(t, NULL);
      return 3; /* not reached: the thread exits the process */
    }
    if (strcmp(scenario, "exit-churn") == 0) churn_logs(path);
    for (;;) pair(STREAM_MAIN);
  }
  if (strcmp(scenario, "write-error") == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {1000, 1000};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
    open_log(path);
    for (int i = 0; i < 20; i++) pair(STREAM_MAIN);
    if (mr_log_resource_flush(log_mr) != MR_ERR_INVALID_ARGUMENT) return 4;
    fprintf(stderr, "log_exit_helper: flush: %s\n", mr_last_error());
    return 0; /* the exit says the log is incomplete */
  }
  if (strncmp(scenario, "xfsz-", 5) == 0) {
    const char *when = scenario + 5;
    if (strcmp(when, "flush") != 0 && strcmp(when, "destroy") != 0 && strcmp(when, "exit") != 0)
      return 2;
    signal(SIGXFSZ, SIG_DFL);
    struct rlimit no_core = {0, 0}, limit = {1000, 1000};
    if (setrlimit(RLIMIT_CORE, &no_core) != 0 || setrlimit(RLIMIT_FSIZE, &limit) != 0) return 2;
    open_log(path);
    for (int i = 0; i < 20; i++) pair(STREAM_MAIN); /* about 2000 bytes */
    if (strcmp(when, "flush") == 0) {
      if (mr_log_resource_flush(log_mr) != MR_ERR_INVALID_ARGUMENT) return 4;
      fprintf(stderr, "log_exit_helper: flush: %s\n", mr_last_error());
    }
    if (strcmp(when, "exit") != 0) {
      mr_resource_release(log_mr);
      log_mr = NULL;
    }
    return 0;
  }
  if (strncmp(scenario, "epipe-", 6) == 0) {
    const char *when = scenario + 6;
    bool pending = strcmp(when, "pending") == 0;
    if (strcmp(when, "flush") != 0 && strcmp(when, "destroy") != 0 && strcmp(when, "exit") != 0 &&
        !pending)
      return 2;
    signal(SIGPIPE, SIG_DFL);
    int reader = open(path, O_RDONLY | O_NONBLOCK);
    if (reader < 0) return 2;
    open_log(path);
    close(reader); /* the reader leaves */
    for (int i = 0; i < 20; i++) pair(STREAM_MAIN);
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    if (pending) {
      pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
      raise(SIGPIPE);
    }
    if (pending || strcmp(when, "flush") == 0) {
      if (mr_log_resource_flush(log_mr) != MR_ERR_INVALID_ARGUMENT) return 4;
      fprintf(stderr, "log_exit_helper: flush: %s\n", mr_last_error());
    }
    if (pending) {
      sigset_t now;
      if (sigpending(&now) != 0 || sigismember(&now, SIGPIPE) != 1) return 5;
      printf("pending kept\n");
      fflush(stdout);
      signal(SIGPIPE, SIG_IGN); /* discarded as it is unblocked */
      pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (strcmp(when, "exit") != 0) {
      mr_resource_release(log_mr);
      log_mr = NULL;
    }
    return 0;
  }
  fprintf(stderr, "log_exit_helper: unknown scenario '%s'\n", scenario);
  return 2;
}
