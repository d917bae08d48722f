/*
 * test_shutdown_fake.c: frees after the CUDA driver shut down at process
 * exit (CUDA_ERROR_DEINITIALIZED), which is when Python and C++
 * destructors run. docs/semantics.md promises they succeed: the memory went
 * with the driver. For every resource that keeps or wraps memory over every
 * driver upstream, blocks allocated on a created stream and on the legacy
 * stream are freed after the shutdown, from the allocating thread and from
 * a fresh thread with no current context; then trim, and destroy. Every
 * free and trim returns MR_OK, the statistics above the resource drop to 0,
 * and destroy reports no leak (track's "mrctx: leak:" line on stderr).
 * Also: the plain driver resources freed from a thread without a current
 * context while the driver is live.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fake_test.h"

#define BLOCK 4096

static const char *const upstreams[] = {
    "device",
    "device_default",
    "pinned",
    "managed",
    "pool(kind=device)",
    "pool(kind=pinned)",
    "pool(kind=managed)",
    "sync_device",
    "sync_pinned",
    "sync_managed",
    "expandable",
    "expandable(page=2MiB, large_page=4MiB)",
};

/* The resources under test: name(UP<args>). log's file is filled in. */
static const struct {
  const char *name, *args;
} keepers[] = {
    {"cache", ""},
    {"arena", ", chunk=1MiB"},
    {"fixed", ", block=64KiB, count=4"},
    {"bin", ", max=8KiB, count=4"},
    {"track", ""},
    {"limit", ", bytes=1GiB"},
    {"stats", ""},
    {"log", NULL},
    {"retry", ""},
    {"align", ", alignment=4KiB"},
};

static char log_path[64];

/* stats(track(K(U))): the outer stats and track see whether each free got
 * through, and track reports a leak on destroy if one did not. */
static mr_resource *make_chain(size_t keeper, const char *upstream, char *spec, size_t cap) {
  const char *args = keepers[keeper].args;
  snprintf(spec, cap, "stats(track(%s(%s%s%s)))", keepers[keeper].name, upstream,
           args != NULL ? args : ", file=", args != NULL ? "" : log_path);
  mr_resource *mr = NULL;
  if (mr_resource_from_spec(spec, 0, &mr) != MR_OK) {
    print_error("%s: %s\n", spec, mr_last_error());
    fail();
  }
  return mr;
}

typedef struct thread_job {
  mr_resource *mr;
  void *ptrs[2];
  mr_stream streams[2];
  bool trim;
  mr_status status[3];
  char message[3][512];
} thread_job;

static void free_on_thread(void *arg) {
  thread_job *job = arg;
  for (int i = 0; i < 2; i++) {
    job->status[i] = mr_deallocate(job->mr, job->ptrs[i], BLOCK, 0, job->streams[i]);
    snprintf(job->message[i], sizeof job->message[i], "%s", mr_last_error());
  }
  job->status[2] = job->trim ? mr_resource_trim(job->mr) : MR_OK;
  snprintf(job->message[2], sizeof job->message[2], "%s", mr_last_error());
}

/* Release `mr` with stderr sent to a file; true if nothing said "leak". */
static bool release_without_leak(mr_resource *mr, const char *spec) {
  char path[] = "/tmp/mrctx-shutdown-stderr-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  fflush(stderr);
  int saved = dup(STDERR_FILENO);
  assert_true(saved >= 0);
  assert_true(dup2(fd, STDERR_FILENO) >= 0);
  mr_resource_release(mr);
  fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  char text[4096] = {0};
  ssize_t n = pread(fd, text, sizeof text - 1, 0);
  close(fd);
  unlink(path);
  if (n > 0 && strstr(text, "leak") != NULL) {
    print_error("%s: destroy after driver shutdown reported:\n%s", spec, text);
    return false;
  }
  return true;
}

static void check(bool ok, const char *spec, const char *what, const char *message, int *failures) {
  if (ok) return;
  print_error("%s: %s: %s\n", spec, what, message);
  (*failures)++;
}

static void test_frees_after_shutdown(void **state) {
  int fd = -1;
  snprintf(log_path, sizeof log_path, "/tmp/mrctx-shutdown-log-XXXXXX");
  fd = mkstemp(log_path);
  assert_true(fd >= 0);
  close(fd);
  int failures = 0, tried = 0;
  for (size_t k = 0; k < MRI_ARRAY_SIZE(keepers); k++) {
    for (size_t u = 0; u < MRI_ARRAY_SIZE(upstreams); u++) {
      fake_cuda_reset();
      fake_bind(0);
      char spec[512];
      mr_resource *mr = make_chain(k, upstreams[u], spec, sizeof spec);
      CUstream stream = fake_new_stream();
      /* [created stream, legacy] x [this thread frees, a fresh one does] */
      mr_stream on[4] = {(mr_stream)stream, NULL, (mr_stream)stream, NULL};
      void *ptrs[4];
      for (int i = 0; i < 4; i++) assert_ok(mr_allocate(mr, BLOCK, 0, on[i], &ptrs[i]));
      tried++;

      fake_cuda_set_deinitialized(true);
      for (int i = 0; i < 2; i++) {
        mr_status st = mr_deallocate(mr, ptrs[i], BLOCK, 0, on[i]);
        check(st == MR_OK, spec, i == 0 ? "free on a stream" : "free on the legacy stream",
              mr_last_error(), &failures);
      }
      /* Nothing can be allocated any more, not even what a cache kept: it
       * went with the driver. */
      for (int i = 0; i < 2; i++) {
        void *p = (void *)1;
        mr_status st = mr_allocate(mr, BLOCK, 0, on[i], &p);
        if (st == MR_OK || p != NULL) {
          print_error("%s: allocated %p after the driver shut down\n", spec, p);
          failures++;
        } else if (strstr(mr_last_error(), "CUDA_ERROR_DEINITIALIZED") == NULL &&
                   strstr(mr_last_error(), "shut down") == NULL) {
          print_error("%s: an allocation after the shutdown says \"%s\"\n", spec, mr_last_error());
          failures++;
        }
      }
      thread_job job = {
          .mr = mr, .ptrs = {ptrs[2], ptrs[3]}, .streams = {on[2], on[3]}, .trim = true};
      fake_run_thread(free_on_thread, &job);
      check(job.status[0] == MR_OK, spec, "free on a stream from a thread without a context",
            job.message[0], &failures);
      check(job.status[1] == MR_OK, spec,
            "free on the legacy stream from a thread without a context", job.message[1], &failures);
      check(job.status[2] == MR_OK, spec, "trim from a thread without a context", job.message[2],
            &failures);
      mr_status st = mr_resource_trim(mr);
      check(st == MR_OK, spec, "trim", mr_last_error(), &failures);

      mr_stats stats;
      mr_stats_init(&stats);
      assert_ok(mr_stats_resource_get(mr, &stats));
      if (stats.current_bytes != 0 || stats.current_count != 0) {
        print_error("%s: after the frees the statistics hold %llu bytes in %llu blocks\n", spec,
                    (unsigned long long)stats.current_bytes,
                    (unsigned long long)stats.current_count);
        failures++;
      }
      if (!release_without_leak(mr, spec)) failures++;
      fake_cuda_reset(); /* the "shut down" driver kept its memory: drop it */
    }
  }
  unlink(log_path);
  if (failures != 0) {
    print_error("%d failures in %d chains\n", failures, tried);
    fail();
  }
}

/* The plain driver resources, live driver: a thread with no current
 * context frees on a created stream and on the legacy stream. */
static void test_free_without_context(void **state) {
  int failures = 0;
  for (size_t u = 0; u < MRI_ARRAY_SIZE(upstreams); u++) {
    fake_cuda_reset();
    fake_bind(0);
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(upstreams[u], 0, &mr));
    CUstream stream = fake_new_stream();
    thread_job job = {.mr = mr, .streams = {(mr_stream)stream, NULL}};
    for (int i = 0; i < 2; i++) assert_ok(mr_allocate(mr, BLOCK, 0, job.streams[i], &job.ptrs[i]));
    fake_run_thread(free_on_thread, &job);
    check(job.status[0] == MR_OK, upstreams[u], "free on a stream from a thread without a context",
          job.message[0], &failures);
    check(job.status[1] == MR_OK, upstreams[u],
          "free on the legacy stream from a thread without a context", job.message[1], &failures);
    assert_ok(mr_resource_synchronize(mr, NULL));
    mr_resource_release(mr);
    fake_cu()->cuStreamDestroy(stream);
    if (job.status[0] == MR_OK && job.status[1] == MR_OK) assert_fake_clean();
  }
  fake_cuda_reset();
  if (failures != 0) fail();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_frees_after_shutdown, fake_teardown),
      cmocka_unit_test_teardown(test_free_without_context, fake_teardown),
  };
  return cmocka_run_group_tests(tests, fake_group_setup, NULL);
}
