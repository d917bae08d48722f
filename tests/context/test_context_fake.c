/*
 * test_context_fake.c: contexts over the fake driver (several fake devices,
 * host memory behind them): per-device overrides, device tags resolved per
 * device, sizes in % of each device's memory, and mr_context_get_mr
 * following the thread's current device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/cuda_api.h"
#include "test_util.h"

static int device_count;

/* probe(bytes=SIZE): records the size it was given, per device. */
static uint64_t probed[64];

static mr_status probe_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  uint64_t bytes;
  mr_status st = mr_spec_args_size(args, "bytes", 0, &bytes);
  if (st != MR_OK) return st;
  int device = mr_spec_args_device(args);
  if (device >= 0 && device < 64) probed[device] = bytes;
  return mr_host_resource_create(out);
}

static int setup(void **state) {
  assert_ok(mr_device_count(&device_count));
  if (device_count < 3) {
    print_error("the fake driver shows %d devices; these tests need at least 3\n", device_count);
    return -1;
  }
  assert_ok(mr_register_factory("probe", probe_factory, NULL));
  return 0;
}

static void make_current(int device) {
  CUcontext c = NULL;
  if (device >= 0) assert_ok(mri_primary_context(device, &c));
  assert_int_equal(mri_cuda()->cuCtxSetCurrent(c), CUDA_SUCCESS);
}

enum { TEMP, RESULT, SCRATCH };
static const mr_tag tags[] = {
    [TEMP] = {"temp", "device"},
    [RESULT] = {"result", "host"},
    [SCRATCH] = {"scratch", "stats(device)"},
};

static void test_one_slot_per_device(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = tags, .tag_count = 3};
  mr_context *ctx;
  assert_ok(mr_context_create(&desc, &ctx));
  assert_int_equal(mr_context_device_count(ctx), device_count);
  for (int d = 0; d < device_count; d++) {
    mr_resource *mr = mr_context_get_mr_on(ctx, TEMP, d);
    assert_non_null(mr);
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    assert_int_equal(props.kind, MR_MEMORY_DEVICE);
    assert_int_equal(props.device, d);
    mr_spec_source s = {.size = sizeof s};
    assert_ok(mr_context_get_source(ctx, TEMP, d, &s));
    assert_int_equal(s.status, MR_OK);
    /* Each device's resources are its own. */
    if (d > 0) assert_ptr_not_equal(mr, mr_context_get_mr_on(ctx, TEMP, d - 1));
  }
  assert_null(mr_context_get_mr_on(ctx, TEMP, device_count));
  mr_context_destroy(ctx);
}

static void test_per_device_overrides(void **state) {
  setenv("FAKE_MEMORY", "temp@2=host; scratch@1=stats(stats(device)); result@9=device", 1);
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = tags,
                          .tag_count = 3,
                          .env_var = "FAKE_MEMORY",
                          .overrides = "result@0=stats(host)"};
  mr_context *ctx;
  assert_ok(mr_context_create(&desc, &ctx));
  for (int d = 0; d < device_count; d++) {
    const char *temp = mr_resource_describe(mr_context_get_mr_on(ctx, TEMP, d));
    /* Device chains get the default retry on top; host chains do not. */
    assert_string_equal(temp, d == 2 ? "host" : "retry(device)");
    const char *scratch = mr_resource_describe(mr_context_get_mr_on(ctx, SCRATCH, d));
    assert_string_equal(scratch, d == 1 ? "retry(stats(stats(device)))" : "retry(stats(device))");
    const char *result = mr_resource_describe(mr_context_get_mr_on(ctx, RESULT, d));
    assert_string_equal(result, d == 0 ? "stats(host)" : "host");
    mr_spec_source s = {.size = sizeof s};
    assert_ok(mr_context_get_source(ctx, TEMP, d, &s));
    assert_int_equal(s.origin, d == 2 ? MR_SPEC_ENV : MR_SPEC_DEFAULT);
  }
  /* Device 9 is not there: its entry is ignored, and reported. */
  assert_int_equal(mr_context_ignored_count(ctx), device_count > 9 ? 0 : 1);
  mr_context_destroy(ctx);
  unsetenv("FAKE_MEMORY");
}

static void test_device_tags_allocate_per_device(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = tags, .tag_count = 3};
  mr_context *ctx;
  assert_ok(mr_context_create(&desc, &ctx));
  void *p[64];
  for (int d = 0; d < device_count; d++) {
    make_current(d);
    assert_ok(
        mr_allocate(mr_context_get_mr_on(ctx, SCRATCH, d), 4096 * (size_t)(d + 1), 0, NULL, &p[d]));
  }
  mr_stats s;
  mr_stats_init(&s);
  uint64_t sum = 0;
  for (int d = 0; d < device_count; d++) {
    assert_ok(mr_context_get_stats(ctx, SCRATCH, d, &s));
    assert_int_equal(s.current_bytes, 4096 * (uint64_t)(d + 1));
    sum += s.current_bytes;
  }
  assert_ok(mr_context_get_stats(ctx, SCRATCH, -1, &s));
  assert_int_equal(s.current_bytes, sum);
  assert_int_equal(s.current_count, (uint64_t)device_count);
  for (int d = 0; d < device_count; d++) {
    make_current(d);
    assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, SCRATCH, d), p[d], 4096 * (size_t)(d + 1), 0,
                            NULL));
  }
  make_current(-1);
  mr_context_destroy(ctx);
}

/* A log(...) tag is built once per device, all writing the spec's one file:
 * the file keeps every device's lines under one header. */
static void test_log_tag_on_every_device(void **state) {
  char path[256];
  snprintf(path, sizeof path, "%s/mrctx-ctx-log-%ld.csv",
           getenv("TMPDIR") != NULL && getenv("TMPDIR")[0] != '\0' ? getenv("TMPDIR") : "/tmp",
           (long)getpid());
  char spec[320];
  snprintf(spec, sizeof spec, "log(device, file=%s)", path);
  const mr_tag logged[] = {{"temp", spec}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = logged, .tag_count = 1};
  mr_context *ctx;
  assert_ok(mr_context_create(&desc, &ctx));
  void *p[64];
  for (int d = 0; d < device_count; d++) {
    make_current(d);
    assert_ok(mr_allocate(mr_context_get_mr_on(ctx, 0, d), 4096, 0, NULL, &p[d]));
    assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 0, d), p[d], 4096, 0, NULL));
  }
  make_current(-1);
  mr_context_destroy(ctx); /* writes everything */
  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char line[256];
  int headers = 0, allocates = 0, frees = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    headers += strncmp(line, "Thread,", 7) == 0;
    allocates += strstr(line, ",allocate,") != NULL;
    frees += strstr(line, ",free,") != NULL;
  }
  fclose(f);
  unlink(path);
  assert_int_equal(headers, 1);
  assert_int_equal(allocates, device_count);
  assert_int_equal(frees, device_count);
}

static void test_percent_sizes_per_device(void **state) {
  static const mr_tag probe_tags[] = {{"quarter", "probe(bytes=25%)"},
                                      {"eighth", "probe(bytes=12.5%)"}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "mylib", .tags = probe_tags, .tag_count = 1};
  mr_context *ctx;
  memset(probed, 0, sizeof probed);
  assert_ok(mr_context_create(&desc, &ctx));
  for (int d = 0; d < device_count; d++) {
    mr_device_info info = {.size = sizeof info};
    assert_ok(mr_device_get_info(d, &info));
    assert_true(info.total_memory > 0);
    assert_int_equal(probed[d], info.total_memory / 4);
  }
  mr_context_destroy(ctx);
  desc.tags = &probe_tags[1];
  assert_ok(mr_context_create(&desc, &ctx));
  mr_device_info info = {.size = sizeof info};
  assert_ok(mr_device_get_info(1, &info));
  assert_int_equal(probed[1], info.total_memory / 8);
  mr_context_destroy(ctx);

  /* All of it, none of it, and no more than all of it. */
  desc.tags = probe_tags;
  desc.overrides = "quarter=probe(bytes=100%)";
  assert_ok(mr_context_create(&desc, &ctx));
  assert_int_equal(probed[1], info.total_memory);
  mr_context_destroy(ctx);
  desc.overrides = "quarter=probe(bytes=0%)";
  assert_ok(mr_context_create(&desc, &ctx));
  assert_int_equal(probed[1], 0);
  mr_context_destroy(ctx);
  static const char *const too_much[] = {"quarter=probe(bytes=101%)",
                                         "quarter=probe(bytes=1000000%)",
                                         "quarter=arena(device, chunk=200%)"};
  for (size_t i = 0; i < sizeof too_much / sizeof too_much[0]; i++) {
    desc.overrides = too_much[i];
    ctx = (mr_context *)0x1;
    assert_status(mr_context_create(&desc, &ctx), MR_ERR_CONFIG);
    assert_null(ctx);
    assert_error_contains("is more than 100% (a size in % is a share of the device's memory)");
  }
}

static void test_get_mr_follows_the_current_device(void **state) {
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "mylib",
                          .tags = tags,
                          .tag_count = 3,
                          .overrides = "result@1=stats(host)"};
  mr_context *ctx;
  assert_ok(mr_context_create(&desc, &ctx));
  for (int d = device_count - 1; d >= 0; d--) {
    make_current(d);
    assert_int_equal(mr_current_device(), d);
    for (int t = 0; t < 3; t++)
      assert_ptr_equal(ctx_get_mr(ctx, t), mr_context_get_mr_on(ctx, t, d));
  }
  make_current(1);
  assert_string_equal(mr_resource_describe(ctx_get_mr(ctx, RESULT)), "stats(host)");
  /* A thread with no context is on device 0, as the runtime would pick. */
  make_current(-1);
  assert_ptr_equal(ctx_get_mr(ctx, TEMP), mr_context_get_mr_on(ctx, TEMP, 0));
  mr_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_one_slot_per_device),
      cmocka_unit_test(test_per_device_overrides),
      cmocka_unit_test(test_device_tags_allocate_per_device),
      cmocka_unit_test(test_percent_sizes_per_device),
      cmocka_unit_test(test_log_tag_on_every_device),
      cmocka_unit_test(test_get_mr_follows_the_current_device),
  };
  return cmocka_run_group_tests(tests, setup, NULL);
}
