/*
 * test_host_unit.c: the pageable host resource.
 */
#include <pthread.h>
#include <stdlib.h>

#include "test_util.h"

static void test_allocate_and_use(void **state) {
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  assert_string_equal(mr_resource_describe(host), "host");
  assert_string_equal(mr_resource_name(host), "host");
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(host, &props));
  assert_int_equal(props.kind, MR_MEMORY_HOST);
  assert_int_equal(props.device, -1);
  assert_true(props.host_accessible);
  assert_false(props.device_accessible);
  assert_false(props.stream_ordered);
  assert_null(mr_resource_upstream(host));
  size_t sizes[] = {1, 4, 255, 256, 1024, 1 << 20, 5u << 20};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    void *p = NULL;
    assert_ok(mr_allocate(host, sizes[i], 0, NULL, &p));
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 256, 0);
    memset(p, 0x5a, sizes[i]);
    assert_ok(mr_deallocate(host, p, sizes[i], 0, NULL));
  }
  mr_resource_release(host);
}

static void test_alignments(void **state) {
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  for (size_t alignment = 1; alignment <= (1u << 20); alignment <<= 1) {
    void *p = NULL;
    assert_ok(mr_allocate(host, 100, alignment, NULL, &p));
    assert_int_equal((uintptr_t)p % alignment, 0);
    assert_ok(mr_deallocate(host, p, 100, alignment, NULL));
  }
  void *p = (void *)1;
  assert_status(mr_allocate(host, 100, 48, NULL, &p), MR_ERR_INVALID_ARGUMENT);
  assert_null(p);
  assert_error_contains("alignment 48 is not a power of two");
  mr_resource_release(host);
}

static void test_sync_forms(void **state) {
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  void *p = NULL;
  assert_ok(mr_allocate_sync(host, 4096, 4096, &p));
  assert_int_equal((uintptr_t)p % 4096, 0);
  memset(p, 1, 4096);
  assert_ok(mr_deallocate_sync(host, p, 4096, 4096));
  assert_ok(mr_allocate_sync(host, 0, 0, &p));
  assert_null(p);
  assert_ok(mr_deallocate_sync(host, NULL, 10, 0));
  assert_ok(mr_resource_synchronize(host, NULL));
  assert_ok(mr_resource_trim(host));
  mr_resource_release(host);
}

static void test_out_of_memory(void **state) {
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  void *p = (void *)1;
  /* More than any address space can hold: a clean failure, not a crash. */
  assert_status(mr_allocate(host, SIZE_MAX - 4096, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("host: cannot allocate");
  mr_resource_release(host);
}

static void *hammer(void *arg) {
  mr_resource *host = arg;
  uint64_t seed = (uint64_t)(uintptr_t)&seed;
  for (int i = 0; i < 20000; i++) {
    size_t n = 1 + test_rand(&seed) % 65536;
    void *p = NULL;
    if (mr_allocate(host, n, 0, NULL, &p) != MR_OK) return "allocate";
    ((char *)p)[n - 1] = 1;
    if (mr_deallocate(host, p, n, 0, NULL) != MR_OK) return "free";
  }
  return NULL;
}

static void test_threads(void **state) {
  mr_resource *host;
  assert_ok(mr_host_resource_create(&host));
  pthread_t threads[8];
  for (int i = 0; i < 8; i++) assert_int_equal(pthread_create(&threads[i], NULL, hammer, host), 0);
  for (int i = 0; i < 8; i++) {
    void *result = (void *)1;
    pthread_join(threads[i], &result);
    assert_null(result);
  }
  mr_resource_release(host);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_allocate_and_use), cmocka_unit_test(test_alignments),
      cmocka_unit_test(test_sync_forms),       cmocka_unit_test(test_out_of_memory),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
