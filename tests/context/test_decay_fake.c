/*
 * test_decay_fake.c (fake): idle memory goes back by itself (lib/core/
 * decay.c). The decay is driven by hand (mri_decay_tick with a clock of
 * the test's, the thread kept from starting by mri_decay_manual) except in
 * the last test, where the real thread starts, gives memory back (the test
 * waits for that event, under a watchdog) and stops. Checked: idle memory
 * of a cache, an arena, a fixed and of the default device pool above use
 * goes back after a window; memory used in every window stays; live blocks
 * are untouched; keep=yes keeps; idle=off never; MRCTX_IDLE_TIME and the
 * idle= option, with bad values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/decay.h"
#include "fake_test.h"

#define MiB ((size_t)1 << 20)
#define SEC UINT64_C(1000000000)
/* Blocks of this size get a segment, chunk or slab of their own. */
#define BLOCK (64 * MiB)

/* The test's clock: only forward, from the real one (windows of the
 * default pools, registered once per process, stay consistent). */
static uint64_t fake_now;

static uint64_t advance(uint64_t ns) {
  if (fake_now == 0) fake_now = mri_monotonic_ns();
  fake_now += ns;
  return fake_now;
}

/* A tick `ns` after the previous one. */
static void tick_after(uint64_t ns) { (void)mri_decay_tick(advance(ns)); }

static int setup(void **state) {
  int rc = fake_test_setup(state);
  if (rc == 0 && fake_cuda_set_total_memory(0, (size_t)16 << 30) != CUDA_SUCCESS) rc = -1;
  mri_decay_manual(true);
  /* The process's idle time, for the default pool: 1 s. */
  setenv("MRCTX_IDLE_TIME", "1s", 1);
  if (rc == 0 && mri_idle_time_reread() != MR_OK) rc = -1;
  /* Start every window now, with nothing idle yet: a test's memory
   * becomes idle inside its windows. */
  tick_after(SEC);
  return rc;
}

static mr_resource *make(const char *spec) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec(spec, 0, &mr));
  return mr;
}

static void pattern(void *p, unsigned char seed) { memset(p, seed, 4096); }

static bool intact(const void *p, unsigned char seed) {
  const unsigned char *c = p;
  for (size_t i = 0; i < 4096; i++)
    if (c[i] != seed) return false;
  return true;
}

/* ---- durations and the variable ------------------------------------------- */

static void test_duration_parse(void **state) {
  (void)state;
  uint64_t ns;
  assert_ok(mri_duration_parse("10s", "x", &ns));
  assert_int_equal(ns, 10 * SEC);
  assert_ok(mri_duration_parse("250ms", "x", &ns));
  assert_int_equal(ns, 250000000u);
  assert_ok(mri_duration_parse("2m", "x", &ns));
  assert_int_equal(ns, 120 * SEC);
  assert_ok(mri_duration_parse("1h", "x", &ns));
  assert_int_equal(ns, 3600 * SEC);
  assert_ok(mri_duration_parse("500us", "x", &ns));
  assert_int_equal(ns, 500000u);
  for (const char *const *never = (const char *const[]){"0", "off", "never", NULL}; *never;
       never++) {
    ns = 1;
    assert_ok(mri_duration_parse(*never, "x", &ns));
    assert_int_equal(ns, 0);
  }
  assert_status(mri_duration_parse("10", "MRCTX_IDLE_TIME", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("MRCTX_IDLE_TIME=10 has no unit");
  assert_status(mri_duration_parse("soon", "idle", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("idle=soon is not a duration");
  assert_status(mri_duration_parse("10d", "idle", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("unknown unit \"d\"");
  assert_status(mri_duration_parse("", "idle", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("idle is empty");
  assert_status(mri_duration_parse("99999999999999999999h", "idle", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("too long");
  assert_status(mri_duration_parse("6000000h", "idle", &ns), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("too long");
  char text[32];
  mri_duration_format(10 * SEC, text, sizeof text);
  assert_string_equal(text, "10s");
  mri_duration_format(1500 * UINT64_C(1000000), text, sizeof text);
  assert_string_equal(text, "1500ms");
  mri_duration_format(0, text, sizeof text);
  assert_string_equal(text, "off");
}

static void test_variable(void **state) {
  (void)state;
  setenv("MRCTX_IDLE_TIME", "5s", 1);
  assert_ok(mri_idle_time_reread());
  assert_int_equal(mri_idle_time_process(), 5 * SEC);
  setenv("MRCTX_IDLE_TIME", "off", 1);
  assert_ok(mri_idle_time_reread());
  assert_int_equal(mri_idle_time_process(), 0);
  setenv("MRCTX_IDLE_TIME", "0", 1);
  assert_ok(mri_idle_time_reread());
  assert_int_equal(mri_idle_time_process(), 0);
  /* A bad value: a clear error, and the default holds. */
  setenv("MRCTX_IDLE_TIME", "fast", 1);
  assert_status(mri_idle_time_reread(), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("MRCTX_IDLE_TIME=fast is not a duration");
  assert_int_equal(mri_idle_time_process(), MRI_IDLE_TIME_DEFAULT_NS);
  unsetenv("MRCTX_IDLE_TIME");
  assert_ok(mri_idle_time_reread());
  assert_int_equal(mri_idle_time_process(), MRI_IDLE_TIME_DEFAULT_NS);
  setenv("MRCTX_IDLE_TIME", "1s", 1);
  assert_ok(mri_idle_time_reread());
}

static void test_option(void **state) {
  (void)state;
  mr_resource *mr = make("cache(device, idle=5s)");
  assert_string_equal(mr_resource_describe(mr), "cache(device, idle=5s)");
  mr_resource_release(mr);
  mr = make("arena(device, chunk=64MiB, keep=yes, idle=off)");
  assert_string_equal(mr_resource_describe(mr), "arena(device, chunk=64MiB, idle=off, keep=yes)");
  /* The C call the option makes: back to the process's, then another. */
  assert_ok(mr_resource_set_idle_time(mr, MR_IDLE_TIME_PROCESS));
  assert_string_equal(mr_resource_describe(mr), "arena(device, chunk=64MiB, keep=yes)");
  assert_ok(mr_resource_set_idle_time(mr, 250 * UINT64_C(1000000)));
  assert_string_equal(mr_resource_describe(mr), "arena(device, chunk=64MiB, idle=250ms, keep=yes)");
  assert_ok(mr_resource_keep_idle(mr, false));
  assert_string_equal(mr_resource_describe(mr), "arena(device, chunk=64MiB, idle=250ms)");
  mr_resource_release(mr);
  /* Nested: only the outer resource's option changes. */
  mr = make("cache(arena(device, idle=2s), idle=1m)");
  assert_string_equal(mr_resource_describe(mr),
                      "cache(arena(device, chunk=64MiB, idle=2s), idle=1m)");
  assert_ok(mr_resource_set_idle_time(mr, 3 * SEC));
  assert_string_equal(mr_resource_describe(mr),
                      "cache(arena(device, chunk=64MiB, idle=2s), idle=3s)");
  mr_resource_release(mr);
  mr = make("bin(device, idle=1h)");
  assert_non_null(strstr(mr_resource_describe(mr), "idle=1h"));
  mr_resource_release(mr);

  mr = NULL;
  assert_status(mr_resource_from_spec("cache(device, idle=5)", 0, &mr), MR_ERR_CONFIG);
  assert_null(mr);
  assert_error_contains("idle=5 has no unit");
  assert_status(mr_resource_from_spec("fixed(device, idle=later)", 0, &mr), MR_ERR_CONFIG);
  assert_error_contains("idle=later is not a duration");
  /* Only the keeping resources take it. */
  assert_status(mr_resource_from_spec("limit(device, bytes=1GiB, idle=1s)", 0, &mr), MR_ERR_CONFIG);
  assert_error_contains("idle");
  mr = make("device");
  assert_status(mr_resource_set_idle_time(mr, SEC), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("keeps no idle memory of its own");
  mr_resource_release(mr);
  assert_status(mr_resource_set_idle_time(NULL, SEC), MR_ERR_INVALID_ARGUMENT);
}

/* ---- what goes back --------------------------------------------------------- */

/* `spec` keeps 4 blocks' memory idle after they are freed; with idle=1s,
 * after a window that began before the frees nothing goes back before the
 * window's end... (`back` blocks' worth at its end). */
static void idle_goes_back(const char *spec, size_t back) {
  size_t before = fake_cuda_used_memory(0);
  mr_resource *mr = make(spec);
  void *p[4];
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[i]));
  for (int i = 0; i < 4; i++) assert_ok(mr_deallocate(mr, p[i], BLOCK, 0, NULL));
  size_t held = fake_cuda_used_memory(0);
  assert_true(held >= before + 4 * BLOCK);
  /* The window starts at the first tick that sees the resource. */
  tick_after(SEC / 8);
  tick_after(SEC / 2);
  assert_int_equal(fake_cuda_used_memory(0), held);
  uint64_t released = mri_decay_released();
  tick_after(SEC / 2);
  /* ...and at its end everything idle through it went back, to the device
   * (the default pool passed on what the resource gave it). */
  assert_true(fake_cuda_used_memory(0) <= held - back * BLOCK);
  assert_true(mri_decay_released() >= released + back * BLOCK);
  mr_resource_release(mr);
}

static void test_cache(void **state) { idle_goes_back("cache(device, idle=1s)", 4); }

/* A graph capture (global mode, on a blocking stream, as PyTorch's
 * torch.cuda.graph does) goes on while the decay gives memory back: ticks
 * run in the relaxed capture mode and give memory upstream on the
 * per-thread stream, so the capture ends valid and the memory still goes
 * back. The fake driver, as CUDA, refuses a device synchronization from a
 * thread in the global mode and legacy-stream work meanwhile, and
 * invalidates the capture. */
static void capture_survives(const char *spec, size_t back) {
  size_t before = fake_cuda_used_memory(0);
  mr_resource *mr = make(spec);
  void *p[4];
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[i]));
  for (int i = 0; i < 4; i++) assert_ok(mr_deallocate(mr, p[i], BLOCK, 0, NULL));
  size_t held = fake_cuda_used_memory(0);
  assert_true(held >= before + 4 * BLOCK);
  CUstream blocking = NULL;
  assert_int_equal(fake_cu()->cuStreamCreate(&blocking, CU_STREAM_DEFAULT), CUDA_SUCCESS);
  assert_int_equal(fake_cu()->cuStreamBeginCapture(blocking, CU_STREAM_CAPTURE_MODE_GLOBAL),
                   CUDA_SUCCESS);
  tick_after(SEC / 8);
  tick_after(SEC / 2);
  tick_after(SEC / 2);
  CUgraph graph = NULL;
  CUresult ended = fake_cu()->cuStreamEndCapture(blocking, &graph);
  assert_int_equal(fake_cu()->cuStreamDestroy(blocking), CUDA_SUCCESS);
  assert_int_equal(ended, CUDA_SUCCESS);
  assert_true(fake_cuda_used_memory(0) <= held - back * BLOCK);
  mr_resource_release(mr);
}

static void test_capture_cache(void **state) { capture_survives("cache(device, idle=1s)", 4); }
static void test_capture_arena(void **state) {
  capture_survives("arena(device, chunk=64MiB, idle=1s)", 3);
}
static void test_capture_fixed(void **state) {
  capture_survives("fixed(device, block=64MiB, count=1, idle=1s)", 4);
}
/* The chunk still current for its stream stays: its owner's frees record
 * no event, and the decay never waits for the device. */
static void test_arena(void **state) { idle_goes_back("arena(device, chunk=64MiB, idle=1s)", 3); }
static void test_fixed(void **state) {
  idle_goes_back("fixed(device, block=64MiB, count=4, idle=1s)", 4);
}

/* The default device pool: what a plain `device` resource freed stays
 * reserved (mrctx raised the release threshold) for the process's idle
 * time (1 s here), then goes back to the device: after one window, and
 * at most two (the pool's window was already open, with nothing idle). */
static void test_default_pool(void **state) {
  mr_resource *mr = make("device");
  void *p = NULL;
  assert_ok(mr_allocate(mr, 4 * BLOCK, 0, NULL, &p));
  size_t held = fake_cuda_used_memory(0);
  assert_ok(mr_deallocate(mr, p, 4 * BLOCK, 0, NULL));
  assert_int_equal(fake_cuda_used_memory(0), held);
  for (int i = 0; i < 3; i++) tick_after(SEC / 4);
  assert_int_equal(fake_cuda_used_memory(0), held);
  for (int i = 0; i < 5; i++) tick_after(SEC / 4);
  assert_true(fake_cuda_used_memory(0) <= held - 4 * BLOCK);
  mr_resource_release(mr);
}

/* A working set used in every window stays; the burst's excess goes back;
 * a live block is never touched. `between`: the ticks come between steps,
 * when the working set is idle too: only a resource that tracks its own
 * low-water mark (the cache) keeps it then; the others' sampled minimum
 * needs a tick inside a step. */
static void working_set_stays(const char *spec, bool between) {
  mr_resource *mr = make(spec);
  void *live = NULL;
  assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &live));
  pattern(live, 0x5a);
  /* A burst of 6 blocks, then a steady use of 2 per "step". */
  void *p[6];
  for (int i = 0; i < 6; i++) assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[i]));
  for (int i = 0; i < 6; i++) assert_ok(mr_deallocate(mr, p[i], BLOCK, 0, NULL));
  size_t burst = fake_cuda_used_memory(0);
  long allocs = fake_cuda_calls("cuMemAllocFromPoolAsync");
  for (int window = 0; window < 4; window++) {
    for (int step = 0; step < 8; step++) {
      assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[0]));
      assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[1]));
      if (!between) tick_after(SEC / 8);
      assert_ok(mr_deallocate(mr, p[1], BLOCK, 0, NULL));
      assert_ok(mr_deallocate(mr, p[0], BLOCK, 0, NULL));
      if (between) tick_after(SEC / 8);
    }
  }
  /* The 4 blocks of the burst beyond the working set went back... */
  size_t now = fake_cuda_used_memory(0);
  assert_true(now <= burst - 4 * BLOCK);
  /* ...the working set's 2 never did: no step went to the device. */
  assert_int_equal(fake_cuda_calls("cuMemAllocFromPoolAsync"), allocs);
  assert_true(intact(live, 0x5a));
  assert_ok(mr_deallocate(mr, live, BLOCK, 0, NULL));
  mr_resource_release(mr);
}

static void test_cache_working_set(void **state) {
  working_set_stays("cache(device, idle=1s)", true);
}
static void test_fixed_working_set(void **state) {
  working_set_stays("fixed(device, block=64MiB, count=1, idle=1s)", false);
}

/* keep=yes keeps idle memory from the decay as from the process-wide
 * reclaim; idle=off never decays; the process's idle time off (0) leaves
 * a resource without its own idle time alone. */
static void nothing_goes_back(const char *spec) {
  mr_resource *mr = make(spec);
  void *p[4];
  for (int i = 0; i < 4; i++) assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p[i]));
  for (int i = 0; i < 4; i++) assert_ok(mr_deallocate(mr, p[i], BLOCK, 0, NULL));
  size_t held = fake_cuda_used_memory(0);
  for (int i = 0; i < 40; i++) tick_after(SEC / 4);
  assert_int_equal(fake_cuda_used_memory(0), held);
  mr_resource_release(mr);
}

static void test_keep(void **state) {
  nothing_goes_back("cache(device, keep=yes, idle=1s)");
  nothing_goes_back("arena(device, chunk=64MiB, keep=yes)");
  nothing_goes_back("fixed(device, block=64MiB, count=4, keep=yes)");
}

static void test_off(void **state) {
  nothing_goes_back("cache(device, idle=off)");
  setenv("MRCTX_IDLE_TIME", "off", 1);
  assert_ok(mri_idle_time_reread());
  nothing_goes_back("arena(device, chunk=64MiB)");
  setenv("MRCTX_IDLE_TIME", "1s", 1);
  assert_ok(mri_idle_time_reread());
}

/* Memory its stream may still use stays until the stream's work is done:
 * the decay never waits for the device. */
static void test_busy_stream_skipped(void **state) {
  CUstream stream = fake_new_stream();
  mr_resource *mr = make("fixed(device, block=64MiB, count=1, idle=1s)");
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(mr, BLOCK, 0, (mr_stream)stream, &p));
  assert_ok(mr_allocate(mr, BLOCK, 0, (mr_stream)stream, &q));
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, q, BLOCK, 0, (mr_stream)stream));
  assert_ok(mr_deallocate(mr, p, BLOCK, 0, (mr_stream)stream));
  size_t held = fake_cuda_used_memory(0);
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  for (int i = 0; i < 12; i++) tick_after(SEC / 4);
  assert_int_equal(fake_cuda_used_memory(0), held);
  assert_int_equal(fake_cuda_calls("cuCtxSynchronize"), syncs);
  assert_int_equal(fake_cuda_set_stream_busy(stream, false), CUDA_SUCCESS);
  for (int i = 0; i < 12; i++) tick_after(SEC / 4);
  assert_true(fake_cuda_used_memory(0) <= held - 2 * BLOCK);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(stream), CUDA_SUCCESS);
}

/* An arena's chunk still current for its stream: its owner's frees record
 * no event, so the decay leaves it (a trim or reclaim waits for the device
 * and takes it). */
static void test_current_chunk_stays(void **state) {
  CUstream stream = fake_new_stream();
  mr_resource *mr = make("arena(device, chunk=64MiB, idle=1s)");
  void *p = NULL;
  assert_ok(mr_allocate(mr, MiB, 0, (mr_stream)stream, &p));
  assert_int_equal(fake_cuda_set_stream_busy(stream, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(mr, p, MiB, 0, (mr_stream)stream));
  size_t held = fake_cuda_used_memory(0);
  for (int i = 0; i < 12; i++) tick_after(SEC / 4);
  assert_int_equal(fake_cuda_used_memory(0), held);
  assert_int_equal(fake_cuda_set_stream_busy(stream, false), CUDA_SUCCESS);
  mr_resource_release(mr);
  assert_int_equal(fake_cu()->cuStreamDestroy(stream), CUDA_SUCCESS);
}

/* ---- the thread --------------------------------------------------------------- */

/* The real thread: started by the first resource that decays, gives its
 * idle memory back (the test waits for that, not for a time), stops, and
 * starts again with the next resource. */
static void test_thread(void **state) {
  alarm(test_watchdog_seconds(60));
  mri_decay_manual(false);
  mri_decay_stop();
  assert_false(mri_decay_running());
  mr_resource *mr = make("cache(device, idle=20ms)");
  assert_true(mri_decay_running());
  size_t before = fake_cuda_used_memory(0);
  void *p = NULL;
  assert_ok(mr_allocate(mr, BLOCK, 0, NULL, &p));
  assert_ok(mr_deallocate(mr, p, BLOCK, 0, NULL));
  assert_true(mri_decay_wait_released(mri_decay_released() + BLOCK));
  mri_decay_stop();
  assert_false(mri_decay_running());
  assert_true(fake_cuda_used_memory(0) <= before);
  mr_resource *again = make("arena(device, chunk=64MiB, idle=20ms)");
  assert_true(mri_decay_running());
  mr_resource_release(again);
  mr_resource_release(mr);
  mri_decay_stop();
  alarm(0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_duration_parse, setup),
      cmocka_unit_test_setup(test_variable, setup),
      cmocka_unit_test_setup(test_option, setup),
      cmocka_unit_test_setup(test_cache, setup),
      cmocka_unit_test_setup(test_arena, setup),
      cmocka_unit_test_setup(test_fixed, setup),
      cmocka_unit_test_setup(test_default_pool, setup),
      cmocka_unit_test_setup(test_cache_working_set, setup),
      cmocka_unit_test_setup(test_fixed_working_set, setup),
      cmocka_unit_test_setup(test_keep, setup),
      cmocka_unit_test_setup(test_off, setup),
      cmocka_unit_test_setup(test_busy_stream_skipped, setup),
      cmocka_unit_test_setup(test_current_chunk_stays, setup),
      cmocka_unit_test_setup(test_capture_cache, setup),
      cmocka_unit_test_setup(test_capture_arena, setup),
      cmocka_unit_test_setup(test_capture_fixed, setup),
      cmocka_unit_test_setup(test_thread, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
