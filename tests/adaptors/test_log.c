/* unit: log(UP, file=PATH) */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adaptor_test.h"

static char *temp_path(const char *name) {
  const char *dir = getenv("TMPDIR");
  if (dir == NULL || dir[0] == '\0') dir = "/tmp";
  char *path = malloc(512);
  snprintf(path, 512, "%s/mrctx-test-%ld-%s.csv", dir, (long)getpid(), name);
  return path;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("edges");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  char expected[600];
  snprintf(expected, sizeof expected, "log(faulty, file=%s)", path);
  assert_describes(mr, expected);
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  assert_ok(mr_log_resource_flush(mr));
  log_summary sum = log_check(path); /* just the header */
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(sum.allocates + sum.frees + sum.failures, 0);
  mr_resource_release(mr);
  assert_status(mr_log_resource_flush(u.mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("faulty is not a log resource");
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

/* Over /dev/null, should a check come too late to stop creation. */
static mr_status create_log(mr_resource *up, mr_resource **out) {
  return mr_log_resource_create(up, "/dev/null", out);
}

static void test_unopenable_file(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_log_resource_create(u.mr, "/nonexistent-dir/x/log.csv", &mr),
                MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("cannot open '/nonexistent-dir/x/log.csv' for writing: No such file or "
                        "directory");
  /* The header is written at creation: a file that takes nothing fails it. */
  if (access("/dev/full", W_OK) == 0) {
    assert_status(mr_log_resource_create(u.mr, "/dev/full", &mr), MR_ERR_INVALID_ARGUMENT);
    assert_null(mr);
    assert_error_contains("writing '/dev/full' failed: No space left on device");
  }
  assert_status(mr_log_resource_create(u.mr, "", &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("no file given");
  assert_status(mr_log_resource_create(u.mr, NULL, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("log(faulty): no file given");
  mr_resource_release(u.mr);
  assert_checks_upstream_and_out("log", create_log);
}

/* A FIFO with no reader fails creation at once, from C and from a spec,
 * instead of waiting for a reader forever; one with a reader (a pipe, like
 * /dev/stderr) is written to. Waiting would block in open() for good: the
 * alarm, a last resort with a limit only a hang reaches
 * (test_watchdog_seconds), kills the test then. */
static void test_fifo(void **state) {
  char *path = temp_path("fifo");
  unlink(path);
  assert_int_equal(mkfifo(path, 0600), 0);
  alarm(test_watchdog_seconds(60));
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_log_resource_create(u.mr, path, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  char expected[1400];
  snprintf(expected, sizeof expected,
           "log(faulty, file=%s): cannot open '%s' for writing: it is a FIFO with no reader", path,
           path);
  assert_error_contains(expected);

  static const mr_tag tags[] = {{"temp", "host"}};
  char overrides[700];
  snprintf(overrides, sizeof overrides, "temp=log(host, file=\"%s\")", path);
  mr_context_desc desc = {
      .size = sizeof desc, .library = "fifo", .tags = tags, .tag_count = 1, .overrides = overrides};
  mr_context *ctx = (mr_context *)1;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  assert_error_contains("it is a FIFO with no reader");

  int reader = open(path, O_RDONLY | O_NONBLOCK);
  assert_true(reader >= 0);
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  void *p = NULL;
  assert_ok(mr_allocate(mr, 64, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(mr, p, 64, 0, STREAM_A));
  assert_ok(mr_log_resource_flush(mr));
  char got[4096];
  ssize_t n = read(reader, got, sizeof got - 1);
  assert_true(n > 0);
  got[n] = '\0';
  assert_non_null(strstr(got, "Thread,Time,Action,Pointer,Size,Stream\n"));
  assert_non_null(strstr(got, ",allocate,"));
  assert_non_null(strstr(got, ",free,"));
  mr_resource_release(mr);
  close(reader);
  alarm(0);
  mr_resource_release(u.mr);
  unlink(path);
  free(path);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_true(fputs(text, f) >= 0);
  assert_int_equal(fclose(f), 0);
}

static void assert_file_holds(const char *path, const char *text) {
  char got[256] = "";
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  size_t n = fread(got, 1, sizeof got - 1, f);
  got[n] = '\0';
  fclose(f);
  assert_string_equal(got, text);
}

static mr_status log_pair(mr_resource *mr) {
  void *p = NULL;
  mr_status st = mr_allocate(mr, 64, 0, STREAM_A, &p);
  return st != MR_OK ? st : mr_deallocate(mr, p, 64, 0, STREAM_A);
}

/* What the file= path names decides what becomes of it
 * (core/file_write.h): a regular file is replaced by a new one, never
 * truncated in place (another name of the old file keeps its contents); a
 * symbolic link to a file is refused, its target untouched; a FIFO with a
 * reader gets the lines and stays a FIFO (with test_fifo); a character
 * device is written to and stays one. */
static void test_what_the_path_names(void **state) {
  char dir[] = "/tmp/mrctx-log-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[128], other[128], symlink_path[128], device[128];
  snprintf(path, sizeof path, "%s/log.csv", dir);
  snprintf(other, sizeof other, "%s/other-name", dir);
  snprintf(symlink_path, sizeof symlink_path, "%s/link.csv", dir);
  snprintf(device, sizeof device, "%s/null", dir);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;

  /* A regular file with a second name: replaced, the second name keeps
   * the old contents. */
  write_text(path, "old contents\n");
  assert_int_equal(link(path, other), 0);
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  assert_ok(log_pair(mr));
  assert_ok(mr_log_resource_flush(mr));
  mr_resource_release(mr);
  assert_file_holds(other, "old contents\n");
  log_summary sum = log_check(path);
  assert_int_equal(sum.allocates, 1);
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(unlink(other), 0);

  /* A symbolic link to a file: refused at creation, the file untouched. */
  write_text(path, "the victim's data\n");
  assert_int_equal(symlink(path, symlink_path), 0);
  mr = (mr_resource *)1;
  assert_status(mr_log_resource_create(u.mr, symlink_path, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("it is a symbolic link to a regular file");
  assert_file_holds(path, "the victim's data\n");
  struct stat st;
  assert_int_equal(lstat(symlink_path, &st), 0);
  assert_true(S_ISLNK(st.st_mode));
  assert_int_equal(unlink(symlink_path), 0);
  assert_int_equal(unlink(path), 0);

  /* A symbolic link to a FIFO with a reader is followed (as /dev/stderr
   * on a pipe is). */
  assert_int_equal(mkfifo(path, 0600), 0);
  assert_int_equal(symlink(path, symlink_path), 0);
  test_fifo_reader reader;
  test_fifo_reader_start(&reader, path);
  assert_ok(mr_log_resource_create(u.mr, symlink_path, &mr));
  assert_ok(log_pair(mr));
  mr_resource_release(mr);
  char *got = test_fifo_reader_finish(&reader, NULL);
  assert_non_null(strstr(got, "Thread,Time,Action,Pointer,Size,Stream\n"));
  assert_non_null(strstr(got, ",free,"));
  free(got);
  assert_int_equal(lstat(path, &st), 0);
  assert_true(S_ISFIFO(st.st_mode));
  assert_int_equal(unlink(symlink_path), 0);
  assert_int_equal(unlink(path), 0);

  /* A character device: written to, still a device after. */
  if (test_make_null_device(device)) {
    assert_ok(mr_log_resource_create(u.mr, device, &mr));
    assert_ok(log_pair(mr));
    assert_ok(mr_log_resource_flush(mr));
    mr_resource_release(mr);
    assert_int_equal(lstat(device, &st), 0);
    assert_true(S_ISCHR(st.st_mode));
    assert_int_equal(unlink(device), 0);
  }
  /* Nothing was left beside: the folder is empty. */
  assert_int_equal(rmdir(dir), 0);
  mr_resource_release(u.mr);
}

/* A path that is not a bare word is quoted in the description, which
 * parses back to the same description, from C and from a spec. */
static void test_descriptions_quote_the_path(void **state) {
  char dir[] = "/tmp/mrctx-log-XXXXXX";
  assert_non_null(mkdtemp(dir));
  static const struct {
    const char *name, *file; /* file: as the description writes it, after the folder */
  } cases[] = {
      {"plain-1.csv", "/plain-1.csv"},
      {"my log.csv", "/my log.csv\""},
      {"a,b(c)=d#e;f@g.csv", "/a,b(c)=d#e;f@g.csv\""},
      {"q\"uo\\te.csv", "/q\\\"uo\\\\te.csv\""},
      {"\xc3\xa9t\xc3\xa9 \xe2\x82\xac.csv", "/\xc3\xa9t\xc3\xa9 \xe2\x82\xac.csv\""},
      {"tab\there.csv", "/tab\there.csv\""},
      {"\"", "/\\\"\""},
  };
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char path[256], expected[600];
    snprintf(path, sizeof path, "%s/%s", dir, cases[i].name);
    bool quoted = cases[i].file[strlen(cases[i].file) - 1] == '"';
    snprintf(expected, sizeof expected, "stats(log(host, file=%s%s%s))", quoted ? "\"" : "", dir,
             cases[i].file);
    mr_resource *log = NULL, *mr = NULL, *again = NULL;
    assert_ok(mr_log_resource_create(host, path, &log));
    assert_ok(mr_stats_resource_create(log, &mr));
    assert_describes(mr, expected);
    assert_ok(mr_resource_from_spec(mr_resource_describe(mr), 0, &again));
    assert_describes(again, expected);
    mr_resource_release(again);
    mr_resource_release(mr);
    mr_resource_release(log);
    assert_int_equal(unlink(path), 0);
  }
  /* A control character other than a tab cannot be written in spec text. */
  char path[256];
  snprintf(path, sizeof path, "%s/new\nline.csv", dir);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_log_resource_create(host, path, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("new?line.csv' has a control character (0x0a), which spec text cannot "
                        "carry");
  assert_int_equal(access(path, F_OK), -1);
  mr_resource_release(host);
  assert_int_equal(rmdir(dir), 0);
}

static void test_events_parse_back(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("events");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  void *p[3];
  for (int i = 0; i < 3; i++) assert_ok(mr_allocate(mr, 100 * (size_t)(i + 1), 0, STREAM_A, &p[i]));
  faulty_set_fail(u.f, 4, 1);
  void *q = (void *)1;
  assert_status(mr_allocate(mr, 77, 0, STREAM_B, &q), MR_ERR_OUT_OF_MEMORY);
  assert_null(q);
  for (int i = 0; i < 3; i++)
    assert_ok(mr_deallocate(mr, p[i], 100 * (size_t)(i + 1), 0, STREAM_B));
  assert_ok(mr_log_resource_flush(mr));
  log_summary sum = log_check(path);
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(sum.allocates, 3);
  assert_int_equal(sum.failures, 1);
  assert_int_equal(sum.frees, 3);
  assert_int_equal(sum.unmatched, 0);
  /* The exact fields of one line. */
  FILE *f = fopen(path, "r");
  char line[256], want[128];
  assert_non_null(fgets(line, sizeof line, f));
  assert_non_null(fgets(line, sizeof line, f));
  snprintf(want, sizeof want, ",allocate,0x%lx,100,0x1000\n", (unsigned long)(uintptr_t)p[0]);
  assert_non_null(strstr(line, want));
  char thread[32];
  snprintf(thread, sizeof thread, "%ld,", (long)gettid());
  assert_int_equal(strncmp(line, thread, strlen(thread)), 0);
  for (int i = 0; i < 3; i++) assert_non_null(fgets(line, sizeof line, f));
  assert_non_null(strstr(line, ",allocate failure,0x0,77,0x2000\n"));
  fclose(f);
  mr_resource_release(mr);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

static void test_destroy_writes_everything(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("destroy");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  for (int i = 0; i < 5000; i++) {
    void *p = NULL;
    assert_ok(mr_allocate(mr, 64, 0, NULL, &p));
    assert_ok(mr_deallocate(mr, p, 64, 0, NULL));
  }
  mr_resource_release(mr); /* no flush: destruction writes it all */
  log_summary sum = log_check(path);
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(sum.allocates, 5000);
  assert_int_equal(sum.frees, 5000);
  assert_int_equal(sum.unmatched, 0);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

static long file_lines(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return -1;
  long lines = 0;
  for (int c; (c = fgetc(f)) != EOF;)
    if (c == '\n') lines++;
  fclose(f);
  return lines;
}

static long thread_count(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long threads = -1;
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "Threads: %ld", &threads) == 1) break;
  if (f != NULL) fclose(f);
  return threads;
}

/* Wait until the file has `want` lines, or the process `want` threads:
 * what the writer does by itself, with no event to wait on but the state
 * it leaves, so this looks every 10 ms, for as long as it takes (meson's
 * timeout catches a writer that never does it). Every 5 s it says on
 * stderr what it still waits for, so a timeout's log tells which. */
static void wait_for_lines(const char *path, long want) {
  for (long looks = 1; file_lines(path) != want; looks++) {
    if (looks % 500 == 0)
      fprintf(stderr, "still waiting for %ld lines in %s: %ld there\n", want, path,
              file_lines(path));
    usleep(10000);
  }
}
static void wait_for_threads(long want) {
  for (long looks = 1; thread_count() != want; looks++) {
    if (looks % 500 == 0)
      fprintf(stderr, "still waiting for the writer to end: %ld threads, expected %ld\n",
              thread_count(), want);
    usleep(10000);
  }
}

/* Two live logs of one file share it (a context builds one log per device
 * from one spec): one header, every line of both. Once both are gone, a new
 * log of that file starts it afresh. */
static void test_logs_share_a_file(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("shared");
  mr_resource *a = NULL, *b = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &a));
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(a, 64, 0, NULL, &p));
  assert_ok(mr_log_resource_flush(a));
  assert_ok(mr_log_resource_create(u.mr, path, &b)); /* must not truncate a's lines */
  assert_ok(mr_allocate(b, 128, 0, NULL, &q));
  assert_ok(mr_deallocate(a, p, 64, 0, NULL));
  assert_ok(mr_deallocate(b, q, 128, 0, NULL));
  mr_resource_release(a);
  mr_resource_release(b);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  int headers = 0, allocates = 0, frees = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    headers += strcmp(line, "Thread,Time,Action,Pointer,Size,Stream\n") == 0;
    allocates += strstr(line, ",allocate,") != NULL;
    frees += strstr(line, ",free,") != NULL;
  }
  fclose(f);
  assert_int_equal(headers, 1);
  assert_int_equal(allocates, 2);
  assert_int_equal(frees, 2);
  /* No live log writes it any more: the next one truncates. */
  assert_ok(mr_log_resource_create(u.mr, path, &a));
  f = fopen(path, "r");
  assert_non_null(f);
  int lines = 0;
  while (fgets(line, sizeof line, f) != NULL) lines++;
  fclose(f);
  assert_int_equal(lines, 1);
  mr_resource_release(a);
  /* A character device is shared too, and never truncated. */
  assert_ok(mr_log_resource_create(u.mr, "/dev/null", &a));
  assert_ok(mr_log_resource_create(u.mr, "/dev/null", &b));
  mr_resource_release(a);
  mr_resource_release(b);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

static void test_header_at_creation(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("header");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  /* On disk at once, before any event or flush. */
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[128] = "";
  assert_non_null(fgets(line, sizeof line, f));
  assert_string_equal(line, "Thread,Time,Action,Pointer,Size,Stream\n");
  assert_null(fgets(line, sizeof line, f));
  fclose(f);
  mr_resource_release(mr);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

/* The writer thread ends once the log is idle (so it never keeps a process
 * alive) and a new one starts with the next event; lines still reach the
 * file without a flush. */
static void test_writer_ends_when_idle(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("idle");
  long threads = thread_count();
  assert_true(threads > 0);
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  for (int round = 1; round <= 2; round++) {
    void *p = NULL;
    assert_ok(mr_allocate(mr, 64, 0, NULL, &p));
    assert_ok(mr_deallocate(mr, p, 64, 0, NULL));
    wait_for_lines(path, 1 + 2 * round); /* without a flush */
    wait_for_threads(threads);           /* the writer ended */
  }
  mr_resource_release(mr);
  log_summary sum = log_check(path);
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(sum.allocates, 2);
  assert_int_equal(sum.frees, 2);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

/* A child made by fork() logs its own events to the same file, and leaves
 * the lines the parent had not written yet to the parent: none twice. */
static void test_fork_child_writes_only_its_own(void **state) {
#ifdef UNDER_TSAN
  skip(); /* the child starts a writer: ThreadSanitizer forbids threads after a threaded fork */
#endif
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("fork");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  void *p = NULL;
  assert_ok(mr_allocate(mr, 64, 0, STREAM_A, &p)); /* buffered: the writer waits 100 ms */
  assert_ok(mr_deallocate(mr, p, 64, 0, STREAM_A));
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    void *q = NULL;
    bool ok = mr_allocate(mr, 64, 0, STREAM_B, &q) == MR_OK &&
              mr_deallocate(mr, q, 64, 0, STREAM_B) == MR_OK;
    exit(ok ? 0 : 1); /* the exit flush writes the child's lines */
  }
  int status = 0;
  /* A child that never ends is a hang: meson's timeout ends both. */
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  mr_resource_release(mr);
  log_summary sum = log_check(path);
  if (sum.format_errors != 0 || sum.allocates != 2 || sum.frees != 2 || sum.unmatched != 0) {
    print_error("fork: %ld lines, %ld allocates and %ld frees (expected 2 and 2), %ld unmatched, "
                "%ld format errors\n",
                file_lines(path), sum.allocates, sum.frees, sum.unmatched, sum.format_errors);
    fail();
  }
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

/* A file that stops growing part-way through a write (a full disk; here a
 * file size limit) keeps only whole lines, also when two logs share it:
 * the torn end of a write is cut, and never a line the other log wrote. */
static void test_size_limit_keeps_whole_lines(void **state) {
#ifdef UNDER_TSAN
  skip(); /* the child starts writers: ThreadSanitizer forbids threads after a threaded fork */
#endif
  char *path = temp_path("limit");
  const rlim_t limit = 3000; /* about 50 lines: the limit falls inside one */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN); /* a write past the limit fails with EFBIG instead */
    struct rlimit rl = {.rlim_cur = limit, .rlim_max = limit};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0) exit(3);
    faulty_upstream u = faulty_new(false);
    mr_resource *a = NULL, *b = NULL;
    if (mr_log_resource_create(u.mr, path, &a) != MR_OK ||
        mr_log_resource_create(u.mr, path, &b) != MR_OK)
      exit(2);
    for (int i = 0; i < 200; i++) {
      mr_resource *mr = i % 2 ? a : b;
      void *p = NULL;
      if (mr_allocate(mr, 64 + (size_t)i, 0, STREAM_A, &p) != MR_OK ||
          mr_deallocate(mr, p, 64 + (size_t)i, 0, STREAM_A) != MR_OK)
        exit(1);
      /* Flush in small batches, so both logs write near the limit. */
      if (i % 8 == 7) {
        mr_status fa = mr_log_resource_flush(a), fb = mr_log_resource_flush(b);
        (void)fa; /* fails once the limit is hit: expected */
        (void)fb;
      }
    }
    mr_status flushed = mr_log_resource_flush(a);
    mr_resource_release(a);
    mr_resource_release(b);
    mr_resource_release(u.mr);
    exit(flushed == MR_OK ? 4 : 0); /* the limit must have been hit */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  assert_true(st.st_size > 0 && st.st_size <= (off_t)limit);
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  assert_int_equal(fseek(f, -1, SEEK_END), 0);
  assert_int_equal(fgetc(f), '\n');
  fclose(f);
  log_summary sum = log_check(path);
  if (sum.format_errors != 0 || sum.allocates < 10) {
    print_error("size limit: %ld bytes, %ld allocates, %ld format errors\n", (long)st.st_size,
                sum.allocates, sum.format_errors);
    fail();
  }
  unlink(path);
  free(path);
}

static void test_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  char *path = temp_path("threads");
  mr_resource *mr = NULL;
  assert_ok(mr_log_resource_create(u.mr, path, &mr));
  long n = churn(mr, 8, 4000, 2000, true);
  assert_ok(mr_log_resource_flush(mr));
  log_summary sum = log_check(path);
  assert_int_equal(sum.format_errors, 0);
  assert_int_equal(sum.allocates, n);
  assert_int_equal(sum.frees, n);
  assert_int_equal(sum.unmatched, 0);
  mr_resource_release(mr);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  unlink(path);
  free(path);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_descriptions_quote_the_path),
      cmocka_unit_test(test_unopenable_file),
      cmocka_unit_test(test_events_parse_back),
      cmocka_unit_test(test_destroy_writes_everything),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_header_at_creation),
      cmocka_unit_test(test_logs_share_a_file),
      cmocka_unit_test(test_writer_ends_when_idle),
      cmocka_unit_test(test_fork_child_writes_only_its_own),
      cmocka_unit_test(test_size_limit_keeps_whole_lines),
      cmocka_unit_test(test_fifo),
      cmocka_unit_test(test_what_the_path_names),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
