/* unit: align(UP, alignment=SIZE) */
#include "adaptor_test.h"

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_align_resource_create(u.mr, 4096, &mr));
  assert_describes(mr, "align(faulty, alignment=4KiB)");
  assert_inherits_props(mr, u.mr, 0);
  assert_size_zero_and_null_free(mr, u.f);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static mr_status create_align(mr_resource *up, mr_resource **out) {
  return mr_align_resource_create(up, 4096, out);
}

static void test_invalid_alignment(void **state) {
  assert_checks_upstream_and_out("align", create_align);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_align_resource_create(u.mr, 0, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("align(faulty): alignment 0 is not a power of two");
  assert_status(mr_align_resource_create(u.mr, 3000, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("alignment 3000 is not a power of two");
  /* At most 2 GiB: every request over-allocates by up to the alignment. */
  assert_status(mr_align_resource_create(u.mr, (size_t)1 << 63, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("align(faulty): alignment 9223372036854775808 (8388608TiB) is more than "
                        "2GiB, the largest align serves");
  assert_status(mr_align_resource_create(u.mr, (size_t)1 << 32, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("alignment 4294967296 (4GiB) is more than 2GiB");
  assert_int_equal(MR_ALIGN_MAX_ALIGNMENT, (size_t)1 << 31);
  assert_ok(mr_align_resource_create(u.mr, MR_ALIGN_MAX_ALIGNMENT, &mr));
  assert_describes(mr, "align(faulty, alignment=2GiB)");
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_every_allocation_aligned(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_align_resource_create(u.mr, 65536, &mr));
  void *p[4] = {0};
  size_t alignments[4] = {0, 256, 65536, 1 << 20};
  for (int i = 0; i < 4; i++) {
    assert_ok(mr_allocate(mr, 100 + (size_t)i, alignments[i], STREAM_A, &p[i]));
    size_t want = alignments[i] > 65536 ? alignments[i] : 65536;
    assert_true((uintptr_t)p[i] % want == 0);
  }
  for (int i = 0; i < 4; i++)
    assert_ok(mr_deallocate(mr, p[i], 100 + (size_t)i, alignments[i], STREAM_A));
  assert_int_equal(faulty_live_blocks(u.f), 0);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  /* Upstream errors pass through. */
  faulty_set_fail(u.f, faulty_allocations(u.f) + 1, 1);
  void *q = (void *)1;
  assert_status(mr_allocate(mr, 10, 0, NULL, &q), MR_ERR_OUT_OF_MEMORY);
  assert_null(q);
  assert_error_contains("fails on purpose");
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

static void test_align_over_aligned_upstream_of_its_own(void **state) {
  /* An upstream that serves only 256 natively: the core over-allocates. */
  faulty_upstream u = faulty_new(false);
  mr_resource *arena = NULL, *mr = NULL;
  assert_ok(mr_arena_resource_create(u.mr, 1 << 16, &arena));
  assert_ok(mr_align_resource_create(arena, 4096, &mr));
  assert_describes(mr, "align(arena(faulty, chunk=64KiB), alignment=4KiB)");
  void *p[8];
  for (int i = 0; i < 8; i++) {
    assert_ok(mr_allocate(mr, 1000, 0, NULL, &p[i]));
    assert_true((uintptr_t)p[i] % 4096 == 0);
  }
  for (int i = 0; i < 8; i++) assert_ok(mr_deallocate(mr, p[i], 1000, 0, NULL));
  mr_resource_release(mr);
  mr_resource_release(arena);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

static void test_threads(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_align_resource_create(u.mr, 1024, &mr));
  churn(mr, 8, 3000, 3000, true);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  assert_int_equal(faulty_bad_frees(u.f), 0);
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_invalid_alignment),
      cmocka_unit_test(test_every_allocation_aligned),
      cmocka_unit_test(test_align_over_aligned_upstream_of_its_own),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
