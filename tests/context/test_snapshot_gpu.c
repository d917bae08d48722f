/*
 * test_snapshot_gpu.c (gpu): a real out-of-memory with two contexts on
 * device 0. codec holds 1 GiB through a tracked tag; solver takes 4 GiB
 * blocks until the device is full. The failing allocation (after retry)
 * writes the dump MRCTX_OOM_SNAPSHOT names: it must name solver's tag as
 * the one that failed, both libraries with their live bytes, codec's block,
 * and a device pool that handed out at least that much. The dump's tables
 * go to stderr, for the record. Skips (77) without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context/context_internal.h"
#include "context/snapshot_internal.h"
#include "gpu_util.h"

#define GiB ((size_t)1 << 30)
#define BLOCK (4 * GiB)
#define MAX_BLOCKS 512

static const mr_tag solver_tags[] = {{"temp", "device"}};
static const mr_tag codec_tags[] = {{"frames", "track(device)"}};

static mr_context *create(const char *library, const mr_tag *tags) {
  mr_context_desc desc = {.size = sizeof desc, .library = library, .tags = tags, .tag_count = 1};
  mr_context *ctx = NULL;
  assert_ok(mr_context_create(&desc, &ctx));
  return ctx;
}

static const mri_snap_slot *slot_of(const mr_snapshot *snap, const char *library) {
  for (size_t c = 0; c < snap->context_count; c++)
    if (strcmp(snap->contexts[c].library, library) == 0) return &snap->contexts[c].tags[0].slots[0];
  fail_msg("%s is not in the dump", library);
  return NULL;
}

static int observed, dumped;

static void observe(void *user, const mr_oom_event *event) {
  observed++;
  if (event->snapshot_path != NULL) dumped++;
}

static void test_real_out_of_memory(void **state) {
  char path[] = "/tmp/mrctx-oom-gpu-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(setenv("MRCTX_OOM_SNAPSHOT", path, 1), 0);
  mri_oom_forget_env();
  mr_set_oom_observer(observe, NULL);

  mr_context *solver = create("solver", solver_tags), *codec = create("codec", codec_tags);
  mr_resource *temp = mr_context_get_mr_on(solver, 0, 0);
  mr_resource *frames = mr_context_get_mr_on(codec, 0, 0);
  void *held = NULL;
  assert_ok(mr_allocate_sync(frames, GiB, 0, &held));

  size_t free_bytes = 0, total = 0;
  gpu_check(mri_cuda()->cuMemGetInfo(&free_bytes, &total));
  static void *blocks[MAX_BLOCKS];
  size_t n = 0;
  mr_status st = MR_OK;
  while (n < MAX_BLOCKS) {
    st = mr_allocate_sync(temp, BLOCK, 0, &blocks[n]);
    if (st != MR_OK) break;
    n++;
  }
  fprintf(stderr, "device 0: %zu of %zu bytes free at the start; %zu blocks of %zu bytes taken\n",
          free_bytes, total, n, BLOCK);
  assert_int_equal(st, MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("CUDA_ERROR_OUT_OF_MEMORY");
  assert_error_contains("retry(device)");
  assert_int_equal(observed, 1);
  assert_int_equal(dumped, 1);

  FILE *f = fopen(path, "r");
  assert_non_null(f);
  char *text = NULL;
  size_t cap = 0;
  ssize_t length = getdelim(&text, &cap, '\0', f);
  fclose(f);
  unlink(path);
  assert_true(length > 0);
  mr_snapshot *snap = NULL;
  assert_ok(mr_snapshot_read(text, (size_t)length, &snap));
  free(text);
  assert_ok(mr_snapshot_write_text(snap, stderr));
  assert_true(snap->has_oom);
  assert_string_equal(snap->oom.library, "solver");
  assert_string_equal(snap->oom.tag, "temp");
  assert_int_equal(snap->oom.device, 0);
  assert_int_equal(snap->oom.bytes, BLOCK);
  const mri_snap_slot *s = slot_of(snap, "solver");
  assert_int_equal(s->stats.current_bytes, n * BLOCK);
  assert_int_equal(s->stats.failed_count, 1);
  s = slot_of(snap, "codec");
  assert_int_equal(s->stats.current_bytes, GiB);
  assert_true(s->has_track);
  assert_int_equal(s->blocks[0].bytes, GiB);
  bool pool_seen = false;
  for (size_t i = 0; i < snap->pool_count; i++) {
    const mri_snap_pool *p = &snap->pools[i];
    if (strcmp(p->which, "device_current") != 0 || p->info.device != 0) continue;
    pool_seen = true;
    assert_true(p->info.used_bytes >= n * BLOCK + GiB);
  }
  assert_true(pool_seen);
  mr_snapshot_destroy(snap);

  for (size_t i = 0; i < n; i++) assert_ok(mr_deallocate_sync(temp, blocks[i], BLOCK, 0));
  assert_ok(mr_deallocate_sync(frames, held, GiB, 0));
  mr_set_oom_observer(NULL, NULL);
  mr_context_destroy(solver);
  mr_context_destroy(codec);
  assert_int_equal(unsetenv("MRCTX_OOM_SNAPSHOT"), 0);
  mri_oom_forget_env();
}

int main(void) {
  GPU_TEST_REQUIRE();
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_real_out_of_memory)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
