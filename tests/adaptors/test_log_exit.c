/*
 * unit: a process that ends with a live log(...) resource.
 *
 * Each test runs log_exit_helper (its path is this program's argument) in a
 * child process, waits for it to end, and checks its exit status and the
 * log it left: the header, every line logged before the process began to
 * exit, no torn line. A helper that never ends is a hang, which meson's
 * timeout reports (it ends the helper too: it kills the test's process
 * group). Nothing here is timed: how long a process takes to end says
 * nothing on a busy machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adaptor_test.h"

static const char *helper_path;

typedef struct child_result {
  int status;        /* exit status if it exited normally, else -1 */
  int signal;        /* the signal that ended it, else 0 */
  char output[256];  /* its stdout */
  char errors[1024]; /* its stderr (also copied to ours) */
} child_result;

/* Run the helper's `scenario` writing `path`, until it ends. */
static child_result run_helper(const char *scenario, const char *path) {
  child_result r = {.status = -1};
  int out[2], err[2];
  assert_int_equal(pipe(out), 0);
  assert_int_equal(pipe(err), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    close(out[0]);
    close(out[1]);
    close(err[0]);
    close(err[1]);
    execl(helper_path, helper_path, scenario, path, (char *)NULL);
    fprintf(stderr, "cannot run %s: %s\n", helper_path, strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (WIFEXITED(status))
    r.status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.signal = WTERMSIG(status);
  ssize_t n = read(out[0], r.output, sizeof r.output - 1);
  r.output[n > 0 ? n : 0] = '\0';
  close(out[0]);
  n = read(err[0], r.errors, sizeof r.errors - 1);
  r.errors[n > 0 ? n : 0] = '\0';
  close(err[0]);
  fputs(r.errors, stderr);
  return r;
}

static char *temp_path(const char *name) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || dir[0] == '\0') dir = "/tmp";
  char *path = malloc(512);
  snprintf(path, 512, "%s/mrctx-test-%ld-exit-%s.csv", dir, (long)getpid(), name);
  return path;
}

/* How many lines of `action` on `stream` the log holds. */
static long count_lines(const char *path, const char *action, uintptr_t stream) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[512], tail[64];
  snprintf(tail, sizeof tail, ",0x%lx\n", (unsigned long)stream);
  long count = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    char *field = strchr(line, ',');
    field = field ? strchr(field + 1, ',') : NULL; /* after the time */
    if (field == NULL) continue;
    size_t n = strlen(action);
    size_t len = strlen(line), tail_len = strlen(tail);
    if (strncmp(field + 1, action, n) == 0 && field[1 + n] == ',' && len >= tail_len &&
        strcmp(line + len - tail_len, tail) == 0)
      count++;
  }
  fclose(f);
  return count;
}

static long count_all_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  long lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    if (c == '\n') lines++;
  fclose(f);
  return lines;
}

/* The log holds the header and exactly `pairs` matched allocate/free pairs
 * (saying what it holds otherwise). */
static void assert_complete_log(const char *scenario, const char *path, long pairs) {
  log_summary sum = log_check(path);
  if (sum.format_errors != 0 || sum.allocates != pairs || sum.frees != pairs ||
      sum.unmatched != 0 || sum.failures != 0) {
    print_error("%s: the log holds %ld lines (expected the header and %ld events): %ld allocates, "
                "%ld frees, %ld unmatched, %ld format errors\n",
                scenario, count_all_lines(path), 2 * pairs, sum.allocates, sum.frees, sum.unmatched,
                sum.format_errors);
    fail();
  }
}

static void assert_ended(const char *scenario, const child_result *r) {
  if (r->signal != 0) {
    print_error("%s: the helper was killed by signal %d (%s)\n", scenario, r->signal,
                strsignal(r->signal));
    fail();
  }
  if (r->status != 0) {
    print_error("%s: the helper failed (exit status %d)\n", scenario, r->status);
    fail();
  }
}

static void test_pthread_exit_from_main(void **state) {
#ifdef UNDER_TSAN
  skip(); /* ThreadSanitizer's own thread keeps such a process alive, with or without a log */
#endif
  char *path = temp_path("pthread");
  /* Once the last thread of the application ends, the process ends: the
   * writer does not keep it alive (it would hang here). */
  child_result r = run_helper("pthread-exit", path);
  assert_ended("pthread-exit", &r);
  assert_complete_log("pthread-exit", path, 20);
  assert_int_equal(count_lines(path, "allocate", 0x2000), 10);
  unlink(path);
  free(path);
}

static void test_return_from_main(void **state) {
  char *path = temp_path("return");
  child_result r = run_helper("return", path);
  assert_ended("return", &r);
  assert_complete_log("return", path, 10);
  unlink(path);
  free(path);
}

/* exit(0) from a second thread while main keeps logging: every line logged
 * before the call is written, no line is torn (main's lines after the call
 * may or may not be there), and nothing hangs. Repeated to shake the race. */
static void test_exit_from_thread_while_main_logs(void **state) {
  char *path = temp_path("thread");
  for (int run = 0; run < 5; run++) {
    child_result r = run_helper("exit-thread", path);
    assert_ended("exit-thread", &r);
    long main_allocates = -1;
    assert_int_equal(sscanf(r.output, "main-allocates %ld", &main_allocates), 1);
    log_summary sum = log_check(path);
    if (sum.format_errors != 0 || sum.unmatched > 1) {
      /* At most main's last allocation, whose free came too late. */
      print_error("exit-thread run %d: the log holds %ld lines: %ld format errors, %ld unmatched\n",
                  run, count_all_lines(path), sum.format_errors, sum.unmatched);
      fail();
    }
    long other_allocates = count_lines(path, "allocate", 0x2000);
    long other_frees = count_lines(path, "free", 0x2000);
    long logged = count_lines(path, "allocate", 0x1000);
    if (other_allocates != 100 || other_frees != 100 || logged < main_allocates) {
      print_error("exit-thread run %d: the log holds %ld lines: the exiting thread's %ld "
                  "allocates and %ld frees of 100, main's %ld allocates of at least %ld\n",
                  run, count_all_lines(path), other_allocates, other_frees, logged, main_allocates);
      fail();
    }
  }
  unlink(path);
  free(path);
}

static void test_exit_from_thread_while_main_waits(void **state) {
  char *path = temp_path("blocked");
  child_result r = run_helper("exit-blocked", path);
  assert_ended("exit-blocked", &r);
  assert_complete_log("exit-blocked", path, 100);
  unlink(path);
  free(path);
}

/* exit(0) from a second thread while main creates, uses, flushes and
 * destroys another log over and over: no hang, the exiting thread's lines
 * all written, and the other log (if its header was written) whole. */
static void test_exit_while_main_creates_and_destroys(void **state) {
  char *path = temp_path("churn");
  char churn_path[600];
  snprintf(churn_path, sizeof churn_path, "%s.churn", path);
  for (int run = 0; run < 5; run++) {
    child_result r = run_helper("exit-churn", path);
    assert_ended("exit-churn", &r);
    long other_allocates = count_lines(path, "allocate", 0x2000);
    long other_frees = count_lines(path, "free", 0x2000);
    log_summary sum = log_check(path);
    if (other_allocates != 100 || other_frees != 100 || sum.format_errors != 0 ||
        sum.unmatched != 0) {
      print_error("exit-churn run %d: the log holds %ld lines: %ld allocates and %ld frees of "
                  "100, %ld unmatched, %ld format errors\n",
                  run, count_all_lines(path), other_allocates, other_frees, sum.unmatched,
                  sum.format_errors);
      fail();
    }
    if (count_all_lines(churn_path) > 0) {
      sum = log_check(churn_path);
      if (sum.format_errors != 0 || sum.unmatched > 1) {
        print_error("exit-churn run %d: the churned log holds %ld lines: %ld unmatched, %ld "
                    "format errors\n",
                    run, count_all_lines(churn_path), sum.unmatched, sum.format_errors);
        fail();
      }
    }
  }
  unlink(churn_path);
  unlink(path);
  free(path);
}

/* A write that fails is reported by flush, and at exit on stderr (nobody
 * else is left to tell); the lines that fit are whole. */
static void test_write_error_reported_at_exit(void **state) {
  char *path = temp_path("error");
  child_result r = run_helper("write-error", path);
  assert_ended("write-error", &r);
  const char *said = strstr(r.errors, "mrctx: log(");
  if (strstr(r.errors, "flush: ") == NULL || strstr(r.errors, "File too large") == NULL ||
      said == NULL || strstr(said, ": the log is incomplete: File too large\n") == NULL) {
    print_error("write-error: expected flush's error and the exit's message, got:\n%s", r.errors);
    fail();
  }
  log_summary sum = log_check(path);
  if (sum.format_errors != 0 || sum.allocates < 5 || sum.unmatched > 1) {
    print_error("write-error: what fits must be whole lines: %ld lines, %ld allocates, %ld "
                "unmatched, %ld format errors\n",
                count_all_lines(path), sum.allocates, sum.unmatched, sum.format_errors);
    fail();
  }
  unlink(path);
  free(path);
}

/* A file size limit with SIGXFSZ at its default action, which ends the
 * process: the log's own writes on the application's thread (a flush,
 * destroy, the exit writing) fail with EFBIG instead, the process lives on
 * to say so, and the file ends in a whole line. */
static void test_size_limit_signal_does_not_kill(void **state) {
  static const char *const scenarios[] = {"xfsz-flush", "xfsz-destroy", "xfsz-exit"};
  char *path = temp_path("xfsz");
  for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
    unlink(path);
    child_result r = run_helper(scenarios[i], path);
    assert_ended(scenarios[i], &r);
    if (strstr(r.errors, ": the log is incomplete: File too large\n") == NULL) {
      print_error("%s: expected the log to say it is incomplete, got:\n%s", scenarios[i], r.errors);
      fail();
    }
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fseek(f, -1, SEEK_END), 0);
    int last = fgetc(f);
    fclose(f);
    log_summary sum = log_check(path);
    if (st.st_size > 1000 || last != '\n' || sum.format_errors != 0 || sum.allocates < 5) {
      print_error("%s: %ld bytes, last byte 0x%02x, %ld allocates, %ld format errors\n",
                  scenarios[i], (long)st.st_size, last, sum.allocates, sum.format_errors);
      fail();
    }
  }
  unlink(path);
  free(path);
}

/* A log on a FIFO whose reader has left, with SIGPIPE at its default
 * action (which ends the process): the log's writes on the application's
 * thread (a flush, destroy, the exit writing) fail with EPIPE instead, and
 * the process lives on to say so. A SIGPIPE already pending from
 * elsewhere is left pending: it is not the log's to take. */
static void test_broken_pipe_does_not_kill(void **state) {
  static const char *const scenarios[] = {"epipe-flush", "epipe-destroy", "epipe-exit",
                                          "epipe-pending"};
  char *path = temp_path("epipe");
  for (size_t i = 0; i < sizeof scenarios / sizeof *scenarios; i++) {
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    child_result r = run_helper(scenarios[i], path);
    assert_ended(scenarios[i], &r);
    const char *expected =
        strcmp(scenarios[i], "epipe-flush") == 0 || strcmp(scenarios[i], "epipe-pending") == 0
            ? "failed: Broken pipe\n"
            : ": the log is incomplete: Broken pipe\n";
    if (strstr(r.errors, expected) == NULL) {
      print_error("%s: expected \"%s\" on stderr, got:\n%s", scenarios[i], expected, r.errors);
      fail();
    }
    if (strcmp(scenarios[i], "epipe-pending") == 0 && strstr(r.output, "pending kept\n") == NULL) {
      print_error("epipe-pending: the SIGPIPE raised before the flush was taken: %s\n", r.output);
      fail();
    }
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode)); /* still the FIFO: written to, never replaced */
  }
  unlink(path);
  free(path);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: test_adaptor_log_exit PATH-OF-log_exit_helper\n");
    return 2;
  }
  helper_path = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pthread_exit_from_main),
      cmocka_unit_test(test_return_from_main),
      cmocka_unit_test(test_exit_from_thread_while_main_logs),
      cmocka_unit_test(test_exit_from_thread_while_main_waits),
      cmocka_unit_test(test_exit_while_main_creates_and_destroys),
      cmocka_unit_test(test_write_error_reported_at_exit),
      cmocka_unit_test(test_size_limit_signal_does_not_kill),
      cmocka_unit_test(test_broken_pipe_does_not_kill),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
