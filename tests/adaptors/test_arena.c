/* unit: arena(UP, chunk=SIZE) over host memory (streams do not matter). */
#include "adaptor_test.h"

#define CHUNK ((size_t)64 << 10)

typedef struct counts {
  size_t chunks, idle, large;
} counts;

static counts arena_counts(const mr_resource *mr) {
  counts c;
  assert_ok(mri_arena_counts(mr, &c.chunks, &c.idle, &c.large));
  return c;
}

static mr_resource *make_arena(faulty_upstream *u) {
  *u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(mr_arena_resource_create(u->mr, CHUNK, &mr));
  return mr;
}

static void test_describe_props_and_edges(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  assert_describes(mr, "arena(faulty, chunk=64KiB)");
  assert_inherits_props(mr, u.mr, 256);
  mr_resource_props props = {.size = sizeof props};
  assert_ok(mr_resource_get_props(mr, &props));
  assert_false(props.stream_ordered); /* pageable host: reused at once */
  assert_size_zero_and_null_free(mr, u.f);
  assert_int_equal(faulty_allocations(u.f), 0); /* chunks come on first use */
  release_and_check_upstream(mr, &u);
}

static mr_status create_arena(mr_resource *up, mr_resource **out) {
  return mr_arena_resource_create(up, CHUNK, out);
}

static void test_invalid_arguments(void **state) {
  assert_checks_upstream_and_out("arena", create_arena);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = (mr_resource *)1;
  /* One that would round up to 2^63 could not be described: refused. */
  assert_status(mr_arena_resource_create(u.mr, SIZE_MAX / 2, &mr), MR_ERR_INVALID_ARGUMENT);
  assert_null(mr);
  assert_error_contains("arena(faulty): chunk size ");
  assert_error_contains(" is out of range (rounded up to a multiple of 256, it must stay below "
                        "2^63)");
  assert_int_equal(faulty_allocations(u.f), 0);
  /* A chunk size that is not a multiple of 256 is rounded up. */
  assert_ok(mr_arena_resource_create(u.mr, 1000, &mr));
  assert_describes(mr, "arena(faulty, chunk=1KiB)");
  mr_resource_release(mr);
  mr_resource_release(u.mr);
}

/* chunk 0 is the default, MR_ARENA_DEFAULT_CHUNK: what arena(UP) gets. */
static void test_default_chunk(void **state) {
  mr_resource *host = NULL, *mr = NULL;
  assert_ok(mr_host_resource_create(&host));
  assert_ok(mr_arena_resource_create(host, 0, &mr));
  mr_resource_release(host);
  assert_default_as_spec(mr, "arena(host)", "arena(host, chunk=64MiB)");
  assert_ok(mr_resource_from_spec("arena(host, chunk=0)", 0, &mr));
  assert_describes(mr, "arena(host, chunk=64MiB)");
  mr_resource_release(mr);
  assert_int_equal(MR_ARENA_DEFAULT_CHUNK, (size_t)64 << 20);
}

static void test_bump_and_reuse(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *a = NULL, *b = NULL;
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
  assert_ok(mr_allocate(mr, 300, 0, STREAM_A, &b));
  assert_ptr_equal((char *)a + 256, b); /* carved in order, 256-aligned */
  assert_int_equal(faulty_allocations(u.f), 1);
  assert_ok(mr_deallocate(mr, a, 100, 0, STREAM_A));
  assert_ok(mr_deallocate(mr, b, 300, 0, STREAM_A));
  /* Everything freed: the chunk starts again from its base. */
  void *c = NULL;
  assert_ok(mr_allocate(mr, 64, 0, STREAM_A, &c));
  assert_ptr_equal(c, a);
  assert_ok(mr_deallocate(mr, c, 64, 0, STREAM_A));
  for (int i = 0; i < 1000; i++) {
    assert_ok(mr_allocate(mr, 5000, 0, STREAM_A, &c));
    assert_ok(mr_deallocate(mr, c, 5000, 0, STREAM_A));
  }
  assert_int_equal(faulty_allocations(u.f), 1);
  counts n = arena_counts(mr);
  assert_int_equal(n.chunks, 1);
  assert_int_equal(n.idle, 1);
  release_and_check_upstream(mr, &u);
}

static void test_chunk_reuse_after_all_freed(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  enum { N = 40 };
  void *p[N];
  /* 40 x 8KiB: 8 per chunk, 5 chunks. */
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(mr, 8 << 10, 0, STREAM_A, &p[i]));
  assert_int_equal(faulty_allocations(u.f), 5);
  counts n = arena_counts(mr);
  assert_int_equal(n.chunks, 5);
  assert_int_equal(n.idle, 0);
  for (int i = 0; i < N; i++) assert_ok(mr_deallocate(mr, p[i], 8 << 10, 0, STREAM_B));
  n = arena_counts(mr);
  assert_int_equal(n.idle, 5);
  /* The same again reuses the five chunks. */
  for (int i = 0; i < N; i++) assert_ok(mr_allocate(mr, 8 << 10, 0, STREAM_B, &p[i]));
  assert_int_equal(faulty_allocations(u.f), 5);
  for (int i = N; i-- > 0;) assert_ok(mr_deallocate(mr, p[i], 8 << 10, 0, STREAM_A));
  release_and_check_upstream(mr, &u);
}

static void test_large_requests_go_upstream(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *big = NULL, *small = NULL;
  assert_ok(mr_allocate(mr, CHUNK + 1, 0, STREAM_A, &big));
  assert_ok(mr_allocate(mr, CHUNK, 0, STREAM_A, &small)); /* exactly a chunk fits one */
  assert_int_equal(faulty_allocations(u.f), 2);
  counts n = arena_counts(mr);
  assert_int_equal(n.large, 1);
  assert_int_equal(n.chunks, 1);
  assert_int_equal(faulty_live_bytes(u.f), CHUNK + 1 + CHUNK);
  assert_status(mr_deallocate(mr, big, CHUNK + 2, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not the 65538 being freed");
  assert_ok(mr_deallocate(mr, big, CHUNK + 1, 0, STREAM_A));
  assert_ok(mr_deallocate(mr, small, CHUNK, 0, STREAM_A));
  assert_int_equal(arena_counts(mr).large, 0);
  assert_int_equal(faulty_live_blocks(u.f), 1); /* the chunk, kept */
  release_and_check_upstream(mr, &u);
}

static void test_over_aligned(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *p[6];
  for (int i = 0; i < 6; i++) {
    assert_ok(mr_allocate(mr, 1000, 4096, STREAM_A, &p[i]));
    assert_true((uintptr_t)p[i] % 4096 == 0);
    memset(p[i], i, 1000);
  }
  void *huge = NULL;
  assert_ok(mr_allocate(mr, CHUNK, 1 << 16, STREAM_A, &huge));
  assert_true((uintptr_t)huge % (1 << 16) == 0);
  assert_ok(mr_deallocate(mr, huge, CHUNK, 1 << 16, STREAM_A));
  for (int i = 0; i < 6; i++) assert_ok(mr_deallocate(mr, p[i], 1000, 4096, STREAM_A));
  release_and_check_upstream(mr, &u);
}

static void test_bad_frees(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *a = NULL;
  assert_ok(mr_allocate(mr, 512, 0, STREAM_A, &a));
  int local;
  assert_status(mr_deallocate(mr, &local, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated here");
  /* Inside the chunk but past what was carved / not on a boundary. */
  assert_status(mr_deallocate(mr, (char *)a + 4096, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live allocation of this arena");
  assert_status(mr_deallocate(mr, (char *)a + 8, 8, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_deallocate(mr, a, 512, 0, STREAM_A));
  assert_status(mr_deallocate(mr, a, 512, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("freed twice");
  assert_int_equal(faulty_deallocations(u.f), 0);
  release_and_check_upstream(mr, &u);
}

static void test_upstream_failure(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  faulty_set_fail(u.f, 1, 1);
  void *p = (void *)1;
  assert_status(mr_allocate(mr, 100, 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  assert_error_contains("arena(faulty, chunk=64KiB): taking a new chunk from upstream: faulty: "
                        "allocation 1 fails on purpose");
  assert_int_equal(arena_counts(mr).chunks, 0);
  faulty_set_fail(u.f, 2, 1);
  assert_status(mr_allocate(mr, CHUNK * 2, 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("arena(faulty, chunk=64KiB): upstream allocation of 131072 bytes");
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &p));
  assert_ok(mr_deallocate(mr, p, 100, 0, STREAM_A));
  release_and_check_upstream(mr, &u);
}

static void test_trim_returns_idle_chunks(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *p[20];
  for (int i = 0; i < 20; i++) assert_ok(mr_allocate(mr, 16 << 10, 0, STREAM_A, &p[i]));
  assert_int_equal(arena_counts(mr).chunks, 5);
  /* Free all but one chunk's worth (the last chunk is current). */
  for (int i = 0; i < 16; i++) assert_ok(mr_deallocate(mr, p[i], 16 << 10, 0, STREAM_A));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(faulty_trims(u.f), 1); /* passed on */
  counts n = arena_counts(mr);
  assert_int_equal(n.chunks, 1);
  assert_int_equal(faulty_live_blocks(u.f), 1);
  for (int i = 16; i < 20; i++) assert_ok(mr_deallocate(mr, p[i], 16 << 10, 0, STREAM_A));
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(arena_counts(mr).chunks, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  /* And it still works afterwards. */
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &p[0]));
  assert_ok(mr_deallocate(mr, p[0], 100, 0, STREAM_A));
  release_and_check_upstream(mr, &u);
}

static void test_destroy_returns_everything(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  void *p = NULL, *big = NULL;
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &p));
  assert_ok(mr_allocate(mr, CHUNK * 3, 0, STREAM_A, &big));
  assert_int_equal(faulty_live_blocks(u.f), 2);
  release_and_check_upstream(mr, &u); /* the caller forgot both: the arena returns them anyway */
}

static void test_threads(void **state) {
  faulty_upstream u;
  mr_resource *mr = make_arena(&u);
  /* Sizes up to 1.5 chunks: some pass through. */
  churn(mr, 8, 5000, CHUNK + CHUNK / 2, true);
  counts n = arena_counts(mr);
  assert_int_equal(n.idle, n.chunks);
  assert_int_equal(n.large, 0);
  assert_int_equal(faulty_live_blocks(u.f), n.chunks);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(arena_counts(mr).chunks, 0);
  assert_int_equal(faulty_live_blocks(u.f), 0);
  release_and_check_upstream(mr, &u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_describe_props_and_edges),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_default_chunk),
      cmocka_unit_test(test_bump_and_reuse),
      cmocka_unit_test(test_chunk_reuse_after_all_freed),
      cmocka_unit_test(test_large_requests_go_upstream),
      cmocka_unit_test(test_over_aligned),
      cmocka_unit_test(test_bad_frees),
      cmocka_unit_test(test_upstream_failure),
      cmocka_unit_test(test_trim_returns_idle_chunks),
      cmocka_unit_test(test_destroy_returns_everything),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
