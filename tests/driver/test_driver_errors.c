/*
 * Every driver error path, found rather than listed (SQLite's fault
 * simulator, over the fake driver): for each resource and each operation
 * (create, allocate, deallocate, their synchronous forms, pool information),
 * run it once and count the driver calls it makes; then run it again once
 * per call and error, making exactly that call fail, and check the outcome:
 *  - the operation fails with MR_ERR_OUT_OF_MEMORY for
 *    CUDA_ERROR_OUT_OF_MEMORY, MR_ERR_UNSUPPORTED for
 *    CUDA_ERROR_NOT_SUPPORTED and MR_ERR_DRIVER otherwise, mr_last_error()
 *    names the driver's error, and out-pointers are NULL;
 *  - nothing leaks, and a failed free leaves the block allocated so that
 *    freeing again works;
 *  - except the calls whose failure the library rides over by design
 *    (tolerated[] below), where the operation succeeds, and a driver
 *    without a default pool, where the default-pool resources fall back to
 *    their synchronous form (falls_back()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver_cases.h"
#include "fake_test.h"

#define RESOURCE_DEVICE 1 /* resources live here... */
#define BOUND_DEVICE 0    /* ...while a "bound" thread's context is this one */

#define ENTRY_NAME_(name, version) #name,
static const char *const entries[] = {MRI_CUDA_ENTRY_POINTS(ENTRY_NAME_)};
#undef ENTRY_NAME_
#define ENTRY_COUNT MRI_ARRAY_SIZE(entries)

/* Failures the library survives on purpose: reading the current context
 * only decides whether to set one, and a failed pop leaves nothing to undo. */
static const char *const tolerated[] = {"cuCtxGetCurrent", "cuCtxPopCurrent"};

/* Error reporting itself is not an operation's call. */
static bool reporting(const char *entry) {
  return strcmp(entry, "cuGetErrorName") == 0 || strcmp(entry, "cuGetErrorString") == 0;
}

static bool is_tolerated(const char *entry) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(tolerated); i++)
    if (strcmp(entry, tolerated[i]) == 0) return true;
  return false;
}

typedef enum phase {
  PHASE_CREATE,
  PHASE_ALLOCATE,
  PHASE_DEALLOCATE,
  PHASE_ALLOCATE_SYNC,
  PHASE_DEALLOCATE_SYNC,
  PHASE_POOL_INFO,        /* mr_pool_resource_get_info */
  PHASE_DRIVER_POOL_INFO, /* mr_driver_pool_get_info, no resource */
} phase;

static const char *const phase_names[] = {"create",
                                          "allocate",
                                          "deallocate",
                                          "allocate_sync",
                                          "deallocate_sync",
                                          "pool_resource_get_info",
                                          "driver_pool_get_info"};

#define BYTES 4096

typedef struct scenario {
  const driver_case *c; /* NULL for PHASE_DRIVER_POOL_INFO */
  phase ph;
  bool bound;       /* the thread has a context (of another device) */
  mr_stream stream; /* NULL or CU_STREAM_PER_THREAD */
  mr_driver_pool which;
  /* state of one run */
  mr_resource *mr;
  void *ptr;
  bool allocated;
} scenario;

/* Creating device_default, pinned or managed where cuMemGetDefaultMemPool
 * says CUDA_ERROR_NOT_SUPPORTED gives the sync_* resource instead. */
static bool falls_back(const scenario *s, const char *entry, CUresult error) {
  return s->ph == PHASE_CREATE && error == CUDA_ERROR_NOT_SUPPORTED &&
         strcmp(entry, "cuMemGetDefaultMemPool") == 0 && s->c->pool_backed && !s->c->owned_pool &&
         strcmp(s->c->spec, "device") != 0;
}

static void describe_scenario(const scenario *s, char *buf, size_t cap) {
  char what[96];
  if (s->c != NULL)
    snprintf(what, sizeof what, "%s on device %d", s->c->spec, RESOURCE_DEVICE);
  else
    snprintf(what, sizeof what, "driver pool %d of device %d", (int)s->which, RESOURCE_DEVICE);
  snprintf(buf, cap, "%s: %s, %s thread, stream %s", what, phase_names[s->ph],
           s->bound ? "bound" : "unbound", s->stream == NULL ? "NULL" : "per-thread");
}

static void must(mr_status st, const scenario *s, const char *what) {
  if (st != MR_OK) {
    char name[160];
    describe_scenario(s, name, sizeof name);
    print_error("%s: %s failed without an injected failure: %s\n", name, what, mr_last_error());
    fail();
  }
}

/* Everything before the operation under test. */
static void prepare(scenario *s) {
  fake_cuda_reset();
  s->mr = NULL;
  s->ptr = NULL;
  s->allocated = false;
  if (s->bound) fake_bind(BOUND_DEVICE);
  if (s->ph == PHASE_CREATE || s->ph == PHASE_DRIVER_POOL_INFO) return;
  must(s->c->create(RESOURCE_DEVICE, &s->mr), s, "create");
  if (s->ph == PHASE_DEALLOCATE || s->ph == PHASE_DEALLOCATE_SYNC) {
    must(mr_allocate(s->mr, BYTES, 0, s->stream, &s->ptr), s, "allocate");
    s->allocated = true;
  }
}

/* The operation under test. */
static mr_status run(scenario *s) {
  mr_pool_info info = {.size = sizeof info};
  mr_status st;
  switch (s->ph) {
  case PHASE_CREATE:
    s->mr = (mr_resource *)&s->mr;
    st = s->c->create(RESOURCE_DEVICE, &s->mr);
    if (st != MR_OK && s->mr != NULL) {
      print_error("%s: create failed but left the resource set\n", s->c->spec);
      fail();
    }
    return st;
  case PHASE_ALLOCATE:
  case PHASE_ALLOCATE_SYNC:
    s->ptr = &s->ptr;
    st = s->ph == PHASE_ALLOCATE ? mr_allocate(s->mr, BYTES, 0, s->stream, &s->ptr)
                                 : mr_allocate_sync(s->mr, BYTES, 0, &s->ptr);
    if (st != MR_OK && s->ptr != NULL) {
      print_error("%s: allocation failed but left the pointer set\n", s->c->spec);
      fail();
    }
    s->allocated = st == MR_OK;
    return st;
  case PHASE_DEALLOCATE:
  case PHASE_DEALLOCATE_SYNC:
    st = s->ph == PHASE_DEALLOCATE ? mr_deallocate(s->mr, s->ptr, BYTES, 0, s->stream)
                                   : mr_deallocate_sync(s->mr, s->ptr, BYTES, 0);
    s->allocated = st != MR_OK;
    return st;
  case PHASE_POOL_INFO:
    return mr_pool_resource_get_info(s->mr, &info);
  case PHASE_DRIVER_POOL_INFO:
    return mr_driver_pool_get_info(s->which, RESOURCE_DEVICE, &info);
  }
  return MR_ERR_STATE;
}

/* Undo the run (a failed free must still be freeable) and check that the
 * fake holds nothing. */
static void clean_up(scenario *s) {
  if (s->allocated) must(mr_deallocate(s->mr, s->ptr, BYTES, 0, s->stream), s, "freeing again");
  mr_resource_release(s->mr);
  s->mr = NULL;
  assert_fake_clean();
}

static void check_injected(scenario *s, const char *entry, long nth, CUresult error) {
  prepare(s);
  fake_cuda_fail(entry, nth, 1, error);
  mr_status st = run(s);
  long calls = fake_cuda_calls(entry);
  fake_cuda_fail(entry, 0, 0, CUDA_SUCCESS);
  char name[160];
  describe_scenario(s, name, sizeof name);
  const char *error_name = mri_cuda_error_name(error);
  if (falls_back(s, entry, error)) {
    if (st != MR_OK ||
        strstr(mr_resource_describe(s->mr), "(reason=\"the driver has no default") == NULL) {
      print_error("%s: without a default pool: %s, %s\n", name, mr_status_name(st),
                  st == MR_OK ? mr_resource_describe(s->mr) : mr_last_error());
      fail();
    }
  } else if (is_tolerated(entry)) {
    if (st != MR_OK) {
      print_error("%s: %s call %ld failing with %s should be ridden over, but: %s\n", name, entry,
                  nth, error_name, mr_last_error());
      fail();
    }
  } else {
    mr_status expected = error == CUDA_ERROR_OUT_OF_MEMORY   ? MR_ERR_OUT_OF_MEMORY
                         : error == CUDA_ERROR_NOT_SUPPORTED ? MR_ERR_UNSUPPORTED
                                                             : MR_ERR_DRIVER;
    if (st != expected || strstr(mr_last_error(), error_name) == NULL) {
      print_error("%s: %s call %ld of %ld failing with %s: got %s, expected %s naming the "
                  "error; message: %s\n",
                  name, entry, nth, calls, error_name, mr_status_name(st), mr_status_name(expected),
                  mr_last_error());
      fail();
    }
  }
  clean_up(s);
}

/* Count the calls of one clean run, then fail each in turn. */
static void inject_everywhere(scenario *s) {
  long before[ENTRY_COUNT], made[ENTRY_COUNT];
  prepare(s);
  for (size_t e = 0; e < ENTRY_COUNT; e++) before[e] = fake_cuda_calls(entries[e]);
  must(run(s), s, phase_names[s->ph]);
  for (size_t e = 0; e < ENTRY_COUNT; e++) made[e] = fake_cuda_calls(entries[e]) - before[e];
  clean_up(s);

  long injected = 0;
  for (size_t e = 0; e < ENTRY_COUNT; e++) {
    if (reporting(entries[e])) continue;
    for (long nth = 1; nth <= made[e]; nth++) {
      check_injected(s, entries[e], nth, CUDA_ERROR_UNKNOWN);
      check_injected(s, entries[e], nth, CUDA_ERROR_OUT_OF_MEMORY);
      check_injected(s, entries[e], nth, CUDA_ERROR_NOT_SUPPORTED);
      if (!is_tolerated(entries[e])) injected++;
    }
  }
  /* Creating a sync_* resource needs no driver call; everything else does. */
  bool calls_nothing = s->ph == PHASE_CREATE && !s->c->pool_backed;
  if (injected == 0 && !calls_nothing) {
    char name[160];
    describe_scenario(s, name, sizeof name);
    print_error("%s: no driver call to fail\n", name);
    fail();
  }
}

static void inject_into_case(const char *spec) {
  static const phase phases[] = {PHASE_CREATE,        PHASE_ALLOCATE,        PHASE_DEALLOCATE,
                                 PHASE_ALLOCATE_SYNC, PHASE_DEALLOCATE_SYNC, PHASE_POOL_INFO};
  const driver_case *c = driver_case_named(spec);
  for (size_t p = 0; p < MRI_ARRAY_SIZE(phases); p++) {
    if (phases[p] == PHASE_POOL_INFO && !c->pool_backed) continue;
    for (int bound = 0; bound < 2; bound++) {
      for (int per_thread = 0; per_thread < 2; per_thread++) {
        scenario s = {.c = c,
                      .ph = phases[p],
                      .bound = bound,
                      .stream = per_thread ? (mr_stream)CU_STREAM_PER_THREAD : NULL};
        inject_everywhere(&s);
      }
    }
  }
}

#define CASE_TEST(fn, spec) \
  static void fn(void **state) { inject_into_case(spec); }
CASE_TEST(test_device, "device")
CASE_TEST(test_device_default, "device_default")
CASE_TEST(test_pinned, "pinned")
CASE_TEST(test_managed, "managed")
CASE_TEST(test_pool_device, "pool(kind=device)")
CASE_TEST(test_pool_pinned, "pool(kind=pinned)")
CASE_TEST(test_pool_managed, "pool(kind=managed)")
CASE_TEST(test_sync_device, "sync_device")
CASE_TEST(test_sync_pinned, "sync_pinned")
CASE_TEST(test_sync_managed, "sync_managed")
#undef CASE_TEST

/* Owned pools with every option (initial reservation, no access grants). */
static mr_status create_configured_pool(int device, mr_resource **out) {
  mr_pool_desc desc;
  mr_pool_desc_init(&desc, MR_POOL_DEVICE);
  desc.release_threshold = 1 << 20;
  desc.max_size = (uint64_t)64 << 20;
  desc.initial_size = (uint64_t)2 << 20;
  return mr_pool_resource_create(device, &desc, out);
}

static void test_pool_with_every_option(void **state) {
  driver_case configured = {"pool(kind=device, release=1MiB, max=64MiB, initial=2MiB)",
                            create_configured_pool,
                            MR_MEMORY_DEVICE,
                            true,
                            true,
                            true,
                            MR_POOL_DEVICE};
  for (int bound = 0; bound < 2; bound++) {
    scenario s = {.c = &configured, .ph = PHASE_CREATE, .bound = bound};
    inject_everywhere(&s);
  }
}

static void test_driver_pool_info(void **state) {
  for (int which = 0; which < 4; which++) {
    scenario s = {.ph = PHASE_DRIVER_POOL_INFO, .which = (mr_driver_pool)which};
    inject_everywhere(&s);
  }
}

/* The primary context is retained once per device and kept; a failure to
 * retain it is reported and retried next time. Device 3 is used by no other
 * test here, so its primary context is not retained yet: keep this first. */
static void test_primary_context_retain_failure(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_sync_device_resource_create(3, &mr));
  fake_cuda_fail("cuDevicePrimaryCtxRetain", 1, 1, CUDA_ERROR_UNKNOWN);
  void *p = &p;
  assert_status(mr_allocate(mr, 64, 0, NULL, &p), MR_ERR_DRIVER);
  assert_null(p);
  assert_error_contains("retaining the primary context of device 3");
  assert_error_contains("CUDA_ERROR_UNKNOWN");
  assert_ok(mr_allocate(mr, 64, 0, NULL, &p));
  long retains = fake_cuda_calls("cuDevicePrimaryCtxRetain");
  assert_ok(mr_deallocate(mr, p, 64, 0, NULL));
  assert_int_equal(fake_cuda_calls("cuDevicePrimaryCtxRetain"), retains); /* kept */
  mr_resource_release(mr);
}

/* Retain every other device's primary context before the injection runs,
 * so that a clean run and an injected run make the same calls. */
static int group_setup(void **state) {
  if (fake_group_setup(state) != 0) return -1;
  for (int d = 0; d < 3; d++) {
    CUcontext ctx;
    if (mri_primary_context(d, &ctx) != MR_OK) return -1;
  }
  fake_cuda_reset();
  return 0;
}

int main(void) {
  /* The injected failure is "the nth call of an entry point", counted
   * process-wide: the idle-memory thread's pool reads (cuMemPoolGetAttribute)
   * would take it instead of the operation under test now and then (under
   * AddressSanitizer, where a tick overlapped a scenario). No decay here. */
  setenv("MRCTX_IDLE_TIME", "off", 1);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_teardown(test_primary_context_retain_failure, fake_teardown),
      cmocka_unit_test_teardown(test_device, fake_teardown),
      cmocka_unit_test_teardown(test_device_default, fake_teardown),
      cmocka_unit_test_teardown(test_pinned, fake_teardown),
      cmocka_unit_test_teardown(test_managed, fake_teardown),
      cmocka_unit_test_teardown(test_pool_device, fake_teardown),
      cmocka_unit_test_teardown(test_pool_pinned, fake_teardown),
      cmocka_unit_test_teardown(test_pool_managed, fake_teardown),
      cmocka_unit_test_teardown(test_sync_device, fake_teardown),
      cmocka_unit_test_teardown(test_sync_pinned, fake_teardown),
      cmocka_unit_test_teardown(test_sync_managed, fake_teardown),
      cmocka_unit_test_teardown(test_pool_with_every_option, fake_teardown),
      cmocka_unit_test_teardown(test_driver_pool_info, fake_teardown),
  };
  return cmocka_run_group_tests_name("driver errors", tests, group_setup, NULL);
}
