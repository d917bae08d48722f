/* unit: retry(UP, attempts=N) */
#include "adaptor_test.h"
#include "driver/driver_internal.h"

typedef struct handler_log {
  int calls;
  int attempts_seen[16];
  mr_resource *mr_seen;
  size_t bytes_seen;
  mr_stream stream_seen;
  int say_yes_times;     /* answer true this many times, then false */
  faulty_resource *heal; /* if set: stop the failures on the first call */
} handler_log;

static bool handler(void *user, mr_resource *mr, size_t bytes, mr_stream stream, int attempt) {
  handler_log *h = user;
  if (h->calls < 16) h->attempts_seen[h->calls] = attempt;
  h->calls++;
  h->mr_seen = mr;
  h->bytes_seen = bytes;
  h->stream_seen = stream;
  if (h->heal != NULL) faulty_set_fail(h->heal, 0, 1);
  return h->calls <= h->say_yes_times;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL, *five = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 0, NULL, NULL, &mr));
  assert_describes(mr, "retry(faulty)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  assert_ok(mr_retry_resource_create(u.mr, 5, NULL, NULL, &five));
  assert_describes(five, "retry(faulty, attempts=5)");
  mr_resource *bad = (mr_resource *)1;
  assert_status(mr_retry_resource_create(u.mr, -1, NULL, NULL, &bad), MR_ERR_INVALID_ARGUMENT);
  assert_null(bad);
  assert_error_contains("retry(faulty): attempts -1 is negative (0 means the default, 3)");
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  mr_resource_release(five);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static mr_status create_retry(mr_resource *up, mr_resource **out) {
  return mr_retry_resource_create(up, 1, NULL, NULL, out);
}

static void test_invalid_arguments(void **state) {
  assert_checks_upstream_and_out("retry", create_retry);
}

/* attempts 0 is the default, MR_RETRY_DEFAULT_ATTEMPTS, and cache's max 0
 * its MR_CACHE_DEFAULT_MAX: the default chain of device tags built in C
 * is the one its spec builds. Both defaults stay out of the description. */
static void test_defaults(void **state) {
  mr_resource *host = NULL, *cache = NULL, *mr = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_cache_resource_create(host, 0, &cache));
  assert_ok(mr_retry_resource_create(cache, 0, NULL, NULL, &mr));
  mr_resource_release(cache);
  mr_resource_release(host);
  assert_default_as_spec(mr, "retry(cache(host))", "retry(cache(host))");
  assert_ok(mr_resource_from_spec("retry(cache(host, max=0), attempts=0)", 0, &mr));
  assert_describes(mr, "retry(cache(host))");
  mr_resource_release(mr);
  assert_ok(mr_resource_from_spec("retry(host, attempts=3)", 0, &mr));
  assert_describes(mr, "retry(host)");
  mr_resource_release(mr);
  assert_int_equal(MR_RETRY_DEFAULT_ATTEMPTS, 3);
  assert_int_equal(MR_CACHE_DEFAULT_MAX, SIZE_MAX); /* no cap */
}

static void test_transient_failures_recover(void **state) {
  faulty_upstream u = faulty_new(false);
  handler_log h = {.say_yes_times = 100};
  mr_resource *mr = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 3, handler, &h, &mr));
  void *p = NULL;
  /* One failure: the retry after the stream synchronization succeeds. */
  faulty_set_fail(u.f, 1, 1);
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &p));
  assert_int_equal(faulty_allocations(u.f), 2);
  assert_int_equal(faulty_trims(u.f), 0);
  assert_ok(mr_deallocate(mr, p, 100, 0, STREAM_A));
  /* Two: the device step trims the chain, then it succeeds. */
  faulty_set_fail(u.f, 3, 2);
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &p));
  assert_int_equal(faulty_allocations(u.f), 5);
  assert_int_equal(faulty_trims(u.f), 1);
  assert_int_equal(h.calls, 0);
  assert_ok(mr_deallocate(mr, p, 100, 0, STREAM_A));
  /* Three: the handler is asked once. */
  faulty_set_fail(u.f, 6, 3);
  assert_ok(mr_allocate(mr, 100, 0, STREAM_B, &p));
  assert_int_equal(faulty_allocations(u.f), 9);
  assert_int_equal(h.calls, 1);
  assert_int_equal(h.attempts_seen[0], 1);
  assert_ptr_equal(h.mr_seen, mr);
  assert_int_equal(h.bytes_seen, 100);
  assert_ptr_equal(h.stream_seen, STREAM_B);
  assert_ok(mr_deallocate(mr, p, 100, 0, STREAM_B));
  mr_resource_release(mr);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

static void test_bounded_by_attempts(void **state) {
  faulty_upstream u = faulty_new(false);
  handler_log h = {.say_yes_times = 100};
  mr_resource *mr = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 5, handler, &h, &mr));
  faulty_set_fail(u.f, 1, 1000);
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 64, 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  /* 1 first try + 5 retries; the handler gets attempts 3, 4, 5. */
  assert_int_equal(faulty_allocations(u.f), 6);
  assert_int_equal(h.calls, 3);
  for (int i = 0; i < 3; i++) assert_int_equal(h.attempts_seen[i], i + 1);
  assert_error_contains("retry(faulty, attempts=5): still out of memory for 64 bytes on stream "
                        "0x1000 after 5 retries (stream synchronized, device synchronized and "
                        "chain trimmed, OOM handler called 3 times): faulty: allocation 6 fails "
                        "on purpose");
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_handler_gives_up_and_heals(void **state) {
  faulty_upstream u = faulty_new(false);
  handler_log h = {.say_yes_times = 0};
  mr_resource *mr = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 10, handler, &h, &mr));
  faulty_set_fail(u.f, 1, 1000);
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 64, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_int_equal(h.calls, 1);
  assert_int_equal(faulty_allocations(u.f), 3);
  assert_error_contains("OOM handler called 1 time until it gave up): faulty: allocation 3");
  /* A handler that frees memory: the retry after it succeeds. */
  h = (handler_log){.say_yes_times = 1, .heal = u.f};
  faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1000);
  assert_ok(mr_allocate(mr, 64, 0, NULL, &p));
  assert_int_equal(h.calls, 1);
  assert_ok(mr_deallocate(mr, p, 64, 0, NULL));
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_process_wide_handler_and_small_bounds(void **state) {
  faulty_upstream u = faulty_new(false);
  handler_log h = {.say_yes_times = 100};
  mr_set_oom_handler(handler, &h);
  mr_resource *mr = NULL, *one = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 4, NULL, NULL, &mr));
  faulty_set_fail(u.f, 1, 1000);
  void *p = NULL;
  assert_status(mr_allocate(mr, 8, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_int_equal(h.calls, 2);
  mr_set_oom_handler(NULL, NULL);
  assert_status(mr_allocate(mr, 8, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_int_equal(h.calls, 2);
  assert_error_contains("no OOM handler set");
  /* attempts=1: only the stream step. */
  assert_ok(mr_retry_resource_create(u.mr, 1, handler, &h, &one));
  long before = faulty_allocations(u.f);
  assert_status(mr_allocate(one, 8, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_int_equal(faulty_allocations(u.f) - before, 2);
  assert_int_equal(h.calls, 2);
  assert_error_contains("after 1 retry (stream synchronized)");
  mr_resource_release(one);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_other_errors_pass_through(void **state) {
  faulty_config config = {.fail_at = 1, .fail_count = 100, .fail_status = MR_ERR_DRIVER};
  mr_resource *up = NULL, *mr = NULL;
  faulty_resource *f = NULL;
  assert_ok(faulty_resource_create(&config, &up, &f));
  handler_log h = {.say_yes_times = 100};
  assert_ok(mr_retry_resource_create(up, 3, handler, &h, &mr));
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 8, 0, NULL, &p), MR_ERR_DRIVER);
  assert_null(p);
  assert_string_equal(mr_last_error(), "faulty: allocation 1 fails on purpose (8 bytes)");
  assert_int_equal(faulty_allocations(f), 1);
  assert_int_equal(h.calls, 0);
  mr_resource_release(mr);
  mr_resource_release(up);
}

static void test_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 0, NULL, NULL, &mr));
  churn(mr, 8, 3000, 5000, true);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* The library tells its own kinds apart by their ops tables, never by name
 * (a context adds no retry over a chain that has one; snapshots read the
 * first cache and tracker): an application's resource whose ops are named
 * "retry", "log", "track" or "cache" is none of them. */
static mr_status named_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                void **ptr) {
  (void)self, (void)bytes, (void)alignment, (void)stream, (void)ptr;
  return MR_ERR_OUT_OF_MEMORY;
}

static mr_status named_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                  mr_stream stream) {
  (void)self, (void)ptr, (void)bytes, (void)alignment, (void)stream;
  return MR_OK;
}

static void test_kinds_told_by_type(void **state) {
  static const char *const names[] = {"retry", "log", "track", "cache", "pool"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(names); i++) {
    const mr_resource_ops ops = {.size = sizeof ops,
                                 .name = names[i],
                                 .allocate = named_allocate,
                                 .deallocate = named_deallocate};
    mr_resource *mr = NULL;
    assert_ok(mr_resource_create(&ops, NULL, NULL, &mr));
    assert_string_equal(mr_resource_name(mr), names[i]);
    assert_false(mri_is_retry(mr) || mri_is_log(mr) || mri_is_track(mr) || mri_is_cache(mr));
    assert_false(mri_pool_is_owned(mr));
    mr_resource_release(mr);
  }
  faulty_upstream u = faulty_new(true);
  mr_resource *retry = NULL, *log = NULL, *track = NULL, *cache = NULL;
  assert_ok(mr_retry_resource_create(u.mr, 0, NULL, NULL, &retry));
  assert_ok(mr_log_resource_create(u.mr, "/dev/null", &log));
  assert_ok(mr_track_resource_create(u.mr, &track));
  assert_ok(mr_cache_resource_create(u.mr, 0, &cache));
  assert_true(mri_is_retry(retry) && !mri_is_retry(log) && !mri_is_retry(u.mr));
  assert_true(mri_is_log(log) && !mri_is_log(track));
  assert_true(mri_is_track(track) && !mri_is_track(cache));
  assert_true(mri_is_cache(cache) && !mri_is_cache(retry));
  assert_false(mri_is_retry(NULL) || mri_is_log(NULL) || mri_is_track(NULL) || mri_is_cache(NULL) ||
               mri_pool_is_owned(NULL));
  mr_resource_release(cache);
  mr_resource_release(track);
  mr_resource_release(log);
  mr_resource_release(retry);
  mr_resource_release(u.mr);
  (void)state;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_transient_failures_recover),
      cmocka_unit_test(test_bounded_by_attempts),
      cmocka_unit_test(test_handler_gives_up_and_heals),
      cmocka_unit_test(test_process_wide_handler_and_small_bounds),
      cmocka_unit_test(test_other_errors_pass_through),
      cmocka_unit_test(test_threads),
      cmocka_unit_test(test_kinds_told_by_type),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
