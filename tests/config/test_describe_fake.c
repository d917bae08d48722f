/*
 * test_describe_fake.c: every description parses back, over the fake
 * driver's devices: the driver names, owned pools with every parameter,
 * sizes in %, adaptors over all of them, the sync fallbacks where a device
 * has no pools, and every tag of a context on every device. For each, the
 * text mr_resource_describe gives resolves again, on the same device, to
 * a resource with exactly the same description.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_test.h"

static void assert_parses_back(const char *spec, int device) {
  mr_resource *mr = NULL, *again = NULL;
  mr_status st = mr_resource_from_spec(spec, device, &mr);
  if (st != MR_OK) {
    print_error("'%s' on device %d does not resolve: %s\n", spec, device, mr_last_error());
    fail();
  }
  const char *description = mr_resource_describe(mr);
  st = mr_resource_from_spec(description, device, &again);
  if (st != MR_OK) {
    print_error("the description of '%s' does not resolve back:\n%s\n%s\n", spec, description,
                mr_last_error());
    fail();
  }
  if (strcmp(mr_resource_describe(again), description) != 0) {
    print_error("'%s' describes as\n  %s\nwhich describes as\n  %s\n", spec, description,
                mr_resource_describe(again));
    fail();
  }
  mr_resource_release(again);
  mr_resource_release(mr);
}

static const char *const specs[] = {
    "device",
    "device_default",
    "pinned",
    "managed",
    "sync_device",
    "sync_pinned",
    "sync_managed",
    "sync_device(reason=\"a note, (with) # all=sorts\")",
    "pool",
    "pool(kind=device)",
    "pool(kind=pinned, access=none)",
    "pool(kind=managed, release=0, max=1GiB, initial=64MiB)",
    "pool(release=max, max=0)",
    "pool(release=1%, max=50%)",
    "limit(device, bytes=50%)",
    "limit(pinned, bytes=100%)",
    "arena(managed, chunk=0.5%)",
    "retry(cache(device))",
    "retry(device, attempts=1)",
    "cache(pool(kind=pinned), max=1GiB)",
    "fixed(managed, block=1M, count=2)",
    "bin(sync_pinned, max=4K, count=2)",
    "stats(track(align(device_default, alignment=64K)))",
    "arena(retry(limit(pool(max=2GiB), bytes=1GiB), attempts=5), chunk=8MiB)",
};

static void test_driver_resources_parse_back(void **state) {
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) assert_parses_back(specs[i], 1);
}

/* The sync fallbacks carry their reason as spec text. */
static void test_fallbacks_parse_back(void **state) {
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  static const char *const fallbacks[] = {
      "device",
      "device_default",
      "pinned",
      "managed",
      "arena(device, chunk=1MiB)",
      "retry(cache(pinned))",
      "stats(limit(managed, bytes=10%))",
  };
  for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
    assert_parses_back(fallbacks[i], 3);
  fake_cuda_fail("cuMemGetDefaultMemPool", 1, 1, CUDA_ERROR_NOT_SUPPORTED);
  assert_parses_back("stats(device_default)", 0);
  fake_cuda_fail("cuMemGetDefaultMemPool", 0, 0, CUDA_SUCCESS);
}

/* A context's resources (default retries included) on every device. */
static void test_context_resources_parse_back(void **state) {
  enum { TAGS = sizeof specs / sizeof specs[0] };
  mr_tag tags[TAGS];
  char names[TAGS][8];
  for (int t = 0; t < TAGS; t++) {
    snprintf(names[t], sizeof names[t], "t%d", t);
    tags[t] = (mr_tag){names[t], specs[t]};
  }
  mr_context_desc desc = {.size = sizeof(mr_context_desc),
                          .library = "lib",
                          .tags = tags,
                          .tag_count = TAGS,
                          .overrides = "t0=arena(@t1, chunk=1%)\nt2@1=stats(@t3)"};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  for (int t = 0; t < TAGS; t++)
    for (int d = 0; d < mr_context_device_count(ctx); d++)
      assert_parses_back(mr_resource_describe(mr_context_get_mr_on(ctx, t, d)), d);
  mr_context_destroy(ctx);
}

/* "stats(" x levels + inner + ")" x levels. */
static char *nest(int levels, const char *inner) {
  char *text = malloc((size_t)levels * 7 + strlen(inner) + 1);
  assert_non_null(text);
  size_t k = 0;
  for (int i = 0; i < levels; i++) k += (size_t)sprintf(text + k, "stats(");
  k += (size_t)sprintf(text + k, "%s", inner);
  for (int i = 0; i < levels; i++) text[k++] = ')';
  text[k] = '\0';
  return text;
}

/* What a spec turns into may nest one level deeper than it was written: a
 * context's retry on top of a device chain, a sync fallback's reason at
 * the bottom. At the nesting limit that would not read back, so it is
 * refused; one level less is fine. */
static void test_deepest_descriptions(void **state) {
  char *deepest = nest(31, "device"), *less = nest(30, "device");
  mr_tag tags[] = {{"t", less}};
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc), .library = "lib", .tags = tags, .tag_count = 1};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  const char *description = mr_resource_describe(mr_context_get_mr_on(ctx, 0, 1));
  assert_int_equal(strncmp(description, "retry(stats(", 12), 0);
  assert_parses_back(description, 1);
  mr_context_destroy(ctx);
  tags[0].default_spec = deepest;
  ctx = (mr_context *)1;
  assert_status(mr_context_create(&desc, &ctx), MR_ERR_CONFIG);
  assert_null(ctx);
  assert_error_contains("default spec of lib tag 't', column 1: with the retry a context puts on "
                        "device chains, the resource would be described nested deeper than 32 "
                        "levels");

  assert_int_equal(fake_cuda_set_attribute(3, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 0),
                   CUDA_SUCCESS);
  assert_parses_back(less, 3);
  mr_resource *mr = (mr_resource *)1;
  assert_status(mr_resource_from_spec(deepest, 3, &mr), MR_ERR_CONFIG);
  assert_null(mr);
  assert_error_contains("spec, column 1: the resource would be described nested deeper than 32 "
                        "levels, more than spec text may");
  free(deepest);
  free(less);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_driver_resources_parse_back, fake_test_setup),
      cmocka_unit_test_setup(test_fallbacks_parse_back, fake_test_setup),
      cmocka_unit_test_setup(test_context_resources_parse_back, fake_test_setup),
      cmocka_unit_test_setup(test_deepest_descriptions, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
