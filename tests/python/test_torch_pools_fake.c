/*
 * test_torch_pools_fake.c: the PyTorch shim's private pools (CUDA graphs
 * and use_mem_pool under mrctx.torch.use, _torch_pools.cpp) in C, over the
 * fake driver (suite fake), so the sanitizer builds see them (the Python
 * tests in test_torch_parity.py cannot run there).
 *  - A capture on one thread while other threads allocate and free through
 *    route 0 on their own streams: no block of the pool is handed to them
 *    while the pool lives, the capture reuses its own freed blocks, and
 *    everything goes back to the tag once the pool is released.
 *  - Threads free a graph's outputs while another thread releases the pool:
 *    every block reaches the tag exactly once.
 *  - A pool released while another captures: its blocks wait (waiting for
 *    the device then would break the capture) and go back after.
 * The shim's sources are compiled into this program; route 0 is bound to a
 * cache(device) tag once. Threads record problems instead of asserting.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "_torch_alloc.h"
#include "_torch_pools.h"
#include "fake_test.h"

#define MiB ((ssize_t)1 << 20)
#define WORKERS 4
#define ROUNDS 200

static mr_context *ctx;

static void bind_route0(void) {
  if (ctx != NULL) return;
  mr_tag tags[] = {{"act", "cache(device)"}};
  mr_context_desc desc = {
      .size = sizeof desc, .library = "torchpools", .tags = tags, .tag_count = 1};
  assert_int_equal(mr_context_create(&desc, &ctx), MR_OK);
  int count = mr_context_device_count(ctx);
  mr_resource **mrs = calloc((size_t)count, sizeof *mrs);
  assert_non_null(mrs);
  for (int d = 0; d < count; d++) mrs[d] = mr_context_get_mr_on(ctx, 0, d);
  assert_int_equal(mrctx_torch_bind(0, "torchpools/act", mrs, count), 0);
  free(mrs);
}

static uint64_t tag_bytes(void) {
  mr_stats stats;
  mr_stats_init(&stats);
  assert_int_equal(mr_context_get_stats(ctx, 0, -1, &stats), MR_OK);
  return stats.current_bytes;
}

static void *alloc0(ssize_t size, CUstream stream) {
  mr_status st = MR_ERR_STATE;
  void *ptr = mrctx_torch_route0_alloc(size, 0, stream, &st);
  if (st != MR_OK || ptr == NULL) fail_msg("route 0 alloc of %zd: %s", size, mr_last_error());
  return ptr;
}

/* PyTorch's graph filter: the stream being captured. */
static int only_stream(void *stream, void *user) { return stream == user; }

static mrctx_torch_pools_info pools_now(void) {
  mrctx_torch_pools_info info;
  mrctx_torch_pools_read(-1, &info);
  return info;
}

/* ---- A capture while other threads allocate -------------------------------- */

typedef struct worker {
  pthread_t thread;
  atomic_int *stop;
  void *const *forbidden; /* the pool's blocks: never handed out to a worker */
  atomic_int *forbidden_count;
  int problems;
  char first_problem[160];
} worker;

static void note(worker *w, const char *what, void *ptr) {
  if (w->problems++ == 0) snprintf(w->first_problem, sizeof w->first_problem, "%s %p", what, ptr);
}

static void *worker_main(void *arg) {
  worker *w = arg;
  fake_bind(0);
  CUstream mine = NULL;
  if (mri_cuda()->cuStreamCreate(&mine, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    note(w, "no stream", NULL);
    return NULL;
  }
  unsigned seed = 7;
  while (!atomic_load(w->stop)) {
    ssize_t size = (ssize_t)(1 + rand_r(&seed) % 4) * MiB;
    mr_status st = MR_ERR_STATE;
    void *ptr = mrctx_torch_route0_alloc(size, 0, mine, &st);
    if (st != MR_OK || ptr == NULL) {
      note(w, "alloc failed", ptr);
      break;
    }
    /* The test publishes each entry before the count (release). */
    int n = atomic_load_explicit(w->forbidden_count, memory_order_acquire);
    for (int i = 0; i < n; i++)
      if (w->forbidden[i] == ptr) note(w, "got a pool's block", ptr);
    mrctx_torch_route0_free(ptr, size, 0, mine);
  }
  mri_cuda()->cuStreamSynchronize(mine);
  mri_cuda()->cuStreamDestroy(mine);
  return NULL;
}

/* Publish a block the workers must never receive: the entry, then the
 * count, so a worker that sees the count sees the entry. */
static void forbid(void **list, atomic_int *count, void *ptr) {
  int n = atomic_load_explicit(count, memory_order_relaxed);
  list[n] = ptr;
  atomic_store_explicit(count, n + 1, memory_order_release);
}

static void test_capture_while_threads_allocate(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream();
  static void *forbidden[2 * ROUNDS + 4];
  atomic_int forbidden_count = 0;
  atomic_int stop = 0;
  worker workers[WORKERS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < WORKERS; i++) {
    workers[i].stop = &stop;
    workers[i].forbidden = forbidden;
    workers[i].forbidden_count = &forbidden_count;
    assert_int_equal(pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]), 0);
  }

  mrctx_torch_pools_begin_c(0, 5, 0, only_stream, s);
  assert_int_equal(fake_cu()->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  void *keep = alloc0(3 * MiB, s); /* an output: live after the capture */
  forbid(forbidden, &forbidden_count, keep);
  void *first = NULL;
  for (int i = 0; i < ROUNDS; i++) {
    void *tmp = alloc0(2 * MiB, s);
    if (first == NULL) {
      first = tmp;
      forbid(forbidden, &forbidden_count, tmp);
    }
    assert_ptr_equal(tmp, first); /* the capture reuses its own freed block */
    mrctx_torch_route0_free(tmp, 2 * MiB, 0, s);
  }
  CUgraph graph = NULL;
  assert_int_equal(fake_cu()->cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
  mrctx_torch_pools_end_c(0, 5, 0);
  mrctx_torch_pools_info info = pools_now();
  assert_int_equal(info.held_bytes, (unsigned long long)(5 * MiB));
  assert_int_equal(info.live_blocks, 1);
  void *live[4];
  assert_int_equal(mrctx_torch_pool_live(0, 5, 0, live, 4), 1);
  assert_ptr_equal(live[0], keep);
  mrctx_torch_route0_free(keep, 3 * MiB, 0, s); /* the graph still lives: the pool keeps it */
  assert_int_equal(pools_now().held_bytes, (unsigned long long)(5 * MiB));

  atomic_store(&stop, 1);
  for (int i = 0; i < WORKERS; i++) {
    pthread_join(workers[i].thread, NULL);
    if (workers[i].problems) fail_msg("worker %d: %s", i, workers[i].first_problem);
  }
  if (graph != NULL) fake_cu()->cuGraphDestroy(graph);
  mrctx_torch_pools_release_c(0, 5, 0);
  info = pools_now();
  assert_int_equal(info.pools, 0);
  assert_int_equal(info.held_bytes, 0);
  assert_int_equal(info.kept_blocks, 0);
  assert_int_equal(tag_bytes(), base);
  fake_cu()->cuStreamDestroy(s);
}

/* ---- Outputs freed while the pool is released -------------------------------- */

typedef struct freer {
  pthread_t thread;
  void **blocks;
  int count;
  CUstream stream;
} freer;

static void *freer_main(void *arg) {
  freer *f = arg;
  fake_bind(0);
  for (int i = 0; i < f->count; i++) mrctx_torch_route0_free(f->blocks[i], MiB, 0, f->stream);
  return NULL;
}

static void test_outputs_freed_while_the_pool_is_released(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  enum { OUTPUTS = 64 };
  CUstream s = fake_new_stream();
  static void *outputs[OUTPUTS];
  for (int round = 0; round < 20; round++) {
    mrctx_torch_pools_begin_c(0, 6, (unsigned long long)round, only_stream, s);
    for (int i = 0; i < OUTPUTS; i++) outputs[i] = alloc0(MiB, s);
    mrctx_torch_pools_end_c(0, 6, (unsigned long long)round);
    freer f = {.blocks = outputs, .count = OUTPUTS, .stream = s};
    assert_int_equal(pthread_create(&f.thread, NULL, freer_main, &f), 0);
    mrctx_torch_pools_release_c(0, 6, (unsigned long long)round);
    pthread_join(f.thread, NULL);
    mrctx_torch_pools_info info = pools_now();
    assert_int_equal(info.pools, 0);
    assert_int_equal(info.held_bytes, 0);
    assert_int_equal(tag_bytes(), base);
  }
  fake_cu()->cuStreamDestroy(s);
}

/* A pool released while another is open (a capture may be underway, and
 * waiting for the whole device would break it): its blocks wait, still the
 * tag's, and go back when the last pool ends. */
static void test_release_during_another_capture_waits(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream(), t = fake_new_stream();
  mrctx_torch_pools_begin_c(0, 8, 0, only_stream, s);
  void *a = alloc0(2 * MiB, s);
  mrctx_torch_pools_end_c(0, 8, 0);
  mrctx_torch_route0_free(a, 2 * MiB, 0, s);
  mrctx_torch_pools_begin_c(0, 9, 0, only_stream, t); /* another graph's capture */
  assert_int_equal(fake_cu()->cuStreamBeginCapture(t, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
  mrctx_torch_pools_release_c(0, 8, 0);
  mrctx_torch_pools_info info = pools_now();
  assert_int_equal(info.waiting_blocks, 1);
  assert_int_equal(info.kept_blocks, 0);
  assert_int_equal(tag_bytes(), base + (uint64_t)(2 * MiB));
  CUgraph graph = NULL;
  assert_int_equal(fake_cu()->cuStreamEndCapture(t, &graph), CUDA_SUCCESS);
  mrctx_torch_pools_end_c(0, 9, 0);
  info = pools_now();
  assert_int_equal(info.waiting_blocks, 0);
  assert_int_equal(info.kept_blocks, 0);
  assert_int_equal(tag_bytes(), base);
  mrctx_torch_pools_release_c(0, 9, 0);
  assert_int_equal(pools_now().pools, 0);
  if (graph != NULL) fake_cu()->cuGraphDestroy(graph);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capture_while_threads_allocate),
      cmocka_unit_test(test_outputs_freed_while_the_pool_is_released),
      cmocka_unit_test(test_release_during_another_capture_waits),
  };
  return cmocka_run_group_tests(tests, fake_group_setup, NULL);
}
