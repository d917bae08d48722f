/*
 * test_reclaim_gpu.c: the issue-35 table on a real GPU. Library A (its own
 * context, a tag of device, cache, arena, fixed or stats(cache)) takes 70%
 * of the device's free memory in 1 GiB blocks and frees it; library B
 * (another context: a `device` tag, or `sync_device`, which allocates with
 * cuMemAlloc as PyTorch's own allocator and cuBLAS do) then asks for 50%:
 * it must get it, through the process-wide reclaim. With A's memory live,
 * B fails cleanly and A's bytes are intact. Fills the device, so it runs
 * alone. Skips (77) without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"

#define GiB ((size_t)1 << 30)
#define MAX_BLOCKS 1024

static size_t a_blocks, b_bytes;

static mr_context *create(const char *library, const char *spec, mr_tag *tag) {
  *tag = (mr_tag){"work", spec};
  mr_context_desc desc = {.size = sizeof desc, .library = library, .tags = tag, .tag_count = 1};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

static void row(const char *a_spec, const char *b_spec) {
  char fixed_spec[96];
  if (strcmp(a_spec, "fixed") == 0) {
    snprintf(fixed_spec, sizeof fixed_spec, "fixed(device, block=1GiB, count=%zu)", a_blocks);
    a_spec = fixed_spec;
  }
  fprintf(stderr, "A = %s, B = %s: %zu GiB freed, B asks %zu GiB\n", a_spec, b_spec, a_blocks,
          b_bytes / GiB);
  mr_tag ta, tb;
  mr_context *a = create("liba", a_spec, &ta);
  mr_context *b = create("libb", b_spec, &tb);
  mr_resource *amr = mr_context_get_mr_on(a, 0, 0);
  mr_resource *bmr = mr_context_get_mr_on(b, 0, 0);
  void *blocks[MAX_BLOCKS];
  for (size_t i = 0; i < a_blocks; i++) {
    assert_ok(mr_allocate(amr, GiB, 0, NULL, &blocks[i]));
    gpu_fill(blocks[i], 1 << 20, (unsigned char)(i + 1), NULL);
  }
  void *p = NULL;
  assert_status(mr_allocate(bmr, b_bytes, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);
  for (size_t i = 0; i < a_blocks; i++)
    assert_true(gpu_all_equal(blocks[i], 1 << 20, (unsigned char)(i + 1), NULL));
  for (size_t i = 0; i < a_blocks; i++) assert_ok(mr_deallocate(amr, blocks[i], GiB, 0, NULL));
  assert_ok(mr_allocate(bmr, b_bytes, 0, NULL, &p));
  gpu_fill(p, 1 << 20, 0x5a, NULL);
  assert_true(gpu_all_equal(p, 1 << 20, 0x5a, NULL));
  assert_ok(mr_deallocate(bmr, p, b_bytes, 0, NULL));
  mr_context_destroy(b);
  mr_context_destroy(a);
  /* The next row starts from an empty device. */
  assert_ok(mr_release_idle(0, 0, NULL));
}

static void test_device(void **state) { row("device", "device"); }
static void test_device_cuda_malloc(void **state) { row("device", "sync_device"); }
static void test_cache(void **state) { row("cache(device)", "device"); }
static void test_cache_cuda_malloc(void **state) { row("cache(device)", "sync_device"); }
static void test_arena(void **state) { row("arena(device, chunk=1GiB)", "device"); }
static void test_arena_cuda_malloc(void **state) {
  row("arena(device, chunk=1GiB)", "sync_device");
}
static void test_fixed(void **state) { row("fixed", "device"); }
static void test_stats_cache(void **state) { row("stats(cache(device))", "device"); }

/* Memory held outside mrctx (mrctx/reclaim.h): another allocator keeps 70%
 * in live cuMemAlloc blocks (a sync_device resource, whose live blocks no
 * mrctx reclaim takes); B's 50% succeeds only through its reclaimer. */
typedef struct holder {
  mr_resource *mr;
  void *blocks[MAX_BLOCKS];
  size_t count, calls;
} holder;

static size_t holder_reclaim(void *user, int device, size_t bytes) {
  holder *h = user;
  (void)device, (void)bytes;
  h->calls++;
  size_t freed = 0;
  for (; h->count > 0; h->count--)
    if (mr_deallocate_sync(h->mr, h->blocks[h->count - 1], GiB, 0) == MR_OK) freed += GiB;
  return freed;
}

static void test_external_reclaimer(void **state) {
  holder h = {0};
  assert_ok(mr_resource_from_spec("sync_device", 0, &h.mr));
  for (; h.count < a_blocks; h.count++)
    assert_ok(mr_allocate_sync(h.mr, GiB, 0, &h.blocks[h.count]));
  mr_tag tb;
  mr_context *b = create("libb", "device", &tb);
  mr_resource *bmr = mr_context_get_mr_on(b, 0, 0);
  void *p = NULL;
  assert_status(mr_allocate(bmr, b_bytes, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "holder", &r));
  assert_ok(mr_allocate(bmr, b_bytes, 0, NULL, &p));
  gpu_fill(p, 1 << 20, 0x5a, NULL);
  assert_true(gpu_all_equal(p, 1 << 20, 0x5a, NULL));
  assert_int_equal(h.calls, 1);
  mr_reclaimer_stats stats = {.size = sizeof stats};
  assert_ok(mr_reclaimer_get_stats(r, &stats));
  fprintf(stderr, "external reclaimer: %llu calls, %llu GiB, %.3f ms\n",
          (unsigned long long)stats.calls, (unsigned long long)(stats.bytes / GiB),
          (double)stats.nanoseconds / 1e6);
  assert_int_equal(stats.bytes, a_blocks * GiB);
  assert_ok(mr_deallocate(bmr, p, b_bytes, 0, NULL));
  assert_ok(mr_reclaimer_unregister(r));
  mr_context_destroy(b);
  mr_resource_release(h.mr);
  assert_ok(mr_release_idle(0, 0, NULL));
}

int main(void) {
  GPU_TEST_REQUIRE();
  uint64_t free_bytes = 0, total = 0;
  if (mr_device_get_memory(0, &free_bytes, &total) != MR_OK) {
    fprintf(stderr, "mr_device_get_memory: %s\n", mr_last_error());
    return 1;
  }
  a_blocks = (size_t)(free_bytes / 10 * 7 / GiB);
  if (a_blocks > MAX_BLOCKS) a_blocks = MAX_BLOCKS;
  b_bytes = (size_t)(free_bytes / 2) & ~(GiB - 1);
  if (a_blocks < 2) {
    fprintf(stderr, "only %llu bytes free on device 0\n", (unsigned long long)free_bytes);
    return GPU_TEST_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_device),
      cmocka_unit_test(test_device_cuda_malloc),
      cmocka_unit_test(test_cache),
      cmocka_unit_test(test_cache_cuda_malloc),
      cmocka_unit_test(test_arena),
      cmocka_unit_test(test_arena_cuda_malloc),
      cmocka_unit_test(test_fixed),
      cmocka_unit_test(test_stats_cache),
      cmocka_unit_test(test_external_reclaimer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
