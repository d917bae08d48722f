/*
 * test_nvtx.c (unit): the NVTX hooks of arena, fixed, bin and cache, and a
 * context's names, seen by a test tool (nvtx_injection.c).
 *
 *   test_nvtx attached   NVTX_INJECTION64_PATH names the test tool: every
 *                        sub-allocation is a region of the bytes asked for
 *                        inside a registered heap, named library:tag
 *                        through a context; everything is unregistered by
 *                        the end, and the tool saw nothing it would refuse
 *   test_nvtx detached   no tool: the hooks are off and the tool never hears
 *                        a thing
 *   test_nvtx pools      attached, over the fake driver: memory from a
 *                        driver pool is announced to no heap or region
 *                        (compute-sanitizer refuses heaps there) and named
 *                        only where a pool allocation starts; memory of
 *                        cuMemAlloc (sync_device) gets heaps and regions
 */
#include <stdlib.h>
#include <string.h>

#include "core/nvtx.h"
#include "nvtx_injection.h"
#include "test_util.h"

static nvtx_injection_counts seen(void) {
  nvtx_injection_counts c;
  nvtx_injection_get(&c);
  if (c.problems != 0)
    fail_msg("the tool saw %ld problems, the last: %s", c.problems, c.last_problem);
  return c;
}

static mr_resource *from_spec(const char *spec) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec(spec, 0, &mr));
  return mr;
}

static void *alloc(mr_resource *mr, size_t bytes) {
  void *p = NULL;
  assert_ok(mr_allocate(mr, bytes, 0, NULL, &p));
  return p;
}

static void test_arena(void **state) {
  nvtx_injection_counts before = seen();
  mr_resource *mr = from_spec("arena(host, chunk=1MiB)");
  void *a = alloc(mr, 1000), *b = alloc(mr, 3000);
  nvtx_injection_counts c = seen();
  assert_int_equal(c.heap_registers - before.heap_registers, 1); /* one chunk */
  assert_string_equal(c.last_heap, "arena(host, chunk=1MiB)");
  assert_int_equal(c.region_registers - before.region_registers, 2);
  assert_int_equal(c.region_bytes - before.region_bytes, 4000); /* as asked, not rounded */
  assert_int_equal(c.live_regions, 2);
  void *big = alloc(mr, 2 << 20); /* past a chunk: straight upstream, no region */
  assert_int_equal(seen().live_regions, 2);
  assert_ok(mr_deallocate(mr, a, 1000, 0, NULL));
  assert_ok(mr_deallocate(mr, b, 3000, 0, NULL));
  assert_ok(mr_deallocate(mr, big, 2 << 20, 0, NULL));
  c = seen();
  assert_int_equal(c.live_regions, 0);
  assert_int_equal(c.live_heaps, 1);
  assert_ok(mr_resource_trim(mr)); /* the empty chunk goes back */
  assert_int_equal(seen().live_heaps, 0);
  a = alloc(mr, 100);
  mr_resource_release(mr); /* destroy returns the chunk: its heap ends */
  c = seen();
  assert_int_equal(c.live_heaps, 0);
  assert_int_equal(c.live_regions, 0);
  (void)a;
}

static void test_fixed_and_bin(void **state) {
  nvtx_injection_counts before = seen();
  mr_resource *mr = from_spec("fixed(host, block=4KiB, count=2)");
  assert_int_equal(seen().heap_registers - before.heap_registers, 1); /* the first slab */
  void *p[3];
  for (int i = 0; i < 3; i++) p[i] = alloc(mr, 100 * (size_t)(i + 1)); /* the third grows */
  nvtx_injection_counts c = seen();
  assert_int_equal(c.heap_registers - before.heap_registers, 2);
  assert_int_equal(c.region_bytes - before.region_bytes, 600);
  assert_int_equal(c.live_regions, 3);
  for (int i = 0; i < 3; i++) assert_ok(mr_deallocate(mr, p[i], 100 * (size_t)(i + 1), 0, NULL));
  assert_int_equal(seen().live_regions, 0);
  assert_ok(mr_resource_trim(mr));
  assert_int_equal(seen().live_heaps, 0);
  mr_resource_release(mr);

  mr = from_spec("bin(host, min=256B, max=1KiB, count=2)"); /* three classes, a slab each */
  assert_int_equal(seen().live_heaps, 3);
  void *q = alloc(mr, 700);
  assert_int_equal(seen().live_regions, 1);
  assert_ok(mr_deallocate(mr, q, 700, 0, NULL));
  mr_resource_release(mr);
  c = seen();
  assert_int_equal(c.live_heaps, 0);
  assert_int_equal(c.live_regions, 0);
}

static void test_cache(void **state) {
  nvtx_injection_counts before = seen();
  mr_resource *mr = from_spec("cache(host)");
  void *p = alloc(mr, 1000); /* a miss: a segment, one region in it */
  nvtx_injection_counts c = seen();
  assert_int_equal(c.heap_registers - before.heap_registers, 1);
  assert_int_equal(c.region_bytes - before.region_bytes, 1000);
  assert_string_equal(c.last_heap, "cache(host)");
  assert_ok(mr_deallocate(mr, p, 1000, 0, NULL));
  assert_int_equal(seen().live_regions, before.live_regions); /* freed: no region */
  assert_int_equal(seen().live_heaps, before.live_heaps + 1); /* the segment stays */
  p = alloc(mr, 900);                                         /* a hit: a region again */
  c = seen();
  assert_int_equal(c.heap_registers - before.heap_registers, 1);
  assert_int_equal(c.region_bytes - before.region_bytes, 1900);
  assert_ok(mr_deallocate(mr, p, 900, 0, NULL));
  void *big = alloc(mr, 100 << 20); /* a segment of its own */
  assert_int_equal(seen().live_heaps, before.live_heaps + 2);
  assert_ok(mr_deallocate(mr, big, 100 << 20, 0, NULL));
  mr_resource_release(mr);
  c = seen();
  assert_int_equal(c.live_heaps, 0);
  assert_int_equal(c.live_regions, 0);
}

static void test_context_names(void **state) {
  static const mr_tag tags[] = {{"temp", "arena(host, chunk=1MiB)"}, {"plain", "host"}};
  mr_context_desc desc = {.size = sizeof desc, .library = "mylib", .tags = tags, .tag_count = 2};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  nvtx_injection_counts before = seen();
  void *p = alloc(mr_context_get_mr_on(ctx, 0, 0), 64);
  nvtx_injection_counts c = seen();
  assert_int_equal(c.names - before.names, 1);
  assert_string_equal(c.last_name, "mylib:temp");
  void *q = alloc(mr_context_get_mr_on(ctx, 1, 0), 64);
  assert_string_equal(seen().last_name, "mylib:plain");
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 0, 0), p, 64, 0, NULL));
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 1, 0), q, 64, 0, NULL));
  /* stats(UP) counts but names nothing: it belongs to no context. */
  mr_resource *stats = from_spec("stats(host)");
  before = seen();
  p = alloc(stats, 64);
  assert_int_equal(seen().names, before.names);
  assert_ok(mr_deallocate(stats, p, 64, 0, NULL));
  mr_resource_release(stats);
  mr_context_destroy(ctx);
  c = seen();
  assert_int_equal(c.live_heaps, 0);
  assert_int_equal(c.live_regions, 0);
}

/* With the tool attached: everything above. */
static void test_attached(void **state) {
  mr_resource *mr = from_spec("arena(host, chunk=1MiB)");
  assert_true(mri_nvtx_on());
  assert_int_equal(seen().initialized, 0); /* NVTX starts at the first hook */
  void *p = alloc(mr, 64);
  assert_ok(mr_deallocate(mr, p, 64, 0, NULL));
  mr_resource_release(mr);
  nvtx_injection_counts c = seen();
  assert_int_equal(c.initialized, 1);
  assert_string_equal(c.domain, "mrctx");
}

/* Without a tool: the hooks are off, and the tool was never loaded. */
static void test_detached(void **state) {
  mr_resource *mr = from_spec("arena(host, chunk=1MiB)");
  assert_false(mri_nvtx_on());
  void *p = alloc(mr, 1000);
  assert_ok(mr_deallocate(mr, p, 1000, 0, NULL));
  mr_resource_release(mr);
  nvtx_injection_counts c = seen();
  assert_int_equal(c.initialized, 0);
  assert_int_equal(c.heap_registers + c.region_registers + c.names, 0);
}

/* Over the fake driver's pools: nothing the tool would refuse is sent. */
static void test_pool_memory(void **state) {
  nvtx_injection_counts before = seen();
  mr_resource *arena = from_spec("arena(device, chunk=1MiB)");
  void *a = alloc(arena, 1000), *b = alloc(arena, 3000);
  mr_resource *cache = from_spec("cache(device)");
  void *c = alloc(cache, 1000);
  nvtx_injection_counts now = seen();
  assert_int_equal(now.heap_registers, before.heap_registers);
  assert_int_equal(now.region_registers, before.region_registers);
  assert_ok(mr_deallocate(arena, a, 1000, 0, NULL));
  assert_ok(mr_deallocate(arena, b, 3000, 0, NULL));
  assert_ok(mr_deallocate(cache, c, 1000, 0, NULL));
  mr_resource_release(arena);
  mr_resource_release(cache);
  now = seen();
  assert_int_equal(now.heap_unregisters, before.heap_unregisters);
  assert_int_equal(now.region_unregisters, before.region_unregisters);

  /* cuMemAlloc memory: the tool takes heaps there. */
  arena = from_spec("arena(sync_device, chunk=1MiB)");
  a = alloc(arena, 1000);
  now = seen();
  assert_int_equal(now.heap_registers - before.heap_registers, 1);
  assert_int_equal(now.region_registers - before.region_registers, 1);
  assert_ok(mr_deallocate(arena, a, 1000, 0, NULL));
  mr_resource_release(arena);
  assert_int_equal(seen().live_heaps, 0);

  /* Names: a whole pool allocation is named; a piece of an arena chunk in
   * pool memory is not (the tool knows no region there). */
  static const mr_tag tags[] = {{"temp", "arena(device, chunk=1MiB)"}, {"result", "device"}};
  mr_context_desc desc = {.size = sizeof desc, .library = "mylib", .tags = tags, .tag_count = 2};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  before = seen();
  void *t = alloc(mr_context_get_mr_on(ctx, 0, 0), 64);
  void *t2 = alloc(mr_context_get_mr_on(ctx, 0, 0), 64); /* inside the chunk */
  assert_int_equal(seen().names - before.names, 1);      /* the first starts the chunk */
  void *r = alloc(mr_context_get_mr_on(ctx, 1, 0), 64);
  now = seen();
  assert_int_equal(now.names - before.names, 2);
  assert_string_equal(now.last_name, "mylib:result");
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 0, 0), t, 64, 0, NULL));
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 0, 0), t2, 64, 0, NULL));
  assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, 1, 0), r, 64, 0, NULL));
  mr_context_destroy(ctx);
  now = seen();
  assert_int_equal(now.live_heaps, 0);
  assert_int_equal(now.live_regions, 0);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "attached") == 0) {
    if (getenv("NVTX_INJECTION64_PATH") == NULL) {
      print_error("attached: NVTX_INJECTION64_PATH is not set\n");
      return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attached),      cmocka_unit_test(test_arena),
        cmocka_unit_test(test_fixed_and_bin), cmocka_unit_test(test_cache),
        cmocka_unit_test(test_context_names),
    };
    return cmocka_run_group_tests_name("nvtx attached", tests, NULL, NULL);
  }
  if (argc == 2 && strcmp(argv[1], "pools") == 0) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pool_memory)};
    return cmocka_run_group_tests_name("nvtx over driver pools", tests, NULL, NULL);
  }
  if (argc == 2 && strcmp(argv[1], "detached") == 0) {
    unsetenv("NVTX_INJECTION64_PATH");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_detached)};
    return cmocka_run_group_tests_name("nvtx detached", tests, NULL, NULL);
  }
  print_error("usage: test_nvtx attached|detached|pools\n");
  return 2;
}
