/* unit: stats(UP) */
#include <pthread.h>

#include "adaptor_test.h"

static mr_stats read_stats(const mr_resource *mr) {
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_stats_resource_get(mr, &s));
  return s;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  assert_describes(mr, "stats(faulty)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_counts_and_failures(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  void *a = NULL, *b = NULL, *c = (void *)1;
  assert_ok(mr_allocate(mr, 1000, 0, NULL, &a));
  assert_ok(mr_allocate(mr, 24, 4096, NULL, &b));
  assert_true((uintptr_t)b % 4096 == 0);
  faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1);
  assert_status(mr_allocate(mr, 5, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
  assert_null(c);
  assert_error_contains("fails on purpose");
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 1024);
  assert_int_equal(s.current_count, 2);
  assert_int_equal(s.total_count, 2);
  assert_int_equal(s.failed_count, 1);
  assert_int_equal(s.peak_bytes, 1024);
  /* A refused free leaves the block counted. */
  int local;
  assert_status(mr_deallocate(mr, &local, 8, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(read_stats(mr).current_count, 2);
  assert_ok(mr_deallocate(mr, a, 1000, 0, NULL));
  assert_ok(mr_deallocate(mr, b, 24, 4096, NULL));
  s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.current_count, 0);
  assert_int_equal(s.total_bytes, 1024);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_sync_forms_and_errors(void **state) {
  assert_checks_upstream_and_out("stats", mr_stats_resource_create);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  void *p = NULL;
  assert_ok(mr_allocate_sync(mr, 300, 0, &p));
  assert_int_equal(read_stats(mr).current_bytes, 300);
  assert_ok(mr_deallocate_sync(mr, p, 300, 0));
  assert_int_equal(read_stats(mr).current_bytes, 0);
  mr_stats s;
  mr_stats_init(&s);
  assert_status(mr_stats_resource_get(u.mr, &s), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("faulty is not a stats resource");
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_threads_exact(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  long n = churn(mr, 8, 4000, 4096, true);
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 0);
  assert_int_equal(s.current_count, 0);
  assert_int_equal(s.total_count, (uint64_t)n);
  assert_int_equal(s.total_bytes, churn_bytes());
  assert_int_equal(s.failed_count, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

typedef struct turn {
  mr_resource *mr;
  size_t bytes;
  bool keep;
  void *p;
} turn;

static void *take_turn(void *arg) {
  turn *t = arg;
  assert_ok(mr_allocate(t->mr, t->bytes, 0, NULL, &t->p));
  if (!t->keep) assert_ok(mr_deallocate(t->mr, t->p, t->bytes, 0, NULL));
  return NULL;
}

/* Peaks, as stats.h promises them: exact for one thread; with threads that
 * take turns, lower than the true peak by at most 16 MiB per other thread
 * (here: one thread holds 10 MiB, another allocates and frees 15 MiB; the
 * true peak is 25 MiB). */
static void test_peaks_within_the_documented_bound(void **state) {
  const size_t mib = (size_t)1 << 20;
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  turn holder = {mr, 10 * mib, true, NULL}, visitor = {mr, 15 * mib, false, NULL};
  pthread_t t;
  pthread_create(&t, NULL, take_turn, &holder);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, take_turn, &visitor);
  pthread_join(t, NULL);
  mr_stats s = read_stats(mr);
  assert_int_equal(s.current_bytes, 10 * mib);
  assert_true(s.peak_bytes <= 25 * mib);
  assert_true(s.peak_bytes + 16 * mib >= 25 * mib);
  assert_ok(mr_deallocate(mr, holder.p, holder.bytes, 0, NULL));
  mr_resource_release(mr);
  /* One thread: exact. */
  assert_ok(mr_stats_resource_create(u.mr, &mr));
  holder.mr = visitor.mr = mr;
  take_turn(&holder);
  take_turn(&visitor);
  s = read_stats(mr);
  assert_int_equal(s.peak_bytes, 25 * mib);
  assert_ok(mr_deallocate(mr, holder.p, holder.bytes, 0, NULL));
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_peaks_within_the_documented_bound),
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_counts_and_failures),
      cmocka_unit_test(test_sync_forms_and_errors),
      cmocka_unit_test(test_threads_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
