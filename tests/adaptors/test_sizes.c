/*
 * test_sizes.c: the size contract (assert_size_contract, adaptor_test.h)
 * for every resource over pageable host memory, each adaptor alone and in
 * the chains a context builds: sizes whose rounding would pass SIZE_MAX are
 * refused before anything changes, and the resource goes on handing out
 * honest blocks that do not overlap. Then the cache's own refusals, over an
 * upstream that would hand such sizes out (vspace), and a free with such a
 * size. test_sizes_fake.c runs the same contract over the driver's
 * resources.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "adaptor_test.h"

static char log_dir[] = "/tmp/mrctx-sizes-XXXXXX";
static char log_path[sizeof log_dir + 16];

/* '@' in a spec stands for the log file. */
static const char *const specs[] = {
    "host",
    "cache(host)",
    "cache(host, max=64MiB)",
    "arena(host, chunk=1MiB)",
    "fixed(host, block=64KiB, count=4)",
    "bin(host, min=256B, max=64KiB, count=4)",
    "align(host, alignment=4KiB)",
    "limit(host, bytes=1GiB)",
    "stats(host)",
    "track(host)",
    "log(host, file=@)",
    "retry(host)",
    "retry(cache(host))",
    "stats(track(cache(host)))",
    "stats(retry(arena(host, chunk=1MiB)))",
    "limit(cache(host), bytes=1GiB)",
    "align(cache(host), alignment=64KiB)",
    "cache(arena(host, chunk=4MiB))",
    "log(cache(host), file=@)",
    "bin(cache(host), min=256B, max=64KiB, count=4)",
};

static void test_contract(void **state) {
  const char *spec = *state;
  char text[256];
  const char *at = strchr(spec, '@');
  if (at != NULL)
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - spec), spec, log_path, at + 1);
  else
    snprintf(text, sizeof text, "%s", spec);
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec(text, 0, &mr));
  assert_size_contract(mr, STREAM_A);
  mr_resource_release(mr);
}

/* Over an upstream that hands out any size (vspace: addresses never
 * backed), only the cache's own check stands between a wrapped size and a
 * block: each is refused without an upstream call, naming the cache and
 * the size; the cache still serves what fits. */
static void test_cache_refuses_before_upstream(void **state) {
  mr_resource *vspace = NULL, *cache = NULL;
  assert_ok(vspace_resource_create(&vspace));
  assert_ok(mr_cache_resource_create(vspace, 0, &cache));
  static const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 511, SIZE_MAX - 1023, SIZE_MAX - 4095,
                                 SIZE_MAX - ((size_t)2 << 20) + 2};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(sizes); i++) {
    void *p = (void *)1;
    assert_status(mr_allocate(cache, sizes[i], 0, STREAM_A, &p), MR_ERR_OUT_OF_MEMORY);
    assert_null(p);
    char size[32];
    snprintf(size, sizeof size, "%zu", sizes[i]);
    assert_error_contains(size);
    assert_error_contains("cache(");
    assert_error_contains("passes SIZE_MAX");
  }
  mr_cache_stats st = {.size = sizeof st};
  assert_ok(mr_cache_resource_get_stats(cache, &st));
  assert_int_equal(st.misses, 0);
  void *p = NULL;
  assert_ok(mr_allocate(cache, (size_t)3 << 20, 0, STREAM_A, &p));
  assert_non_null(p);
  assert_ok(mr_deallocate(cache, p, (size_t)3 << 20, 0, STREAM_A));
  mr_resource_release(cache);
  mr_resource_release(vspace);
}

/* A free with a size no block of the cache can have is refused and frees
 * nothing: the block is still live and freed with its own size. */
static void test_cache_refuses_oversized_free(void **state) {
  faulty_upstream u = faulty_new(false);
  mr_resource *cache = NULL;
  assert_ok(mr_cache_resource_create(u.mr, 0, &cache));
  void *p = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, STREAM_A, &p));
  assert_status(mr_deallocate(cache, p, SIZE_MAX - 511, 0, STREAM_A), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("18446744073709551104");
  void *q = NULL;
  assert_ok(mr_allocate(cache, 4096, 0, STREAM_A, &q));
  assert_ptr_not_equal(p, q);
  assert_ok(mr_deallocate(cache, q, 4096, 0, STREAM_A));
  assert_ok(mr_deallocate(cache, p, 4096, 0, STREAM_A));
  release_and_check_upstream(cache, &u);
}

int main(void) {
  if (mkdtemp(log_dir) == NULL) return 1;
  snprintf(log_path, sizeof log_path, "%s/log.csv", log_dir);
  struct CMUnitTest tests[MRI_ARRAY_SIZE(specs) + 2];
  size_t n = 0;
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++)
    tests[n++] = (struct CMUnitTest){
        .name = specs[i], .test_func = test_contract, .initial_state = (void *)specs[i]};
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cache_refuses_before_upstream);
  tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_cache_refuses_oversized_free);
  int failed = _cmocka_run_group_tests("sizes", tests, n, NULL, NULL);
  unlink(log_path);
  rmdir(log_dir);
  return failed;
}
