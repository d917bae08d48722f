/*
 * test_describe_only_fake.c (fake): a context created with
 * MR_CONTEXT_DESCRIBE_ONLY (what `mrctx resolve` shows) takes nothing from
 * the world -- no log file opened, no driver pool created or changed, no
 * memory taken -- and describes every tag, with the same properties and
 * source status, as a real context built from the same specs does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_test.h"

enum { LOGGED, WRAPPED, OWN, PINNED_ARENA, FIXED, BINNED, CACHED, SHARED, MANAGED, SYNC, TAGS };

/* The driver calls that create or change pools or take memory. */
static const char *const effects[] = {
    "cuMemPoolCreate",         "cuMemPoolSetAttribute", "cuMemPoolSetAccess",
    "cuMemAllocFromPoolAsync", "cuMemSetMemPool",       "cuMemAlloc",
    "cuMemHostAlloc",          "cuMemAllocManaged",     "cuMemPoolTrimTo",
};

static void count_effects(long *calls) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(effects); i++) calls[i] = fake_cuda_calls(effects[i]);
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *text = NULL;
  size_t cap = 0;
  ssize_t n = getdelim(&text, &cap, '\0', f);
  fclose(f);
  assert_true(n >= 0);
  return text;
}

static void test_describes_without_building(void **state) {
  char path[] = "/tmp/mrctx-describe-only-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  static const char content[] = "Thread,Time,Action,Pointer,Size,Stream\n"
                                "4242,12:00:00.000001,allocate,0x7f0000000000,256,0x0\n";
  assert_int_equal(write(fd, content, sizeof content - 1), (ssize_t)(sizeof content - 1));
  close(fd);
  char logged[160];
  snprintf(logged, sizeof logged, "stats(log(retry(pinned), file=%s))", path);
  mr_tag tags[TAGS] = {
      [LOGGED] = {"logged", logged},
      /* Finds the retry inside @logged, so gets none on top. */
      [WRAPPED] = {"wrapped", "track(@logged)"},
      [OWN] = {"own", "pool(kind=device, release=1GiB, initial=64MiB)"},
      [PINNED_ARENA] = {"pinned_arena", "arena(pool(kind=pinned), chunk=1GiB)"},
      [FIXED] = {"fixed", "fixed(device, block=1MiB, count=8)"},
      [BINNED] = {"binned", "bin(pinned, max=4KiB, count=4)"},
      [CACHED] = {"cached", "cache(device)"},
      [SHARED] = {"shared", "@fixed"},
      [MANAGED] = {"managed", "managed"},
      [SYNC] = {"sync", "sync_device"},
  };
  int devices = fake_cuda_device_count();
  cuuint64_t thresholds[8];
  CUmemAccess_flags pinned_access[8];
  assert_true(devices <= 8);
  for (int d = 0; d < devices; d++) {
    thresholds[d] = fake_pool_threshold(fake_default_pool(MR_POOL_DEVICE, d));
    pinned_access[d] = fake_cuda_pool_access(fake_default_pool(MR_POOL_PINNED, 0), d);
  }
  long before[MRI_ARRAY_SIZE(effects)], after[MRI_ARRAY_SIZE(effects)];
  count_effects(before);

  mr_context_desc desc = {.size = sizeof desc,
                          .library = "job",
                          .tags = tags,
                          .tag_count = TAGS,
                          .flags = MR_CONTEXT_DESCRIBE_ONLY};
  mr_context *described = NULL;
  assert_ok(mr_context_create(&desc, &described));
  assert_int_equal(mr_context_device_count(described), devices);

  count_effects(after);
  for (size_t i = 0; i < MRI_ARRAY_SIZE(effects); i++)
    if (after[i] != before[i])
      fail_msg("%s was called %ld times", effects[i], after[i] - before[i]);
  assert_int_equal(fake_cuda_live_pools(), 0);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  for (int d = 0; d < devices; d++) {
    assert_int_equal(fake_cuda_used_memory(d), 0);
    assert_int_equal(fake_pool_threshold(fake_default_pool(MR_POOL_DEVICE, d)), thresholds[d]);
    assert_int_equal(fake_cuda_pool_access(fake_default_pool(MR_POOL_PINNED, 0), d),
                     pinned_access[d]);
  }
  char *now = read_all(path);
  assert_string_equal(now, content);
  free(now);

  /* Nothing allocates through it, and it says why. */
  for (int t = 0; t < TAGS; t++) {
    for (int d = 0; d < devices; d++) {
      void *p = (void *)0x1;
      assert_status(mr_allocate(mr_context_get_mr_on(described, t, d), 256, 0, NULL, &p),
                    MR_ERR_UNSUPPORTED);
      assert_null(p);
      assert_error_contains("only described, not built");
      assert_ok(mr_deallocate(mr_context_get_mr_on(described, t, d), NULL, 256, 0, NULL));
    }
  }
  assert_int_equal(fake_cuda_live_allocations(), 0);

  /* The real context, from the same specs: the same descriptions,
   * properties and sources. */
  desc.flags = 0;
  mr_context *real = NULL;
  assert_ok(mr_context_create(&desc, &real));
  assert_true(fake_cuda_live_pools() > 0);
  for (int t = 0; t < TAGS; t++) {
    for (int d = 0; d < devices; d++) {
      mr_resource *a = mr_context_get_mr_on(described, t, d);
      mr_resource *b = mr_context_get_mr_on(real, t, d);
      assert_string_equal(mr_resource_describe(a), mr_resource_describe(b));
      mr_resource_props pa = {.size = sizeof pa}, pb = {.size = sizeof pb};
      assert_ok(mr_resource_get_props(a, &pa));
      assert_ok(mr_resource_get_props(b, &pb));
      assert_int_equal(pa.kind, pb.kind);
      assert_int_equal(pa.device, pb.device);
      assert_int_equal(pa.host_accessible, pb.host_accessible);
      assert_int_equal(pa.device_accessible, pb.device_accessible);
      assert_int_equal(pa.stream_ordered, pb.stream_ordered);
      mr_spec_source sa = {.size = sizeof sa}, sb = {.size = sizeof sb};
      assert_ok(mr_context_get_source(described, t, d, &sa));
      assert_ok(mr_context_get_source(real, t, d, &sb));
      assert_int_equal(sa.status, sb.status);
      assert_int_equal(sa.origin, sb.origin);
    }
  }
  char wrapped[200];
  snprintf(wrapped, sizeof wrapped, "track(%s)", logged);
  assert_string_equal(mr_resource_describe(mr_context_get_mr_on(described, WRAPPED, 0)), wrapped);
  mr_context_destroy(described);
  mr_context_destroy(real);
  unlink(path);
}

static void test_unknown_flags_are_refused(void **state) {
  static const mr_tag tags[] = {{"temp", "host"}};
  mr_context_desc desc = {.size = sizeof desc,
                          .library = "job",
                          .tags = tags,
                          .tag_count = 1,
                          .flags = MR_CONTEXT_DESCRIBE_ONLY | 0x80};
  mr_context *ctx = (mr_context *)0x1;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_UNSUPPORTED);
  assert_null(ctx);
  assert_error_contains("desc.flags 0x81 holds flags this library does not know");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_describes_without_building, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_unknown_flags_are_refused, fake_test_setup,
                                      fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
