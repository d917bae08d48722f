/* unit: bin(UP, min=SIZE, max=SIZE, count=N) over host memory. */
#include "adaptor_test.h"

static void test_describe_props_and_classes(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_bin_resource_create(u.mr, 256, 4096, 2, &mr));
  assert_describes(mr, "bin(faulty, min=256B, max=4KiB, count=2)");
  assert_inherits_props(mr, u.mr, 256);
  /* Five classes (256 .. 4096), each a fixed with its first slab. */
  assert_int_equal(faulty_allocations(u.f), 5);
  assert_int_equal(faulty_live_bytes(u.f), 2 * (256 + 512 + 1024 + 2048 + 4096));
  assert_size_zero_and_null_free(mr, u.f);

  /* 300 bytes: the 512 class; its two blocks, then a growth. */
  void *p[4];
  for (int i = 0; i < 3; i++) assert_ok(mr_allocate(mr, 300, 0, STREAM_A, &p[i]));
  assert_int_equal(faulty_allocations(u.f), 6);
  assert_int_equal(faulty_live_bytes(u.f) - 2 * (256 + 512 + 1024 + 2048 + 4096), 2 * 512);
  /* Larger than max: straight upstream. */
  assert_ok(mr_allocate(mr, 4097, 0, STREAM_A, &p[3]));
  assert_int_equal(faulty_allocations(u.f), 7);
  for (int i = 0; i < 3; i++) assert_ok(mr_deallocate(mr, p[i], 300, 0, STREAM_A));
  assert_ok(mr_deallocate(mr, p[3], 4097, 0, STREAM_A));
  /* Exact class sizes and 1 byte land in the right classes. */
  size_t sizes[] = {1, 256, 257, 512, 513, 4096};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(sizes); i++) {
    void *q = NULL;
    assert_ok(mr_allocate(mr, sizes[i], 0, NULL, &q));
    memset(q, 1, sizes[i]);
    assert_ok(mr_deallocate(mr, q, sizes[i], 0, NULL));
  }
  assert_int_equal(faulty_allocations(u.f), 7);
  /* Trim: idle slabs of every class go back, upstream trimmed once. */
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  mr_resource_release(u.mr);
}

static mr_status create_bin(mr_resource *up, mr_resource **out) {
  return mr_bin_resource_create(up, 256, 4096, 2, out);
}

static void test_invalid_arguments_and_failure(void **state) {
  assert_checks_upstream_and_out("bin", create_bin);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_bin_resource_create(u.mr, 100, 4096, 2, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("bin(faulty): min 100 and max 4096 must be powers of two with 256 <= min "
                        "<= max");
  assert_status(mr_bin_resource_create(u.mr, 128, 4096, 2, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_bin_resource_create(u.mr, 8192, 4096, 2, &mr), MR_ERR_INVALID_ARGUMENT);
  /* The defaults take part in the checks: min 128KiB is past the default
   * max, 64KiB; max 128 is below the default min, 256. */
  assert_status(mr_bin_resource_create(u.mr, 128 << 10, 0, 2, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("bin(faulty): min 131072 and max 65536 must be powers of two");
  assert_status(mr_bin_resource_create(u.mr, 0, 128, 2, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("bin(faulty): min 256 and max 128 must be powers of two");
  assert_null(mr);
  assert_int_equal(faulty_allocations(u.f), 0);
  /* The third class cannot get its first slab: the others are returned. */
  faulty_set_fail(u.f, 3, 1);
  assert_status(mr_bin_resource_create(u.mr, 256, 4096, 2, &mr), MR_ERR_OUT_OF_MEMORY);
  assert_null(mr);
  assert_error_contains("bin(faulty): class 3 of 5: fixed(faulty, block=1KiB, count=2): taking "
                        "the first 2 blocks");
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

/* min, max and count 0 are the defaults, MR_BIN_DEFAULT_MIN, _MAX and
 * _COUNT: what bin(UP) gets. Each may be left to its default alone. */
static void test_defaults(void **state) {
  mr_resource *host = NULL, *mr = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_bin_resource_create(host, 0, 0, 0, &mr));
  assert_default_as_spec(mr, "bin(host)", "bin(host, min=256B, max=64KiB, count=64)");
  assert_ok(mr_bin_resource_create(host, 1024, 0, 0, &mr));
  assert_default_as_spec(mr, "bin(host, min=1KiB)", "bin(host, min=1KiB, max=64KiB, count=64)");
  assert_ok(mr_bin_resource_create(host, 0, 4096, 0, &mr));
  assert_default_as_spec(mr, "bin(host, max=4KiB)", "bin(host, min=256B, max=4KiB, count=64)");
  assert_ok(mr_bin_resource_create(host, 0, 0, 2, &mr));
  assert_default_as_spec(mr, "bin(host, count=2)", "bin(host, min=256B, max=64KiB, count=2)");
  assert_ok(mr_resource_from_spec("bin(host, min=0, max=0, count=0)", 0, &mr));
  assert_describes(mr, "bin(host, min=256B, max=64KiB, count=64)");
  mr_resource_release(mr);
  mr_resource_release(host);
  assert_int_equal(MR_BIN_DEFAULT_MIN, 256);
  assert_int_equal(MR_BIN_DEFAULT_MAX, (size_t)64 << 10);
  assert_int_equal(MR_BIN_DEFAULT_COUNT, 64);
}

/* At most 48 size classes (min 256B to max 32PiB); more would not fit the
 * class table. Built over an upstream of addresses only, so every class
 * could be created. */
static void test_too_many_classes(void **state) {
  mr_resource *up = NULL;
  assert_ok(vspace_resource_create(&up));
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_bin_resource_create(up, 256, (size_t)1 << 62, 1, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("bin(vspace): min 256B to max 4194304TiB makes 55 size classes; at most 48 "
                        "(e.g. max=32768TiB with min=256B)");
  assert_status(mr_bin_resource_create(up, 256, (size_t)1 << 56, 1, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("makes 49 size classes; at most 48");
  /* 48 classes exactly; every size up to max finds its class. */
  assert_ok(mr_bin_resource_create(up, 256, (size_t)1 << 55, 1, &mr));
  assert_describes(mr, "bin(vspace, min=256B, max=32768TiB, count=1)");
  void *p = NULL;
  size_t sizes[] = {
      1, 256, 257, (size_t)1 << 40, ((size_t)1 << 55) - 1, (size_t)1 << 55, ((size_t)1 << 55) + 1};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    assert_ok(mr_allocate(mr, sizes[i], 0, NULL, &p));
    assert_ok(mr_deallocate(mr, p, sizes[i], 0, NULL));
    p = NULL;
  }
  mr_resource_release(mr);
  /* A larger min leaves room for a larger max. */
  assert_ok(mr_bin_resource_create(up, (size_t)1 << 16, (size_t)1 << 62, 1, &mr));
  mr_resource_release(mr);
  mr_resource_release(up);
}

static void test_over_aligned_and_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_bin_resource_create(u.mr, 256, 1 << 16, 4, &mr));
  void *p = NULL;
  assert_ok(mr_allocate(mr, 10, 4096, STREAM_A, &p));
  assert_true((uintptr_t)p % 4096 == 0);
  assert_ok(mr_deallocate(mr, p, 10, 4096, STREAM_A));
  churn(mr, 8, 4000, 80000, true);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(mr);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_classes),
      cmocka_unit_test(test_invalid_arguments_and_failure),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_too_many_classes),
      cmocka_unit_test(test_over_aligned_and_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
