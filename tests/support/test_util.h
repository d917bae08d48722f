/*
 * test_util.h: shared helpers for the cmocka suites.
 */
#ifndef MRCTX_TEST_UTIL_H
#define MRCTX_TEST_UTIL_H

#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <mrctx/mrctx.h>

/* Assert a call returned `expected`; on mismatch print both status names and
 * mr_last_error() so a failure says what went wrong. */
#define assert_status(call, expected)                                                         \
  do {                                                                                        \
    mr_status st_ = (call);                                                                   \
    if (st_ != (expected)) {                                                                  \
      print_error("%s:%d: %s returned %s, expected %s; last error: %s\n", __FILE__, __LINE__, \
                  #call, mr_status_name(st_), mr_status_name(expected), mr_last_error());     \
      fail();                                                                                 \
    }                                                                                         \
  } while (0)

#define assert_ok(call) assert_status((call), MR_OK)

/* Assert mr_last_error() contains `needle`. */
#define assert_error_contains(needle)                                                       \
  do {                                                                                      \
    if (strstr(mr_last_error(), (needle)) == NULL) {                                        \
      print_error("%s:%d: last error \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                  mr_last_error(), (needle));                                               \
      fail();                                                                               \
    }                                                                                       \
  } while (0)

/* Assert mr_last_error() gives the reason there is no driver, as this build
 * words it: a build with CUDA could not load the driver (the unit suite
 * points MRCTX_CUDA_DRIVER nowhere); a build without CUDA says so. */
#define assert_error_says_no_driver()                                      \
  do {                                                                     \
    if (strstr(mr_last_error(), "could not be loaded") == NULL &&          \
        strstr(mr_last_error(), "built without CUDA") == NULL) {           \
      print_error("%s:%d: last error \"%s\" does not say why there is no " \
                  "driver\n",                                              \
                  __FILE__, __LINE__, mr_last_error());                    \
      fail();                                                              \
    }                                                                      \
  } while (0)

/* A resource over host memory that fails on demand. Every allocation is
 * counted; with fail_at = N > 0 the Nth allocation (1-based) and the
 * fail_count - 1 after it fail with fail_status. It tracks live blocks so a
 * test can assert nothing leaked and nothing was freed twice or with the
 * wrong size. Thread-safe. */
typedef struct faulty_resource faulty_resource;

typedef struct faulty_config {
  long fail_at;          /* 0: never fail */
  long fail_count;       /* how many consecutive failures (default 1) */
  mr_status fail_status; /* default MR_ERR_OUT_OF_MEMORY */
  bool stream_ordered;   /* reported in props */
  mr_memory_kind kind;   /* reported in props (default host) */
} faulty_config;

/* OUT: *mr (one reference) and *faulty (the handle to inspect it; valid as
 * long as the resource lives). */
mr_status faulty_resource_create(const faulty_config *config, mr_resource **mr,
                                 faulty_resource **faulty);
void faulty_set_fail(faulty_resource *f, long fail_at, long fail_count);
long faulty_allocations(const faulty_resource *f);   /* calls to allocate */
long faulty_deallocations(const faulty_resource *f); /* calls to deallocate */
long faulty_trims(const faulty_resource *f);         /* calls to trim */
size_t faulty_live_blocks(const faulty_resource *f);
size_t faulty_live_bytes(const faulty_resource *f);
/* Deallocations of unknown pointers or with the wrong size. */
long faulty_bad_frees(const faulty_resource *f);

/* "vspace": hands out addresses it never backs (a counter, aligned as
 * asked, each block a range of its own until 2^64 bytes were handed out;
 * the memory must never be touched), so adaptors can be built over
 * sizes no machine has, e.g. bin classes up to 2^62 bytes. Frees are
 * no-ops. Thread-safe. */
mr_status vspace_resource_create(mr_resource **out);

/* The limit of a watchdog (alarm()) that only guards against a hang:
 * `seconds` times TIMEOUT_MULTIPLIER from the environment, the factor
 * .ci/run passes to meson test's --timeout-multiplier for a slow or busy
 * machine (meson test -t N does not tell the tests: set the variable too).
 * 1 if it is unset, not a number or below 1. A test waits for events,
 * never for time: a watchdog is a last resort, generous enough that only a
 * hang reaches it, so that a test run by hand never hangs forever and a
 * hang is reported before meson's timeout where it can be. */
unsigned test_watchdog_seconds(unsigned seconds);

/* Fill with a deterministic pseudo-random sequence (xorshift64*). */
uint64_t test_rand(uint64_t *state);

/* ---- outputs that are not regular files ------------------------------------ */

/* A reader of a FIFO on a thread of its own, for tests of writers pointed
 * at one. test_fifo_reader_start opens the FIFO's read end (not waiting
 * for a writer) and starts the thread, so a writer that opens it without
 * waiting finds a reader; the thread reads until the last writer that came
 * has closed its end (poll's POLLHUP, an event, never a timeout).
 * test_fifo_reader_finish, called once the writer under test is done,
 * joins it and returns what arrived (malloc'd, NUL ended; *length the
 * bytes, if not NULL). It comes and goes as a writer itself first, so a
 * writer under test that never came (refused the FIFO) makes the result
 * empty, and the test fail, instead of hanging. */
typedef struct test_fifo_reader {
  pthread_t thread;
  char path[512];
  int fd;
  char *data;
  size_t length;
} test_fifo_reader;
void test_fifo_reader_start(test_fifo_reader *r, const char *path);
char *test_fifo_reader_finish(test_fifo_reader *r, size_t *length);

/* A character device at `path` with /dev/null's numbers (1, 3), made with
 * mknod. False (and a line on stderr saying the check is skipped) when the
 * process is not root, which mknod needs; CI runs as root. */
bool test_make_null_device(const char *path);

#endif
