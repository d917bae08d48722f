/*
 * test_cupy_alloc_fake.c: mrctx.cupy's C pair (python/mrctx/_cupy_alloc.c,
 * compiled in) over the fake driver, called as CuPy's CFunctionAllocator
 * calls it, in every build (the sanitizer builds included: the Python tests
 * cannot run there).
 *  - The map of live blocks through growth and removals in any order: each
 *    block is freed at its size on its stream, a pointer that is no block is
 *    counted, never freed.
 *  - Blocks outlive the owner's reference: the binding (and its references
 *    to the resources) goes with the last block.
 *  - Threads, each with its own current stream, allocating and freeing.
 *  - Failures: a device the binding lacks, CuPy's stream function failing,
 *    out of memory, bad binding arguments.
 * CuPy's current stream is a thread-local here, read through the function
 * the binding is given, as cupy.cuda.stream's get_current_stream_ptr.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fake_test.h"

typedef struct mrctx_cupy_binding mrctx_cupy_binding;
mr_status mrctx_cupy_bind(const char *name, mr_resource *const *resources, int device_count,
                          void *current_stream, mrctx_cupy_binding **out);
void mrctx_cupy_unbind(mrctx_cupy_binding *b);
void *mrctx_cupy_malloc(void *param, size_t size, int device);
void mrctx_cupy_free(void *param, void *ptr, int device);
int mrctx_cupy_last_status(void);
long mrctx_cupy_live_blocks(mrctx_cupy_binding *b);
void *mrctx_cupy_block_stream(mrctx_cupy_binding *b, void *ptr);
unsigned long long mrctx_cupy_failed_frees(void);
void mrctx_cupy_last_free_error(char *buf, size_t cap);

static _Thread_local intptr_t current_stream;
static intptr_t get_current_stream(void) { return current_stream; }
/* A function's address as Python hands it over (an integer). */
#define ADDRESS(f) ((void *)(uintptr_t)(f))

static mrctx_cupy_binding *bind_spec(const char *spec, mr_resource **mr) {
  assert_int_equal(mr_resource_from_spec(spec, 0, mr), MR_OK);
  mrctx_cupy_binding *b = NULL;
  assert_int_equal(mrctx_cupy_bind("test 'cupy'", mr, 1, ADDRESS(get_current_stream), &b), MR_OK);
  return b;
}

static size_t size_of(unsigned i) { return 256 + (size_t)(i * 7919u % 64u) * 4096; }

static void test_map_growth_and_removal(void **state) {
  (void)state;
  enum { BLOCKS = 2000 };
  mr_resource *mr;
  mrctx_cupy_binding *b = bind_spec("stats(device)", &mr);
  CUstream side = fake_new_stream();
  unsigned long long failed = mrctx_cupy_failed_frees();
  static void *ptrs[BLOCKS];
  for (unsigned i = 0; i < BLOCKS; i++) {
    current_stream = (i % 2) ? (intptr_t)side : 0;
    ptrs[i] = mrctx_cupy_malloc(b, size_of(i), 0);
    assert_non_null(ptrs[i]);
    assert_int_equal(mrctx_cupy_last_status(), MR_OK);
  }
  assert_int_equal(mrctx_cupy_live_blocks(b), BLOCKS);
  mr_stats stats;
  mr_stats_init(&stats);
  assert_int_equal(mr_stats_resource_get(mr, &stats), MR_OK);
  size_t total = 0;
  for (unsigned i = 0; i < BLOCKS; i++) total += size_of(i);
  assert_int_equal(stats.current_bytes, total);
  /* A pointer inside a block, and one of no block: counted, not freed. */
  mrctx_cupy_free(b, (char *)ptrs[0] + 64, 0);
  assert_int_equal(mrctx_cupy_failed_frees(), failed + 1);
  char why[512];
  mrctx_cupy_last_free_error(why, sizeof why);
  assert_non_null(strstr(why, "not a live block of test 'cupy'"));
  /* Freed in a scattered order: each with its own size and stream. */
  for (unsigned k = 0; k < BLOCKS; k++) {
    unsigned i = (k * 1237u) % BLOCKS; /* 1237 is prime to 2000: a permutation */
    void *expected = (i % 2) ? (void *)side : NULL;
    assert_ptr_equal(mrctx_cupy_block_stream(b, ptrs[i]), expected);
    mrctx_cupy_free(b, ptrs[i], 0);
    assert_null(mrctx_cupy_block_stream(b, ptrs[i]));
  }
  assert_int_equal(mrctx_cupy_live_blocks(b), 0);
  assert_int_equal(mrctx_cupy_failed_frees(), failed + 1);
  mrctx_cupy_free(b, ptrs[5], 0); /* twice: counted */
  assert_int_equal(mrctx_cupy_failed_frees(), failed + 2);
  mr_stats_init(&stats);
  assert_int_equal(mr_stats_resource_get(mr, &stats), MR_OK);
  assert_int_equal(stats.current_bytes, 0);
  mrctx_cupy_unbind(b);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamSynchronize(side), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuStreamDestroy(side), CUDA_SUCCESS);
}

static void test_blocks_outlive_the_owner(void **state) {
  (void)state;
  mr_resource *mr;
  mrctx_cupy_binding *b = bind_spec("cache(device)", &mr);
  current_stream = 0;
  void *p = mrctx_cupy_malloc(b, 1 << 20, 0);
  void *q = mrctx_cupy_malloc(b, 4096, 0);
  assert_non_null(p);
  assert_non_null(q);
  mrctx_cupy_unbind(b); /* CuPy dropped the allocator; the blocks keep the binding */
  mr_resource_release(mr);
  unsigned long long failed = mrctx_cupy_failed_frees();
  mrctx_cupy_free(b, q, 0);
  mrctx_cupy_free(b, p, 0); /* the last: the binding and its resource go */
  assert_int_equal(mrctx_cupy_failed_frees(), failed);
  assert_int_equal(mr_release_idle(-1, SIZE_MAX, NULL), MR_OK);
}

typedef struct churn {
  mrctx_cupy_binding *b;
  CUstream stream;
  unsigned seed;
  char problem[256];
} churn;

static void churn_thread(void *arg) {
  churn *c = arg;
  current_stream = (intptr_t)c->stream;
  void *held[64] = {0};
  unsigned x = c->seed;
  for (int op = 0; op < 4000 && c->problem[0] == 0; op++) {
    x = x * 1103515245u + 12345u;
    unsigned slot = (x >> 16) % 64;
    if (held[slot] != NULL) {
      if (mrctx_cupy_block_stream(c->b, held[slot]) != (void *)c->stream)
        snprintf(c->problem, sizeof c->problem, "block %p lost its stream", held[slot]);
      mrctx_cupy_free(c->b, held[slot], 0);
      held[slot] = NULL;
    } else {
      held[slot] = mrctx_cupy_malloc(c->b, size_of(x >> 8), 0);
      if (held[slot] == NULL)
        snprintf(c->problem, sizeof c->problem, "malloc failed: %s", mr_last_error());
    }
  }
  for (int i = 0; i < 64; i++) mrctx_cupy_free(c->b, held[i], 0);
}

static void *churn_main(void *arg) {
  fake_bind(0);
  churn_thread(arg);
  return NULL;
}

static void test_threads_with_their_own_streams(void **state) {
  (void)state;
  mr_resource *mr;
  mrctx_cupy_binding *b = bind_spec("cache(device)", &mr);
  unsigned long long failed = mrctx_cupy_failed_frees();
  enum { THREADS = 4 };
  churn c[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    c[i] = (churn){.b = b, .stream = i % 2 ? fake_new_stream() : NULL, .seed = 17u + (unsigned)i};
    assert_int_equal(pthread_create(&t[i], NULL, churn_main, &c[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < THREADS; i++) {
    if (c[i].problem[0] != 0) fail_msg("thread %d: %s", i, c[i].problem);
  }
  assert_int_equal(mrctx_cupy_live_blocks(b), 0);
  assert_int_equal(mrctx_cupy_failed_frees(), failed);
  mrctx_cupy_unbind(b);
  mr_resource_release(mr);
  assert_int_equal(mr_release_idle(-1, SIZE_MAX, NULL), MR_OK);
  for (int i = 0; i < THREADS; i++) {
    if (c[i].stream == NULL) continue;
    assert_int_equal(fake_cu()->cuStreamSynchronize(c[i].stream), CUDA_SUCCESS);
    assert_int_equal(fake_cu()->cuStreamDestroy(c[i].stream), CUDA_SUCCESS);
  }
}

static intptr_t failing_stream(void) { return -1; }

static void test_failures(void **state) {
  (void)state;
  mr_resource *mr;
  mrctx_cupy_binding *b = bind_spec("limit(device, bytes=1MiB)", &mr);
  current_stream = 0;
  assert_null(mrctx_cupy_malloc(b, 4096, 1)); /* the binding has device 0 only */
  assert_int_equal(mrctx_cupy_last_status(), MR_ERR_NO_DEVICE);
  assert_non_null(strstr(mr_last_error(), "test 'cupy' has no device 1"));
  assert_null(mrctx_cupy_malloc(b, 2 << 20, 0));
  assert_int_equal(mrctx_cupy_last_status(), MR_ERR_OUT_OF_MEMORY);
  assert_non_null(strstr(mr_last_error(), "mrctx.cupy: out of memory allocating 2097152 bytes on "
                                          "device 0 (test 'cupy'): "));
  assert_non_null(strstr(mr_last_error(), "limit("));
  void *p = mrctx_cupy_malloc(b, 4096, 0);
  assert_non_null(p);
  assert_int_equal(mrctx_cupy_last_status(), MR_OK);
  assert_null(mrctx_cupy_malloc(NULL, 4096, 0));
  assert_int_equal(mrctx_cupy_last_status(), MR_ERR_INVALID_ARGUMENT);
  mrctx_cupy_free(b, p, 0);
  assert_int_equal(mrctx_cupy_live_blocks(b), 0);
  mrctx_cupy_unbind(b);

  mrctx_cupy_binding *bad = NULL;
  assert_int_equal(mrctx_cupy_bind("x", &mr, 1, ADDRESS(failing_stream), &bad), MR_OK);
  assert_null(mrctx_cupy_malloc(bad, 4096, 0));
  assert_int_equal(mrctx_cupy_last_status(), MR_ERR_STATE);
  assert_non_null(strstr(mr_last_error(), "CuPy could not say its current stream"));
  mrctx_cupy_unbind(bad);
  mrctx_cupy_unbind(NULL);
  mr_resource *none = NULL;
  assert_int_equal(mrctx_cupy_bind("x", &none, 1, ADDRESS(get_current_stream), &bad),
                   MR_ERR_INVALID_ARGUMENT);
  assert_null(bad);
  assert_int_equal(mrctx_cupy_bind("x", &mr, 0, ADDRESS(get_current_stream), &bad),
                   MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mrctx_cupy_bind("x", &mr, 1, NULL, &bad), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mrctx_cupy_bind("x", &mr, 1, ADDRESS(get_current_stream), NULL),
                   MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mrctx_cupy_live_blocks(NULL), -1);
  mr_resource_release(mr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_map_growth_and_removal, fake_test_setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_blocks_outlive_the_owner, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_threads_with_their_own_streams, fake_test_setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_failures, fake_test_setup, fake_teardown),
  };
  return cmocka_run_group_tests(tests, fake_group_setup, NULL);
}
