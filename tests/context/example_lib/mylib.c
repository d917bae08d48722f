/*
 * mylib.c: the example library (see mylib.h and docs/library-authors.md).
 * Uses the public mrctx API only.
 */
#include <stdlib.h>
#include <string.h>

#include "mylib.h"

/* Defaults: the library's choice; the application may override any of
 * them. Scratch space is bump-allocated from 1MiB host chunks, staging is
 * page-locked (so a GPU version could copy from it asynchronously), and
 * results are plain host memory the caller can keep. */
const mr_tag mylib_tags[MYLIB_TAG_COUNT] = {
    [MYLIB_TEMP] = {"temp", "arena(host, chunk=1MiB)"},
    [MYLIB_STAGING] = {"staging", "pinned"},
    [MYLIB_RESULT] = {"result", "host"},
};

/* mylib reads and writes all its memory on the host: the context refuses,
 * at creation, a spec that gives a tag memory the host cannot read. */
static const uint32_t mylib_requires[MYLIB_TAG_COUNT] = {
    [MYLIB_TEMP] = MR_REQUIRE_HOST_ACCESSIBLE,
    [MYLIB_STAGING] = MR_REQUIRE_HOST_ACCESSIBLE,
    [MYLIB_RESULT] = MR_REQUIRE_HOST_ACCESSIBLE,
};

mr_status mylib_context_create(const char *overrides, mr_context **ctx) {
  mr_context_desc desc = {
      .size = sizeof(mr_context_desc),
      .library = "mylib",
      .tags = mylib_tags,
      .tag_count = MYLIB_TAG_COUNT,
      .env_var = MYLIB_MEMORY_VARIABLE,
      .overrides = overrides,
      .tag_requires = mylib_requires,
  };
  return mr_context_create(&desc, ctx);
}

static int compare_int32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

mr_status mylib_unique(const mr_context *ctx, const int32_t *in, size_t n, mr_stream stream,
                       int32_t **out, size_t *out_n) {
  if (out == NULL || out_n == NULL || (in == NULL && n > 0))
    return mr_error(MR_ERR_INVALID_ARGUMENT, "mylib_unique: NULL argument");
  *out = NULL;
  *out_n = 0;
  if (n == 0) return MR_OK;
  /* One lookup per allocation site: the resource for this tag on the
   * calling thread's current device. Never NULL for a valid tag. */
  mr_resource *temp = ctx_get_mr(ctx, MYLIB_TEMP);
  mr_resource *staging = ctx_get_mr(ctx, MYLIB_STAGING);
  mr_resource *result = ctx_get_mr(ctx, MYLIB_RESULT);
  if (temp == NULL || staging == NULL || result == NULL) return MR_ERR_INVALID_ARGUMENT;
  /* All three are host-accessible: the context was created only so. */
  mr_status st;

  size_t bytes = n * sizeof *in;
  int32_t *stage = NULL, *scratch = NULL, *unique = NULL;
  st = mr_allocate(staging, bytes, 0, stream, (void **)&stage);
  if (st == MR_OK) st = mr_allocate(temp, bytes, 0, stream, (void **)&scratch);
  /* Stream-ordered memory is ready once the stream reaches the allocation;
   * the host waits for that before touching it. */
  if (st == MR_OK) st = mr_resource_synchronize(staging, stream);
  if (st == MR_OK) st = mr_resource_synchronize(temp, stream);
  size_t count = 0;
  if (st == MR_OK) {
    memcpy(stage, in, bytes);
    memcpy(scratch, stage, bytes);
    qsort(scratch, n, sizeof *scratch, compare_int32);
    for (size_t i = 0; i < n; i++)
      if (i == 0 || scratch[i] != scratch[count - 1]) scratch[count++] = scratch[i];
    st = mr_allocate(result, count * sizeof *unique, 0, stream, (void **)&unique);
  }
  if (st == MR_OK) st = mr_resource_synchronize(result, stream);
  if (st == MR_OK) memcpy(unique, scratch, count * sizeof *unique);
  /* Temporaries go back on the caller's stream, in order after the work. */
  mr_status freed = MR_OK;
  if (scratch != NULL) freed = mr_deallocate(temp, scratch, bytes, 0, stream);
  if (stage != NULL && freed == MR_OK) freed = mr_deallocate(staging, stage, bytes, 0, stream);
  if (st == MR_OK) st = freed;
  if (st != MR_OK) {
    /* The first failure is the one to report. */
    if (unique != NULL &&
        mr_deallocate(result, unique, count * sizeof *unique, 0, stream) != MR_OK) {
    }
    return st;
  }
  *out = unique;
  *out_n = count;
  return MR_OK;
}

mr_status mylib_free(const mr_context *ctx, int32_t *result, size_t n, mr_stream stream) {
  return mr_deallocate(ctx_get_mr(ctx, MYLIB_RESULT), result, n * sizeof *result, 0, stream);
}
