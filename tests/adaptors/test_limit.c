/* unit: limit(UP, bytes=SIZE) */
#include "adaptor_test.h"

static size_t used_of(const mr_resource *mr) {
  size_t used = 1;
  assert_ok(mr_limit_resource_used(mr, &used));
  return used;
}

static mr_status create_limit(mr_resource *up, mr_resource **out) {
  return mr_limit_resource_create(up, 1, out);
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_limit_resource_create(u.mr, (size_t)1 << 20, &mr));
  assert_describes(mr, "limit(faulty, bytes=1MiB)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  assert_int_equal(used_of(mr), 0);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  mr_resource_release(mr);
  assert_checks_upstream_and_out("limit", create_limit);
  size_t used = 7;
  assert_status(mr_limit_resource_used(u.mr, &used), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("faulty is not a limit resource");
  assert_int_equal(used, 0);
  mr_resource_release(u.mr);
}

/* bytes 0 is a limit, not a default: nothing gets past it. */
static void test_zero_refuses_everything(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_limit_resource_create(u.mr, 0, &mr));
  assert_describes(mr, "limit(faulty, bytes=0B)");
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 1, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("limit(faulty, bytes=0B): 1 bytes requested with 0 bytes in use would "
                        "pass the limit of 0 bytes (0B)");
  assert_int_equal(faulty_allocations(u.f), 0);
  mr_resource_release(mr);
  assert_ok(mr_resource_from_spec("limit(host, bytes=0)", 0, &mr));
  assert_describes(mr, "limit(host, bytes=0B)");
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_refuses_past_limit(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_limit_resource_create(u.mr, (size_t)1 << 20, &mr));
  void *a = NULL, *b = NULL, *c = (void *)1;
  assert_ok(mr_allocate(mr, (size_t)512 << 10, 0, NULL, &a));
  assert_ok(mr_allocate(mr, (size_t)512 << 10, 4096, NULL, &b));
  assert_true((uintptr_t)b % 4096 == 0);
  assert_int_equal(used_of(mr), (size_t)1 << 20);
  long calls = faulty_allocations(u.f);
  assert_status(mr_allocate(mr, 1, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
  assert_null(c);
  assert_error_contains("limit(faulty, bytes=1MiB): 1 bytes requested with 1048576 bytes in use "
                        "would pass the limit of 1048576 bytes (1MiB)");
  assert_int_equal(faulty_allocations(u.f), calls); /* refused before upstream */
  /* Larger than the whole limit: no overflow in the check. */
  assert_status(mr_allocate(mr, SIZE_MAX - 100, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
  assert_ok(mr_deallocate(mr, a, (size_t)512 << 10, 0, NULL));
  assert_int_equal(used_of(mr), (size_t)512 << 10);
  assert_ok(mr_allocate(mr, (size_t)512 << 10, 0, NULL, &a));
  assert_ok(mr_deallocate(mr, a, (size_t)512 << 10, 0, NULL));
  assert_ok(mr_deallocate(mr, b, (size_t)512 << 10, 4096, NULL));
  assert_int_equal(used_of(mr), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_upstream_failure_and_bad_free_keep_accounting(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_limit_resource_create(u.mr, 10000, &mr));
  void *a = NULL, *c = (void *)1;
  assert_ok(mr_allocate(mr, 3000, 0, NULL, &a));
  faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1);
  assert_status(mr_allocate(mr, 5000, 0, NULL, &c), MR_ERR_OUT_OF_MEMORY);
  assert_null(c);
  assert_error_contains("faulty: allocation 2 fails on purpose");
  assert_int_equal(used_of(mr), 3000);
  int local;
  assert_status(mr_deallocate(mr, &local, 100, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(used_of(mr), 3000);
  assert_ok(mr_allocate(mr, 7000, 0, NULL, &c)); /* the failed 5000 left no trace */
  assert_ok(mr_deallocate(mr, c, 7000, 0, NULL));
  assert_ok(mr_deallocate(mr, a, 3000, 0, NULL));
  assert_int_equal(used_of(mr), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* `contend` runs on run_threads' threads, where cmocka's checks must not
 * run (they longjmp into the test's own thread): what goes wrong is
 * counted in `wrong`, which the test checks after the threads end. */
typedef struct contention {
  mr_resource *mr;
  size_t limit;
  _Atomic long refused, granted, over, wrong;
} contention;

static void contend(void *arg, int index) {
  contention *c = arg;
  void *held[4] = {0};
  for (int r = 0; r < 3000; r++) {
    int slot = r % 4;
    if (held[slot] != NULL) {
      if (mr_deallocate(c->mr, held[slot], 64 << 10, 0, NULL) != MR_OK)
        atomic_fetch_add(&c->wrong, 1);
      held[slot] = NULL;
    }
    mr_status st = mr_allocate(c->mr, 64 << 10, 0, NULL, &held[slot]);
    if (st == MR_OK) {
      atomic_fetch_add(&c->granted, 1);
    } else {
      if (st != MR_ERR_OUT_OF_MEMORY || held[slot] != NULL) atomic_fetch_add(&c->wrong, 1);
      held[slot] = NULL;
      atomic_fetch_add(&c->refused, 1);
    }
    size_t used;
    if (mr_limit_resource_used(c->mr, &used) != MR_OK)
      atomic_fetch_add(&c->wrong, 1);
    else if (used > c->limit)
      atomic_fetch_add(&c->over, 1);
  }
  for (int i = 0; i < 4; i++)
    if (held[i] != NULL && mr_deallocate(c->mr, held[i], 64 << 10, 0, NULL) != MR_OK)
      atomic_fetch_add(&c->wrong, 1);
}

static void test_threads_never_pass_limit(void **state) {
  faulty_upstream u = faulty_new(false);
  contention c = {.limit = (size_t)1 << 20};
  atomic_init(&c.refused, 0);
  atomic_init(&c.granted, 0);
  atomic_init(&c.over, 0);
  atomic_init(&c.wrong, 0);
  assert_ok(mr_limit_resource_create(u.mr, c.limit, &c.mr));
  /* 8 threads x 4 blocks of 64KiB = 2MiB wanted, 1MiB allowed. */
  run_threads(8, contend, &c);
  assert_int_equal(atomic_load(&c.wrong), 0);
  assert_int_equal(atomic_load(&c.over), 0);
  assert_true(atomic_load(&c.granted) > 0);
  assert_int_equal(used_of(c.mr), 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  /* And a churn well inside the limit ends at zero too. */
  churn(c.mr, 8, 2000, 2048, true);
  assert_int_equal(used_of(c.mr), 0);
  mr_resource_release(c.mr);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_zero_refuses_everything),
      cmocka_unit_test(test_refuses_past_limit),
      cmocka_unit_test(test_upstream_failure_and_bad_free_keep_accounting),
      cmocka_unit_test(test_threads_never_pass_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
