/* unit: fixed(UP, block=SIZE, count=N) over host memory. */
#include "adaptor_test.h"

#define BLOCK ((size_t)4096)

typedef struct counts {
  size_t slabs, free_blocks, large;
} counts;

static counts fixed_counts(const mr_resource *mr) {
  counts c;
  assert_ok(mri_fixed_counts(mr, &c.slabs, &c.free_blocks, &c.large));
  return c;
}

static mr_resource *make_fixed(faulty_upstream *u, size_t count) {
  *u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_fixed_resource_create(u->mr, BLOCK, count, &mr));
  return mr;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 4);
  assert_describes(mr, "fixed(faulty, block=4KiB, count=4)");
  assert_inherits_props(mr, u.mr, 256);
  /* The first slab is taken at creation, in one upstream allocation. */
  assert_int_equal(faulty_allocations(u.f), 1);
  assert_int_equal(faulty_live_bytes(u.f), 4 * BLOCK);
  counts n = fixed_counts(mr);
  assert_int_equal(n.slabs, 1);
  assert_int_equal(n.free_blocks, 4);
  assert_size_zero_and_null_free(mr, u.f);
  release_and_check_upstream(mr, &u);
}

static mr_status create_fixed(mr_resource *up, mr_resource **out) {
  return mr_fixed_resource_create(up, BLOCK, 4, out);
}

static void test_invalid_arguments(void **state) {
  assert_checks_upstream_and_out("fixed", create_fixed);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_fixed_resource_create(u.mr, SIZE_MAX / 2, 1, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("fixed(faulty): block size ");
  assert_error_contains(" is out of range (rounded up to a multiple of 256, it must stay below "
                        "2^63)");
  mr = (mr_resource *)1;
  assert_status(mr_fixed_resource_create(u.mr, BLOCK, SIZE_MAX / 1024, &mr),
                MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("fixed(faulty): count ");
  assert_error_contains(" is out of range (at most 4294967295 blocks of 4096 bytes per slab)");
  assert_status(mr_fixed_resource_create(u.mr, BLOCK, (size_t)UINT32_MAX + 1, &mr),
                MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("fixed(faulty): count 4294967296 is out of range");
  assert_int_equal(faulty_allocations(u.f), 0);
  /* Block sizes round up to a multiple of 256. */
  assert_ok(mr_fixed_resource_create(u.mr, 1000, 2, &mr));
  assert_describes(mr, "fixed(faulty, block=1KiB, count=2)");
  mr_resource_release(mr);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

/* block 0 and count 0 are the defaults, MR_FIXED_DEFAULT_BLOCK and
 * MR_FIXED_DEFAULT_COUNT: what fixed(UP) gets. Either may be left to its
 * default alone. */
static void test_defaults(void **state) {
  mr_resource *host = NULL, *mr = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_fixed_resource_create(host, 0, 0, &mr));
  assert_default_as_spec(mr, "fixed(host)", "fixed(host, block=1MiB, count=16)");
  assert_ok(mr_fixed_resource_create(host, 4096, 0, &mr));
  assert_default_as_spec(mr, "fixed(host, block=4KiB)", "fixed(host, block=4KiB, count=16)");
  assert_ok(mr_fixed_resource_create(host, 0, 2, &mr));
  assert_default_as_spec(mr, "fixed(host, count=2)", "fixed(host, block=1MiB, count=2)");
  assert_ok(mr_resource_from_spec("fixed(host, block=0, count=0)", 0, &mr));
  assert_describes(mr, "fixed(host, block=1MiB, count=16)");
  mr_resource_release(mr);
  mr_resource_release(host);
  assert_int_equal(MR_FIXED_DEFAULT_BLOCK, (size_t)1 << 20);
  assert_int_equal(MR_FIXED_DEFAULT_COUNT, 16);
}

static void test_creation_failure(void **state) {
  faulty_upstream u = faulty_new(false);
  faulty_set_fail(u.f, 1, 1);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_fixed_resource_create(u.mr, BLOCK, 8, &mr), MR_ERR_OUT_OF_MEMORY);
  assert_null(mr);
  assert_error_contains("fixed(faulty, block=4KiB, count=8): taking the first 8 blocks (32KiB) "
                        "from upstream: faulty: allocation 1 fails on purpose");
  assert_int_equal(faulty_live_blocks(u.f), 0);
  mr_resource_release(u.mr);
}

static void test_blocks_growth_and_reuse(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 4);
  void *p[9];
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(mr, i == 0 ? 1 : BLOCK, 0, STREAM_A, &p[i]));
  for (int i = 1; i < 4; i++) assert_ptr_equal(p[i], (char *)p[0] + (size_t)i * BLOCK);
  assert_int_equal(faulty_allocations(u.f), 1);
  /* Exhausted: the next grows by another slab of 4. */
  assert_ok(mr_allocate(mr, 10, 0, STREAM_A, &p[4]));
  assert_int_equal(faulty_allocations(u.f), 2);
  counts n = fixed_counts(mr);
  assert_int_equal(n.slabs, 2);
  assert_int_equal(n.free_blocks, 3);
  for (int i = 5; i < 8; i++) assert_ok(mr_allocate(mr, 100, 0, STREAM_B, &p[i]));
  assert_int_equal(faulty_allocations(u.f), 2);
  /* A freed block is the next one handed out (host: any stream). */
  assert_ok(mr_deallocate(mr, p[2], BLOCK, 0, STREAM_A));
  assert_ok(mr_allocate(mr, 64, 0, STREAM_B, &p[8]));
  assert_ptr_equal(p[8], p[2]);
  p[2] = NULL;
  for (int i = 0; i < 9; i++)
    if (p[i] != NULL) assert_ok(mr_deallocate(mr, p[i], 1, 0, STREAM_A));
  n = fixed_counts(mr);
  assert_int_equal(n.free_blocks, 8);
  release_and_check_upstream(mr, &u);
}

static void test_large_and_over_aligned(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 2);
  void *big = NULL, *aligned[3];
  assert_ok(mr_allocate(mr, BLOCK + 1, 0, STREAM_A, &big));
  assert_int_equal(fixed_counts(mr).large, 1);
  for (int i = 0; i < 3; i++) {
    /* 100 bytes at 4096: the core asks for 3940 bytes, one block. */
    assert_ok(mr_allocate(mr, 100, 4096, STREAM_A, &aligned[i]));
    assert_true((uintptr_t)aligned[i] % 4096 == 0);
  }
  assert_int_equal(fixed_counts(mr).slabs, 2);
  assert_ok(mr_deallocate(mr, big, BLOCK + 1, 0, STREAM_A));
  for (int i = 0; i < 3; i++) assert_ok(mr_deallocate(mr, aligned[i], 100, 4096, STREAM_A));
  counts n = fixed_counts(mr);
  assert_int_equal(n.large, 0);
  assert_int_equal(n.free_blocks, 4);
  release_and_check_upstream(mr, &u);
}

static void test_bad_frees(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 4);
  void *a = NULL;
  assert_ok(mr_allocate(mr, 128, 0, STREAM_A, &a));
  int local;
  assert_status(mr_deallocate(mr, &local, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated here");
  assert_status(mr_deallocate(mr, (char *)a + 256, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live block");
  assert_status(mr_deallocate(mr, (char *)a + BLOCK, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_deallocate(mr, a, BLOCK * 2, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(mr, a, 128, 0, STREAM_A));
  assert_status(mr_deallocate(mr, a, 128, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("freed twice");
  assert_int_equal(fixed_counts(mr).free_blocks, 4);
  release_and_check_upstream(mr, &u);
}

static void test_growth_failure_and_trim(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 2);
  void *p[4];
  assert_ok(mr_allocate(mr, 1, 0, STREAM_A, &p[0]));
  assert_ok(mr_allocate(mr, 1, 0, STREAM_A, &p[1]));
  faulty_set_fail(u.f, 2, 1);
  void *q = (void *)1;
  assert_status(mr_allocate(mr, 1, 0, STREAM_A, &q), MR_ERR_OUT_OF_MEMORY);
  assert_null(q);
  assert_error_contains("fixed(faulty, block=4KiB, count=2): growing by 2 blocks: faulty");
  assert_ok(mr_allocate(mr, 1, 0, STREAM_A, &p[2]));
  assert_ok(mr_allocate(mr, 1, 0, STREAM_A, &p[3]));
  assert_int_equal(fixed_counts(mr).slabs, 2);
  /* Trim returns only fully idle slabs, and passes the call on. */
  assert_ok(mr_deallocate(mr, p[0], 1, 0, STREAM_A));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1);
  assert_int_equal(fixed_counts(mr).slabs, 2);
  assert_ok(mr_deallocate(mr, p[1], 1, 0, STREAM_A));
  assert_ok(mr_resource_trim(mr));
  counts n = fixed_counts(mr);
  assert_int_equal(n.slabs, 1);
  assert_int_equal(n.free_blocks, 0);
  assert_ok(mr_deallocate(mr, p[2], 1, 0, STREAM_A));
  assert_ok(mr_deallocate(mr, p[3], 1, 0, STREAM_A));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(fixed_counts(mr).slabs, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  /* After a full trim it grows again on demand. */
  assert_ok(mr_allocate(mr, 1, 0, STREAM_A, &p[0]));
  assert_int_equal(fixed_counts(mr).slabs, 1);
  assert_ok(mr_deallocate(mr, p[0], 1, 0, STREAM_A));
  release_and_check_upstream(mr, &u);
}

static void test_threads(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_fixed(&u, 8);
  churn(mr, 8, 5000, BLOCK + BLOCK / 2, true);
  counts n = fixed_counts(mr);
  assert_int_equal(n.free_blocks, n.slabs * 8);
  assert_int_equal(n.large, 0);
  assert_int_equal(faulty_live_blocks(u.f), n.slabs);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_live_blocks(u.f), 0);
  release_and_check_upstream(mr, &u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_creation_failure),
      cmocka_unit_test(test_blocks_growth_and_reuse),
      cmocka_unit_test(test_large_and_over_aligned),
      cmocka_unit_test(test_bad_frees),
      cmocka_unit_test(test_growth_failure_and_trim),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
