/*
 * test_device_map_unit.c: the device map and the process-wide current
 * device resource, without a driver (one device slot).
 */
#include <pthread.h>

#include "test_util.h"

static void test_initial_without_driver(void **state) {
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  assert_int_equal(mr_device_map_size(map), 1);
  mr_resource *mr = mr_device_map_get(map, 0);
  assert_non_null(mr);
  /* Device 0's slot exists; its allocations fail and say why. */
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 64, 0, NULL, &p), MR_ERR_NO_DRIVER);
  assert_null(p);
  assert_error_says_no_driver();
  assert_string_equal(mr_resource_describe(mr), "device");
  /* The same object every time. */
  assert_ptr_equal(mr_device_map_get(map, 0), mr);
  mr_device_map_destroy(map);
}

static void test_invalid_devices(void **state) {
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  assert_null(mr_device_map_get(map, 1));
  assert_error_contains("device 1 is out of range");
  assert_null(mr_device_map_get(map, -1));
  assert_null(mr_device_map_get(NULL, 0));
  mr_resource *host, *previous = (mr_resource *)1;
  assert_ok(mr_host_resource_create(&host));
  assert_status(mr_device_map_set(map, 5, host, &previous), MR_ERR_NO_DEVICE);
  assert_null(previous);
  assert_status(mr_device_map_set(map, 0, NULL, &previous), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_device_map_reset(map, 9, &previous), MR_ERR_NO_DEVICE);
  assert_status(mr_device_map_create(NULL), MR_ERR_INVALID_ARGUMENT);
  mr_resource_release(host);
  mr_device_map_destroy(map);
  mr_device_map_destroy(NULL);
}

static void test_set_returns_previous(void **state) {
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  mr_resource *a, *b, *previous = NULL;
  assert_ok(mr_host_resource_create(&a));
  assert_ok(mr_host_resource_create(&b));
  /* Set before any get: the slot was unset, so no previous resource. */
  assert_ok(mr_device_map_set(map, 0, a, &previous));
  assert_null(previous);
  assert_ptr_equal(mr_device_map_get(map, 0), a);
  assert_ok(mr_device_map_set(map, 0, b, &previous));
  assert_ptr_equal(previous, a); /* ours now: the map gave up its reference */
  mr_resource_release(previous);
  void *p = NULL;
  assert_ok(mr_allocate(mr_device_map_get(map, 0), 100, 0, NULL, &p));
  assert_ok(mr_deallocate(mr_device_map_get(map, 0), p, 100, 0, NULL));
  /* Reset brings the initial resource back and hands over b. */
  assert_ok(mr_device_map_reset(map, 0, &previous));
  assert_ptr_equal(previous, b);
  mr_resource_release(previous);
  assert_string_equal(mr_resource_describe(mr_device_map_get(map, 0)), "device");
  /* Passing NULL for previous releases it instead. */
  assert_ok(mr_device_map_set(map, 0, a, NULL));
  mr_resource_release(a);
  mr_resource_release(b);
  mr_device_map_destroy(map); /* releases a's last reference */
}

static void test_process_wide(void **state) {
  mr_resource *initial = mr_get_current_device_resource();
  assert_non_null(initial);
  assert_ptr_equal(initial, mr_get_per_device_resource(0));
  assert_null(mr_get_per_device_resource(3));
  mr_resource *host, *previous = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_set_current_device_resource(host, &previous));
  assert_ptr_equal(previous, initial);
  assert_ptr_equal(mr_get_current_device_resource(), host);
  mr_resource *again = NULL;
  assert_ok(mr_set_per_device_resource(0, previous, &again));
  assert_ptr_equal(again, host);
  mr_resource_release(again);
  mr_resource_release(previous);
  assert_ok(mr_reset_current_device_resource(&previous));
  assert_ptr_equal(previous, initial);
  mr_resource_release(previous);
  assert_ok(mr_reset_per_device_resource(0, NULL));
  assert_status(mr_set_per_device_resource(2, host, &previous), MR_ERR_NO_DEVICE);
  assert_status(mr_reset_per_device_resource(-1, &previous), MR_ERR_NO_DEVICE);
  mr_resource_release(host);
}

typedef struct racer {
  mr_device_map *map;
  mr_resource *mine;
  int iterations;
  bool setter;
} racer;

static void *race(void *arg) {
  racer *r = arg;
  for (int i = 0; i < r->iterations; i++) {
    if (r->setter) {
      mr_resource *previous = NULL;
      if (mr_device_map_set(r->map, 0, r->mine, &previous) != MR_OK) return "set";
      /* Previous resources stay referenced by their owners (main), so
       * readers that just got them can still use them. */
      mr_resource_release(previous);
    } else {
      mr_resource *mr = mr_device_map_get(r->map, 0);
      if (mr == NULL) return "get";
      void *p = NULL;
      if (mr_allocate(mr, 32, 0, NULL, &p) != MR_OK) return "allocate";
      if (mr_deallocate(mr, p, 32, 0, NULL) != MR_OK) return "free";
    }
  }
  return NULL;
}

/* Many getters and setters at once: every get sees a whole resource. */
static void test_concurrent_get_set(void **state) {
  enum { THREADS = 8 };
  mr_device_map *map;
  assert_ok(mr_device_map_create(&map));
  mr_resource *resources[THREADS];
  racer racers[THREADS];
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) assert_ok(mr_host_resource_create(&resources[i]));
  assert_ok(mr_device_map_set(map, 0, resources[0], NULL));
  for (int i = 0; i < THREADS; i++) {
    racers[i] = (racer){map, resources[i], 20000, i % 2 == 0};
    assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) {
    void *result = (void *)1;
    pthread_join(threads[i], &result);
    assert_null(result);
  }
  mr_resource *last = mr_device_map_get(map, 0);
  bool known = false;
  for (int i = 0; i < THREADS; i++) known |= last == resources[i];
  assert_true(known);
  mr_device_map_destroy(map);
  for (int i = 0; i < THREADS; i++) mr_resource_release(resources[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_initial_without_driver), cmocka_unit_test(test_invalid_devices),
      cmocka_unit_test(test_set_returns_previous),   cmocka_unit_test(test_process_wide),
      cmocka_unit_test(test_concurrent_get_set),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
