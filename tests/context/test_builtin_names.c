/*
 * test_builtin_names.c (unit): a resource an application makes with
 * mr_resource_create is never taken for a built-in one because of the
 * name its ops table gives: a custom resource named "retry" does not stand
 * for the retry a context puts on device chains, and one named "cache",
 * "track" or "pool" is not read as a cache, tracker or owned pool by a
 * snapshot. (Issue 26, item 3: these were told apart by name.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* ---- the impostors: host memory under a built-in's name ------------------------------ */

static mr_status impostor_allocate(void *self, size_t bytes, size_t alignment, mr_stream stream,
                                   void **ptr) {
  (void)self;
  (void)stream;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  return posix_memalign(ptr, alignment, bytes) == 0 ? MR_OK : MR_ERR_OUT_OF_MEMORY;
}

static mr_status impostor_deallocate(void *self, void *ptr, size_t bytes, size_t alignment,
                                     mr_stream stream) {
  (void)self;
  (void)bytes;
  (void)alignment;
  (void)stream;
  free(ptr);
  return MR_OK;
}

/* "impostor(as=cache)"; the pool as "pool(impostor)", the way an owned
 * pool's description begins (what a snapshot looked for). */
static int impostor_describe(void *self, char *buf, size_t cap) {
  const char *name = self;
  if (strcmp(name, "pool") == 0) return snprintf(buf, cap, "pool(impostor)");
  return snprintf(buf, cap, "impostor(as=%s)", name);
}

#define IMPOSTOR_OPS(built_in)                                                        \
  {                                                                                   \
    .size = sizeof(mr_resource_ops), .name = built_in, .allocate = impostor_allocate, \
    .deallocate = impostor_deallocate, .describe = impostor_describe                  \
  }

static const char *const names[] = {"cache", "track", "pool", "retry", NULL};
static const mr_resource_ops impostor_ops[] = {IMPOSTOR_OPS("cache"), IMPOSTOR_OPS("track"),
                                               IMPOSTOR_OPS("pool"), IMPOSTOR_OPS("retry")};

/* impostor(as=cache|track|pool|retry, memory=host|device): device memory
 * in its properties only (it hands out host memory), so that a context
 * treats its tag as a device chain. */
static mr_status impostor_factory(void *user, const mr_spec_args *args, mr_resource **out) {
  (void)user;
  static const char *const memories[] = {"host", "device", NULL};
  int as = 0, memory = 0;
  mr_status st = mr_spec_args_choice(args, "as", names, 0, &as);
  if (st == MR_OK) st = mr_spec_args_choice(args, "memory", memories, 0, &memory);
  if (st != MR_OK) return st;
  mr_resource_props props = {.size = sizeof props,
                             .kind = memory == 1 ? MR_MEMORY_DEVICE : MR_MEMORY_HOST,
                             .device = memory == 1 ? 0 : -1,
                             .device_accessible = memory == 1,
                             .host_accessible = memory == 0};
  return mr_resource_create(&impostor_ops[as], (void *)names[as], &props, out);
}

static int register_impostor(void **state) {
  (void)state;
  assert_ok(mr_register_factory("impostor", impostor_factory, NULL));
  return 0;
}

static mr_context *create(const char *library, const mr_tag *tags, size_t count) {
  mr_context_desc desc = {
      .size = sizeof desc, .library = library, .tags = tags, .tag_count = count};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

/* ---- the tests ---------------------------------------------------------------------- */

/* A device chain without a retry of its own gets one from the context; a
 * custom resource named "retry" is not one. */
static void custom_retry_gets_the_default_retry(void **state) {
  (void)state;
  mr_tag tags[] = {{"dev", "impostor(as=retry, memory=device)"},
                   {"real", "retry(impostor(as=cache, memory=device))"}};
  mr_context *ctx = create("names_retry", tags, 2);
  const char *dev = mr_resource_describe(mr_context_get_mr_on(ctx, 0, 0));
  if (strncmp(dev, "retry(impostor(as=retry", 23) != 0)
    fail_msg("the custom 'retry' passed for the built-in: the tag is '%s'", dev);
  /* A real retry is still found: no second one on top. */
  const char *real = mr_resource_describe(mr_context_get_mr_on(ctx, 1, 0));
  if (strncmp(real, "retry(retry(", 12) == 0)
    fail_msg("a retry on top of the tag's own: '%s'", real);
  mr_context_destroy(ctx);
}

/* A snapshot reads a cache's statistics, a tracker's blocks and an owned
 * pool's attributes from the chain below each tag; custom resources under
 * those names are none of them, and the snapshot is taken all the same. */
static void custom_names_are_not_read_as_built_ins(void **state) {
  (void)state;
  mr_tag tags[] = {
      {"c", "impostor(as=cache)"}, {"t", "impostor(as=track)"}, {"p", "impostor(as=pool)"}};
  mr_context *ctx = create("names_snapshot", tags, 3);
  void *p = NULL;
  for (int tag = 0; tag < 3; tag++) {
    assert_ok(mr_allocate(mr_context_get_mr_on(ctx, tag, 0), 64, 0, NULL, &p));
    assert_ok(mr_deallocate(mr_context_get_mr_on(ctx, tag, 0), p, 64, 0, NULL));
  }
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_take(NULL, &snap));
  char *text = NULL;
  size_t length = 0;
  FILE *out = open_memstream(&text, &length);
  assert_non_null(out);
  assert_ok(mr_snapshot_write_json(snap, out));
  fclose(out);
  /* No cache statistics, no tracked blocks, no pool: nothing was any. */
  if (strstr(text, "\"cache\":") != NULL || strstr(text, "\"track\":") != NULL ||
      strstr(text, "\"owned\"") != NULL)
    fail_msg("a custom resource was read as a built-in:\n%s", text);
  free(text);
  mr_snapshot_destroy(snap);
  mr_context_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(custom_retry_gets_the_default_retry),
      cmocka_unit_test(custom_names_are_not_read_as_built_ins),
  };
  return cmocka_run_group_tests(tests, register_impostor, NULL);
}
