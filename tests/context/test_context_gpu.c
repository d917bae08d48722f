/*
 * test_context_gpu.c: a context on a real GPU: device, pinned and managed
 * tags allocate, the memory is usable from kernels (and, for pinned and
 * managed, from the host), frees go back, and the per-tag statistics are
 * exact. Skips (77) without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

enum { TEMP, STAGING, RESULT, CACHED };
static const mr_tag tags[] = {
    [TEMP] = {"temp", "device"},
    [STAGING] = {"staging", "pinned"},
    [RESULT] = {"result", "managed"},
    [CACHED] = {"cached", "cache(stats(device))"},
};

#define BYTES ((size_t)3 << 20)

static mr_context *ctx;
static mr_stream stream;

static int setup(void **state) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "gputest", .tags = tags, .tag_count = 4};
  if (mr_context_create(&desc, &ctx) != MR_OK) {
    fprintf(stderr, "mr_context_create: %s\n", mr_last_error());
    return -1;
  }
  stream = gpu_stream_create();
  return 0;
}

static int teardown(void **state) {
  if (mr_context_print_stats(ctx, stderr) != MR_OK) return -1;
  gpu_stream_destroy(stream);
  mr_context_destroy(ctx);
  return 0;
}

static void expect_stats(int tag, uint64_t current, uint64_t total_bytes, uint64_t count) {
  mr_stats s;
  mr_stats_init(&s);
  assert_ok(mr_context_get_stats(ctx, tag, -1, &s));
  if (s.current_bytes != current || s.total_bytes != total_bytes || s.total_count != count ||
      s.failed_count != 0) {
    print_error(
        "tag %s: current %llu total %llu count %llu failed %llu; expected %llu/%llu/%llu/0\n",
        tags[tag].name, (unsigned long long)s.current_bytes, (unsigned long long)s.total_bytes,
        (unsigned long long)s.total_count, (unsigned long long)s.failed_count,
        (unsigned long long)current, (unsigned long long)total_bytes, (unsigned long long)count);
    fail();
  }
}

static void test_resolved_on_every_device(void **state) {
  int count = 0;
  assert_ok(mr_device_count(&count));
  assert_int_equal(mr_context_device_count(ctx), count);
  for (int d = 0; d < count; d++) {
    for (int t = 0; t < 4; t++) {
      mr_spec_source s = {.size = sizeof s};
      assert_ok(mr_context_get_source(ctx, t, d, &s));
      if (s.status != MR_OK) {
        print_error("tag %s on device %d is unavailable: %s\n", tags[t].name, d, s.reason);
        fail();
      }
    }
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr_context_get_mr_on(ctx, TEMP, d), &props));
    assert_int_equal(props.kind, MR_MEMORY_DEVICE);
    assert_int_equal(props.device, d);
  }
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(ctx_get_mr(ctx, STAGING), &props));
  assert_int_equal(props.kind, MR_MEMORY_PINNED);
  assert_true(props.host_accessible);
  assert_true(props.device_accessible);
  assert_ok(mr_resource_get_props(ctx_get_mr(ctx, RESULT), &props));
  assert_int_equal(props.kind, MR_MEMORY_MANAGED);
  assert_true(props.host_accessible);
  /* The current device's table entry. */
  assert_ptr_equal(ctx_get_mr(ctx, TEMP), mr_context_get_mr_on(ctx, TEMP, mr_current_device()));
}

static void test_device_tag(void **state) {
  mr_resource *mr = ctx_get_mr(ctx, TEMP);
  void *p = NULL;
  assert_ok(mr_allocate(mr, BYTES, 0, stream, &p));
  assert_non_null(p);
  assert_int_equal((uintptr_t)p % 256, 0);
  expect_stats(TEMP, BYTES, BYTES, 1);
  gpu_fill(p, BYTES, 0x5a, stream);
  assert_true(gpu_all_equal(p, BYTES, 0x5a, stream));
  assert_ok(mr_deallocate(mr, p, BYTES, 0, stream));
  assert_ok(mr_resource_synchronize(mr, stream));
  expect_stats(TEMP, 0, BYTES, 1);
}

/* Pinned and managed memory: written by the host, then by a kernel, and
 * both seen from the other side. */
static void host_and_device(int tag) {
  mr_resource *mr = ctx_get_mr(ctx, tag);
  unsigned char *p = NULL;
  assert_ok(mr_allocate(mr, BYTES, 0, stream, (void **)&p));
  assert_non_null(p);
  assert_ok(mr_resource_synchronize(mr, stream));
  memset(p, 0x11, BYTES);
  assert_true(gpu_all_equal(p, BYTES, 0x11, stream));
  gpu_fill(p, BYTES, 0x22, stream);
  assert_ok(mr_resource_synchronize(mr, stream));
  for (size_t i = 0; i < BYTES; i += 4093) {
    if (p[i] != 0x22) {
      print_error("tag %s: byte %zu is 0x%02x after the kernel wrote 0x22\n", tags[tag].name, i,
                  p[i]);
      fail();
    }
  }
  expect_stats(tag, BYTES, BYTES, 1);
  assert_ok(mr_deallocate(mr, p, BYTES, 0, stream));
  assert_ok(mr_resource_synchronize(mr, stream));
  expect_stats(tag, 0, BYTES, 1);
}

static void test_pinned_tag(void **state) { host_and_device(STAGING); }
static void test_managed_tag(void **state) { host_and_device(RESULT); }

static void test_cached_device_tag(void **state) {
  mr_resource *mr = ctx_get_mr(ctx, CACHED);
  for (int round = 0; round < 3; round++) {
    void *p = NULL;
    assert_ok(mr_allocate(mr, 1 << 20, 0, stream, &p));
    gpu_fill(p, 1 << 20, (unsigned char)(round + 1), stream);
    assert_true(gpu_all_equal(p, 1 << 20, (unsigned char)(round + 1), stream));
    assert_ok(mr_deallocate(mr, p, 1 << 20, 0, stream));
  }
  expect_stats(CACHED, 0, 3u << 20, 3);
  assert_ok(mr_resource_trim(mr));
}

int main(void) {
  GPU_TEST_REQUIRE();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resolved_on_every_device),
      cmocka_unit_test(test_device_tag),
      cmocka_unit_test(test_pinned_tag),
      cmocka_unit_test(test_managed_tag),
      cmocka_unit_test(test_cached_device_tag),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
