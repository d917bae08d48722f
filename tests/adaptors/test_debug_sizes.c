/* unit: frees with the wrong size in the resources that keep memory, with
 * and without MRCTX_DEBUG (core/debug.h). Meson runs this binary with
 * MRCTX_DEBUG=1; the tests after the first set and re-read it themselves.
 * The cache's check is tested with the cache (test_cache_unit.c). */
#include <stdlib.h>

#include "adaptor_test.h"
#include "core/debug.h"

static void set_debug(const char *value) {
  if (value != NULL)
    setenv("MRCTX_DEBUG", value, 1);
  else
    unsetenv("MRCTX_DEBUG");
  mri_debug_reread();
}

/* Runs first: the variable meson set is read at the first question, once. */
static void test_variable_read_once(void **state) {
  assert_true(mri_debug_checks());
  setenv("MRCTX_DEBUG", "0", 1); /* too late: the value at first use counts */
  assert_true(mri_debug_checks());
  const char *const off[] = {NULL, "", "0"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(off); i++) {
    set_debug(off[i]);
    assert_false(mri_debug_checks());
  }
  const char *const on[] = {"1", "yes", "2"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(on); i++) {
    set_debug(on[i]);
    assert_true(mri_debug_checks());
  }
}

typedef struct keeper {
  const char *name;
  mr_status (*create)(mr_resource *up, mr_resource **out);
} keeper;

static mr_status make_fixed(mr_resource *up, mr_resource **out) {
  return mr_fixed_resource_create(up, 4096, 4, out);
}
static mr_status make_arena(mr_resource *up, mr_resource **out) {
  return mr_arena_resource_create(up, 1 << 20, out);
}
static mr_status make_bin(mr_resource *up, mr_resource **out) {
  return mr_bin_resource_create(up, 256, 65536, 4, out);
}
static mr_status make_track(mr_resource *up, mr_resource **out) {
  return mr_track_resource_create(up, out);
}
static mr_status make_cache(mr_resource *up, mr_resource **out) {
  return mr_cache_resource_create(up, 0, out);
}

static const keeper keepers[] = {{"fixed", make_fixed},
                                 {"arena", make_arena},
                                 {"bin", make_bin},
                                 {"track", make_track},
                                 {"cache", make_cache}};

static void fill(void *p, int byte, size_t n) { memset(p, byte, n); }

static bool filled(const void *p, int byte, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (((const unsigned char *)p)[i] != (unsigned char)byte) return false;
  return true;
}

/* The case and its relatives: allocate 100 bytes, free them as
 * 4096, as 99, with another alignment. Each is refused, naming the
 * resource, the pointer, both sizes; nothing reaches upstream; the block
 * stays allocated (the next 4096-byte allocation does not get it), and the
 * right free then works. */
static void test_debug_refuses_wrong_sizes(void **state) {
  set_debug("1");
  for (size_t k = 0; k < MRI_ARRAY_SIZE(keepers); k++) {
    faulty_upstream u = faulty_new(false);
    mr_resource *mr = NULL;
    assert_ok(keepers[k].create(u.mr, &mr));
    void *a = NULL, *b = NULL;
    assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
    fill(a, 0xAA, 100);
    long frees = faulty_deallocations(u.f);

    assert_status(mr_deallocate(mr, a, 4096, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    char expected[256];
    snprintf(expected, sizeof expected,
             "%s: %p was allocated with 100 bytes aligned to 256, not freed with 4096 bytes "
             "aligned to 256; the block stays allocated",
             mr_resource_describe(mr), a);
    assert_error_contains(expected);
    assert_status(mr_deallocate(mr, a, 99, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("not freed with 99 bytes aligned to 256");
    assert_status(mr_deallocate(mr, a, 100, 128, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("not freed with 100 bytes aligned to 128");
    assert_int_equal(faulty_deallocations(u.f), frees);

    /* Not handed out again, under any size. */
    assert_ok(mr_allocate(mr, 4096, 0, STREAM_A, &b));
    assert_ptr_not_equal(a, b);
    fill(b, 0xBB, 4096);
    assert_true(filled(a, 0xAA, 100));

    assert_ok(mr_deallocate(mr, a, 100, 0, STREAM_A));
    assert_status(mr_deallocate(mr, a, 100, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("is not a live allocation (never allocated here, or freed already)");
    int local;
    assert_status(mr_deallocate(mr, &local, 100, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_ok(mr_deallocate(mr, b, 4096, 0, STREAM_A));
    /* Over-aligned requests (the core's path) and pass-through sizes. */
    void *c = NULL, *d = NULL;
    assert_ok(mr_allocate(mr, 300, 4096, STREAM_A, &c));
    assert_status(mr_deallocate(mr, c, 301, 4096, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_ok(mr_deallocate(mr, c, 300, 4096, STREAM_A));
    assert_ok(mr_allocate(mr, (2 << 20) + 1, 0, STREAM_A, &d));
    assert_status(mr_deallocate(mr, d, 2 << 20, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_ok(mr_deallocate(mr, d, (2 << 20) + 1, 0, STREAM_A));
    assert_int_equal(faulty_bad_frees(u.f), 0);
    release_and_check_upstream(mr, &u);
  }
}

/* An upstream whose frees fail while `refuse` is set (as a driver's can). */
static bool refuse;

static mr_status refusing_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                   void **ptr) {
  return posix_memalign(ptr, alignment, bytes) == 0 ? MR_OK : MR_ERR_OUT_OF_MEMORY;
}

static mr_status refusing_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                     mr_stream stream) {
  if (refuse) return mr_error(MR_ERR_DRIVER, "refusing: this free fails on purpose");
  free(ptr);
  return MR_OK;
}

static const mr_resource_ops refusing_ops = {
    .size = sizeof(mr_resource_ops),
    .name = "refusing",
    .allocate = refusing_allocate,
    .deallocate = refusing_deallocate,
};

/* A free that passed the check and then failed below it (the upstream of a
 * pass-through refused) leaves the block on the record: it is still live,
 * and the retry works. */
static void test_debug_failed_free_keeps_the_record(void **state) {
  set_debug("1");
  for (size_t k = 0; k < MRI_ARRAY_SIZE(keepers); k++) {
    /* The cache keeps a 2 MiB block too: its free never reaches upstream. */
    if (strcmp(keepers[k].name, "cache") == 0) continue;
    mr_resource *up = NULL, *mr = NULL;
    assert_ok(mr_resource_create(&refusing_ops, NULL, NULL, &up));
    assert_ok(keepers[k].create(up, &mr));
    mr_resource_release(up);
    void *a = NULL;
    assert_ok(mr_allocate(mr, 2 << 20, 0, STREAM_A, &a));
    refuse = true;
    assert_status(mr_deallocate(mr, a, 2 << 20, 0, STREAM_A), MR_ERR_DRIVER);
    refuse = false;
    assert_status(mr_deallocate(mr, a, 1 << 20, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
    assert_error_contains("was allocated with 2097152 bytes aligned to 256, not freed with "
                          "1048576 bytes");
    assert_ok(mr_deallocate(mr, a, 2 << 20, 0, STREAM_A));
    mr_resource_release(mr);
  }
}

/* No host memory for the record: the allocation fails with
 * MR_ERR_OUT_OF_MEMORY and its block goes back, nothing leaks. */
static void test_debug_record_out_of_memory(void **state) {
  set_debug("1");
  for (size_t k = 0; k < 3; k++) {
    faulty_upstream u = faulty_new(false);
    mr_resource *mr = NULL;
    /* Room for every block in the first slab or chunk: the allocations
     * below need host memory only for the record. */
    if (k == 0) assert_ok(mr_fixed_resource_create(u.mr, 256, 4096, &mr));
    if (k == 1) assert_ok(mr_arena_resource_create(u.mr, 4 << 20, &mr));
    if (k == 2) assert_ok(mr_bin_resource_create(u.mr, 256, 256, 4096, &mr));
    static void *blocks[4096];
    size_t n = 0;
    /* The first one makes the record: from then on, it only grows. */
    assert_ok(mr_allocate(mr, 200, 0, STREAM_A, &blocks[n++]));
    mri_host_fault_arm(1, 1L << 30);
    mr_status st = MR_OK;
    while (n < 4096 && (st = mr_allocate(mr, 200, 0, STREAM_A, &blocks[n])) == MR_OK) n++;
    mri_host_fault_arm(0, 0);
    assert_status(st, MR_ERR_OUT_OF_MEMORY);
    assert_error_contains("out of host memory recording a 200-byte allocation (MRCTX_DEBUG)");
    assert_true(n > 1);
    /* The failed one's block was taken back: every block can still be had
     * and freed. */
    void *again = NULL;
    assert_ok(mr_allocate(mr, 200, 0, STREAM_A, &again));
    assert_ok(mr_deallocate(mr, again, 200, 0, STREAM_A));
    for (size_t i = 0; i < n; i++) assert_ok(mr_deallocate(mr, blocks[i], 200, 0, STREAM_A));
    if (k == 0) {
      size_t slabs, free_blocks, large;
      assert_ok(mri_fixed_counts(mr, &slabs, &free_blocks, &large));
      assert_int_equal(slabs, 1);
      assert_int_equal(free_blocks, 4096);
    }
    release_and_check_upstream(mr, &u);
  }
}

/* Threads allocating and freeing correctly never trip the check. */
static void test_debug_threads(void **state) {
  set_debug("1");
  for (size_t k = 0; k < MRI_ARRAY_SIZE(keepers); k++) {
    faulty_upstream u = faulty_new(false);
    mr_resource *mr = NULL;
    assert_ok(keepers[k].create(u.mr, &mr));
    assert_true(churn(mr, 4, 300, 8192, true) > 0);
    release_and_check_upstream(mr, &u);
  }
}

/* Without MRCTX_DEBUG (docs/semantics.md's table): fixed takes any size up
 * to its block for a block (each block is a block, whatever was asked) and
 * refuses larger; arena refuses a size past what it carved there; bin
 * routes by size, so a wrong size reaches a class or an upstream that
 * never handed the pointer out, and is refused -- never passed to the
 * upstream as its own (free() of a pointer inside a slab); track checks
 * always. */
static void test_without_debug(void **state) {
  set_debug(NULL);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  void *a = NULL, *b = NULL;

  assert_ok(make_fixed(u.mr, &mr));
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
  assert_status(mr_deallocate(mr, a, 4097, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live block (freed twice, or freed with another size?)");
  assert_ok(mr_deallocate(mr, a, 4096, 0, STREAM_A));
  assert_ok(mr_allocate(mr, 4096, 0, STREAM_A, &b));
  assert_ptr_equal(a, b); /* the same 4096-byte block: no harm */
  assert_ok(mr_deallocate(mr, b, 4096, 0, STREAM_A));
  release_and_check_upstream(mr, &u);

  u = faulty_new(false);
  assert_ok(make_arena(u.mr, &mr));
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
  assert_status(mr_deallocate(mr, a, 4096, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("is not a live allocation of this arena");
  assert_ok(mr_deallocate(mr, a, 100, 0, STREAM_A));
  release_and_check_upstream(mr, &u);

  u = faulty_new(false);
  assert_ok(make_bin(u.mr, &mr));
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
  long frees = faulty_deallocations(u.f);
  assert_status(mr_deallocate(mr, a, 4096, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("was not allocated here");
  /* Past max the free would go to the upstream: refused before it. */
  assert_status(mr_deallocate(mr, a, 1 << 20, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  char expected[256];
  snprintf(expected, sizeof expected,
           "%s: %p is a block of its 256-byte class, not an allocation of 1048576 bytes "
           "(freed with another size?)",
           mr_resource_describe(mr), a);
  assert_error_contains(expected);
  assert_int_equal(faulty_deallocations(u.f), frees);
  assert_ok(mr_deallocate(mr, a, 100, 0, STREAM_A));
  assert_int_equal(faulty_bad_frees(u.f), 0);
  release_and_check_upstream(mr, &u);
}

/* Through a chain (as a context's tag): the refusal comes back through
 * stats and limit, which keep counting the block. */
static void test_debug_through_a_chain(void **state) {
  set_debug("1");
  mr_resource *mr = NULL;
  assert_ok(
      mr_resource_from_spec("stats(limit(fixed(host, block=4KiB, count=2), bytes=1MiB))", 0, &mr));
  void *a = NULL;
  assert_ok(mr_allocate(mr, 100, 0, NULL, &a));
  assert_status(mr_deallocate(mr, a, 4096, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("fixed(host, block=4KiB, count=2): ");
  assert_error_contains("was allocated with 100 bytes aligned to 256, not freed with 4096 bytes");
  mr_stats stats;
  mr_stats_init(&stats);
  assert_ok(mr_stats_resource_get(mr, &stats));
  assert_int_equal(stats.current_bytes, 100);
  size_t used = 0;
  assert_ok(mr_limit_resource_used(mr_resource_upstream(mr), &used));
  assert_int_equal(used, 100);
  assert_ok(mr_deallocate(mr, a, 100, 0, NULL));
  assert_ok(mr_stats_resource_get(mr, &stats));
  assert_int_equal(stats.current_bytes, 0);
  mr_resource_release(mr);
}

/* Resources decide at creation: one made with the checks off stays off. */
static void test_decided_at_creation(void **state) {
  set_debug(NULL);
  faulty_upstream u = faulty_new(false);
  mr_resource *mr = NULL;
  assert_ok(make_fixed(u.mr, &mr));
  set_debug("1");
  void *a = NULL;
  assert_ok(mr_allocate(mr, 100, 0, STREAM_A, &a));
  assert_ok(mr_deallocate(mr, a, 200, 0, STREAM_A)); /* not checked: within the block */
  release_and_check_upstream(mr, &u);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_variable_read_once),
      cmocka_unit_test(test_debug_refuses_wrong_sizes),
      cmocka_unit_test(test_debug_failed_free_keeps_the_record),
      cmocka_unit_test(test_debug_record_out_of_memory),
      cmocka_unit_test(test_debug_threads),
      cmocka_unit_test(test_without_debug),
      cmocka_unit_test(test_debug_through_a_chain),
      cmocka_unit_test(test_decided_at_creation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
