/*
 * test_torch_pools_fake.c: the PyTorch shim's private pools (CUDA graphs
 * and use_mem_pool under mrctx.torch.use, _torch_pools.cpp) in C, over the
 * fake driver (suite fake), so the sanitizer builds see them (the Python
 * tests in test_torch_parity.py cannot run there).
 *  - A capture on one thread while other threads allocate and free through
 *    route 0 on their own streams: no byte of the pool's segments is handed
 *    to them while the pool lives, the capture reuses its own freed blocks,
 *    and everything goes back to the tag once the pool is released.
 *  - How a pool cuts its segments (as PyTorch's own allocator does): small
 *    and large segments, splitting, merging, best fit, streams, blocks kept
 *    for another stream, a segment of just the size asked when the tag
 *    cannot give a whole one, and a checkpoint restored (Inductor's graph
 *    trees) after the blocks were cut differently.
 *  - Threads free a graph's outputs while another thread releases the pool:
 *    every block reaches the tag exactly once.
 *  - A pool released while another captures: its blocks wait (waiting for
 *    the device then would break the capture) and go back after.
 *  - MemPool(use_on_oom=True): threads that the tag refuses borrow its free
 *    blocks, each block to one of them, and give them back to it.
 *  - PyTorch's device statistics from route 0 (_torch_stats.c).
 * The shim's sources are compiled into this program; route 0 is bound to a
 * cache(device) tag once. Threads record problems instead of asserting.
 */
#include <pthread.h>
#include <sched.h>
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

static void *alloc_on(int device, ssize_t size, CUstream stream) {
  mr_status st = MR_ERR_STATE;
  void *ptr = mrctx_torch_route0_alloc(size, device, stream, &st);
  if (st != MR_OK || ptr == NULL)
    fail_msg("route 0 alloc of %zd on device %d: %s", size, device, mr_last_error());
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
  void *const *forbidden; /* the pool's segments, [start, end) pairs: never handed to a worker */
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
    for (int i = 0; i + 1 < n; i += 2)
      if ((char *)w->forbidden[i] < (char *)ptr + size && (char *)ptr < (char *)w->forbidden[i + 1])
        note(w, "got memory of a pool's segment", ptr);
    mrctx_torch_route0_free(ptr, size, 0, mine);
  }
  mri_cuda()->cuStreamSynchronize(mine);
  mri_cuda()->cuStreamDestroy(mine);
  return NULL;
}

/* Publish memory the workers must never receive: the range, then the
 * count, so a worker that sees the count sees the range. */
static void forbid(void **list, atomic_int *count, void *start, size_t bytes) {
  int n = atomic_load_explicit(count, memory_order_relaxed);
  list[n] = start;
  list[n + 1] = (char *)start + bytes;
  atomic_store_explicit(count, n + 2, memory_order_release);
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
  /* An output, live after the capture: the first block of a 20 MiB
   * segment, whose rest serves the capture's temporaries. */
  void *keep = alloc0(3 * MiB, s);
  forbid(forbidden, &forbidden_count, keep, (size_t)(20 * MiB));
  for (int i = 0; i < ROUNDS; i++) {
    void *tmp = alloc0(2 * MiB, s);
    assert_ptr_equal(tmp, (char *)keep + 3 * MiB); /* the capture reuses its own freed block */
    mrctx_torch_route0_free(tmp, 2 * MiB, 0, s);
  }
  CUgraph graph = NULL;
  assert_int_equal(fake_cu()->cuStreamEndCapture(s, &graph), CUDA_SUCCESS);
  mrctx_torch_pools_end_c(0, 5, 0);
  mrctx_torch_pools_info info = pools_now();
  assert_int_equal(info.held_bytes, (unsigned long long)(20 * MiB));
  assert_int_equal(info.segments, 1);
  assert_int_equal(info.free_blocks, 1); /* the temporaries merged back into the rest */
  assert_int_equal(info.live_blocks, 1);
  void *live[4];
  assert_int_equal(mrctx_torch_pool_live(0, 5, 0, live, 4), 1);
  assert_ptr_equal(live[0], keep);
  mrctx_torch_route0_free(keep, 3 * MiB, 0, s); /* the graph still lives: the pool keeps it */
  assert_int_equal(pools_now().held_bytes, (unsigned long long)(20 * MiB));

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
  assert_int_equal(info.waiting_blocks, 1); /* the 20 MiB segment of `a` */
  assert_int_equal(info.kept_blocks, 0);
  assert_int_equal(tag_bytes(), base + (uint64_t)(20 * MiB));
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

/* ---- How a pool cuts its segments ------------------------------------------- */

static void free0(void *ptr, ssize_t size, CUstream stream) {
  mrctx_torch_route0_free(ptr, size, 0, stream);
}

static void test_segments_split_merge_and_best_fit(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream(), t = fake_new_stream();
  mrctx_torch_pools_begin_c(0, 10, 0, NULL, NULL); /* every stream, as use_mem_pool */
  /* Requests from 1 to 10 MiB share a 20 MiB segment, in address order. */
  char *a = alloc0(4 * MiB, s), *b = alloc0(4 * MiB, s), *c = alloc0(4 * MiB, s);
  assert_ptr_equal(b, a + 4 * MiB);
  assert_ptr_equal(c, a + 8 * MiB);
  mrctx_torch_pools_info info = pools_now();
  assert_int_equal(info.segments, 1);
  assert_int_equal(info.held_bytes, (unsigned long long)(20 * MiB));
  assert_int_equal(info.live_bytes, (unsigned long long)(12 * MiB));
  assert_int_equal(info.free_blocks, 1);
  /* Freed neighbours merge; a 7 MiB request takes the best fit, the lower
   * of two 8 MiB free blocks, whole (a large block keeps no remainder of
   * 1 MiB or less). */
  free0(a, 4 * MiB, s);
  free0(b, 4 * MiB, s);
  assert_int_equal(pools_now().free_blocks, 2);
  char *d = alloc0(7 * MiB, s);
  assert_ptr_equal(d, a);
  assert_int_equal(pools_now().live_bytes, (unsigned long long)(12 * MiB));
  /* Sizes round to 512 bytes; small requests come from a 2 MiB segment of
   * their own, never from a large one. */
  char *e = alloc0(100, s), *f = alloc0(700, s);
  assert_true(e < a || e >= a + 20 * MiB);
  assert_ptr_equal(f, e + 512);
  info = pools_now();
  assert_int_equal(info.segments, 2);
  assert_int_equal(info.held_bytes, (unsigned long long)(22 * MiB));
  /* Another stream's request never takes this stream's free blocks. */
  char *g = alloc0(4 * MiB, t);
  assert_true(g < a || g >= a + 20 * MiB);
  assert_int_equal(pools_now().segments, 3);
  /* Everything freed merges back into one free block a segment. */
  free0(c, 4 * MiB, s);
  free0(d, 7 * MiB, s);
  free0(e, 100, s);
  free0(f, 700, s);
  free0(g, 4 * MiB, t);
  info = pools_now();
  assert_int_equal(info.free_blocks, 3);
  assert_int_equal(info.live_blocks, 0);
  assert_int_equal(info.held_bytes, (unsigned long long)(42 * MiB));
  /* Above 10 MiB: a segment of the size rounded up to 2 MiB. A request
   * that fits the free 20 MiB segment takes it instead. */
  char *h = alloc0(11 * MiB + 1, s);
  assert_ptr_equal(h, a);
  free0(h, 11 * MiB + 1, s);
  char *i = alloc0(21 * MiB, s);
  info = pools_now();
  assert_int_equal(info.segments, 4);
  assert_int_equal(info.held_bytes, (unsigned long long)(64 * MiB));
  void *bases[8];
  size_t sizes[8];
  assert_int_equal(mrctx_torch_pool_segments(0, 10, 0, bases, sizes, 8), 4);
  size_t total = 0, largest = 0;
  for (int k = 0; k < 4; k++) {
    total += sizes[k];
    if (sizes[k] > largest) largest = sizes[k];
    if (bases[k] == i) assert_int_equal(sizes[k], (size_t)(22 * MiB)); /* 21 MiB rounded to 2 */
  }
  assert_int_equal(total, (size_t)(64 * MiB));
  assert_int_equal(largest, (size_t)(22 * MiB));
  assert_int_equal(mrctx_torch_pool_segments(0, 99, 0, bases, sizes, 8), -1);
  free0(i, 21 * MiB, s);
  mrctx_torch_pools_end_c(0, 10, 0);
  mrctx_torch_pools_release_c(0, 10, 0);
  info = pools_now();
  assert_int_equal(info.pools, 0);
  assert_int_equal(info.held_bytes, 0);
  assert_int_equal(tag_bytes(), base);
  fake_cu()->cuStreamDestroy(s);
  fake_cu()->cuStreamDestroy(t);
}

/* A block used on another stream (Tensor.record_stream) is kept: it is not
 * reused and its neighbours do not merge into it. */
static void test_block_used_on_another_stream_is_kept(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream();
  mrctx_torch_pools_begin_c(0, 11, 0, only_stream, s);
  char *a = alloc0(4 * MiB, s), *b = alloc0(4 * MiB, s);
  assert_true(mrctx_torch_pools_record_stream(a));
  free0(a, 4 * MiB, s);
  free0(b, 4 * MiB, s);
  assert_int_equal(pools_now().free_blocks, 1); /* b and the rest; a stays apart */
  char *c = alloc0(4 * MiB, s);
  assert_ptr_equal(c, b);
  free0(c, 4 * MiB, s);
  mrctx_torch_pools_end_c(0, 11, 0);
  mrctx_torch_pools_release_c(0, 11, 0);
  assert_int_equal(pools_now().held_bytes, 0);
  assert_int_equal(tag_bytes(), base);
  fake_cu()->cuStreamDestroy(s);
}

/* Route 0 bound, device 1 current and cut to 16 MiB; returns the memory
 * it had, for fake_cuda_set_total_memory at the end. */
static size_t short_device_1(void) {
  fake_bind(0);
  bind_route0();
  fake_bind(1);
  size_t total = 0;
  assert_int_equal(fake_cu()->cuDeviceTotalMem(&total, 1), CUDA_SUCCESS);
  assert_int_equal(fake_cuda_set_total_memory(1, (size_t)(16 * MiB)), CUDA_SUCCESS);
  return total;
}

/* Where the tag cannot give a whole segment, the pool takes just the size
 * asked (a device with 16 MiB cannot give 20). */
static void test_segment_of_the_size_asked_when_memory_is_short(void **state) {
  (void)state;
  size_t total = short_device_1();
  CUstream s = fake_new_stream();
  mrctx_torch_pools_begin_c(1, 13, 0, only_stream, s);
  mr_status st = MR_ERR_STATE;
  void *p = mrctx_torch_route0_alloc(5 * MiB, 1, s, &st);
  assert_int_equal(st, MR_OK);
  assert_non_null(p);
  mrctx_torch_pools_info info;
  mrctx_torch_pools_read(1, &info);
  assert_int_equal(info.segments, 1);
  assert_int_equal(info.held_bytes, (unsigned long long)(5 * MiB));
  mrctx_torch_route0_free(p, 5 * MiB, 1, s);
  mrctx_torch_pools_end_c(1, 13, 0);
  mrctx_torch_pools_release_c(1, 13, 0);
  mrctx_torch_pools_read(1, &info);
  assert_int_equal(info.held_bytes, 0);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_set_total_memory(1, total), CUDA_SUCCESS);
  fake_bind(0);
}

/* Inductor's graph trees: a saved state (the live blocks) made live again
 * at the same addresses after the pool's blocks were cut differently. */
static void test_checkpoint_restored_after_the_blocks_were_cut_again(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream();
  mrctx_torch_pools_begin_c(0, 12, 0, only_stream, s);
  char *x = alloc0(3 * MiB, s), *y = alloc0(5 * MiB, s);
  mrctx_torch_pool_block saved[4];
  assert_int_equal(mrctx_torch_pool_state(0, 12, 0, saved, 4), 2);
  free0(x, 3 * MiB, s);
  free0(y, 5 * MiB, s);
  char *z = alloc0(6 * MiB, s); /* over both */
  assert_ptr_equal(z, x);
  void *freed[4] = {0};
  size_t freed_count = 0;
  /* Refused, changing nothing: overlapping blocks, a block outside the pool. */
  mrctx_torch_pool_block bad[2] = {{x, 4 * MiB, s}, {y, 5 * MiB, s}};
  assert_int_equal(mrctx_torch_pool_restore(0, 12, 0, bad, 2, freed, 4, &freed_count), -1);
  int outside = 0;
  mrctx_torch_pool_block stranger = {&outside, 512, s};
  assert_int_equal(mrctx_torch_pool_restore(0, 12, 0, &stranger, 1, freed, 4, &freed_count), -1);
  assert_int_equal(mrctx_torch_pool_restore(0, 13, 0, saved, 2, freed, 4, &freed_count), -1);
  void *live[4];
  assert_int_equal(mrctx_torch_pool_live(0, 12, 0, live, 4), 1);
  assert_ptr_equal(live[0], z);
  /* Restored: z is freed, x and y are live again where they were. */
  assert_int_equal(mrctx_torch_pool_restore(0, 12, 0, saved, 2, freed, 4, &freed_count), 0);
  assert_int_equal(freed_count, 1);
  assert_ptr_equal(freed[0], z);
  assert_int_equal(mrctx_torch_pool_live(0, 12, 0, live, 4), 2);
  assert_true((live[0] == x && live[1] == y) || (live[0] == y && live[1] == x));
  assert_int_equal(pools_now().live_bytes, (unsigned long long)(8 * MiB));
  free0(x, 3 * MiB, s);
  free0(y, 5 * MiB, s);
  assert_int_equal(pools_now().free_blocks, 1);
  mrctx_torch_pools_end_c(0, 12, 0);
  mrctx_torch_pools_release_c(0, 12, 0);
  assert_int_equal(pools_now().held_bytes, 0);
  assert_int_equal(tag_bytes(), base);
  fake_cu()->cuStreamDestroy(s);
}

/* Threads allocating and freeing in one pool at once (use_mem_pool's
 * filter takes every stream), each on its own stream, with sizes that make
 * the pool split and merge all the time: no two live blocks overlap (each
 * thread fills its blocks and checks them before freeing; fake device
 * memory is host memory), and every segment goes back at the release. */
typedef struct pool_worker {
  pthread_t thread;
  int seed;
  int problems;
  char first_problem[160];
} pool_worker;

static void *pool_worker_main(void *arg) {
  pool_worker *w = arg;
  fake_bind(0);
  CUstream mine = NULL;
  if (mri_cuda()->cuStreamCreate(&mine, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    w->problems++;
    return NULL;
  }
  enum { LIVE = 12 };
  unsigned char *ptrs[LIVE] = {0};
  ssize_t sizes[LIVE] = {0};
  unsigned seed = (unsigned)w->seed;
  for (int round = 0; round < 600; round++) {
    int slot = (int)(rand_r(&seed) % LIVE);
    if (ptrs[slot] != NULL) {
      unsigned char mark = (unsigned char)(w->seed * 16 + slot);
      for (ssize_t k = 0; k < sizes[slot]; k += 4093)
        if (ptrs[slot][k] != mark && w->problems++ == 0)
          snprintf(w->first_problem, sizeof w->first_problem, "block %p overwritten at %zd",
                   (void *)ptrs[slot], k);
      mrctx_torch_route0_free(ptrs[slot], sizes[slot], 0, mine);
      ptrs[slot] = NULL;
      continue;
    }
    /* 512 B to 12 MiB: small and large kinds, splits and whole segments */
    ssize_t size = (ssize_t)(1 + rand_r(&seed) % 24) * (rand_r(&seed) % 2 ? 512 * 1024 : 1000);
    mr_status st = MR_ERR_STATE;
    unsigned char *ptr = mrctx_torch_route0_alloc(size, 0, mine, &st);
    if (st != MR_OK || ptr == NULL) {
      if (w->problems++ == 0)
        snprintf(w->first_problem, sizeof w->first_problem, "alloc of %zd failed", size);
      break;
    }
    unsigned char mark = (unsigned char)(w->seed * 16 + slot);
    for (ssize_t k = 0; k < size; k += 4093) ptr[k] = mark;
    ptrs[slot] = ptr;
    sizes[slot] = size;
  }
  for (int slot = 0; slot < LIVE; slot++)
    if (ptrs[slot] != NULL) mrctx_torch_route0_free(ptrs[slot], sizes[slot], 0, mine);
  mri_cuda()->cuStreamSynchronize(mine);
  mri_cuda()->cuStreamDestroy(mine);
  return NULL;
}

static void test_threads_split_and_merge_in_one_pool(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  uint64_t base = tag_bytes();
  mrctx_torch_pools_begin_c(0, 14, 0, NULL, NULL);
  pool_worker workers[WORKERS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < WORKERS; i++) {
    workers[i].seed = i + 1;
    assert_int_equal(pthread_create(&workers[i].thread, NULL, pool_worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < WORKERS; i++) {
    pthread_join(workers[i].thread, NULL);
    if (workers[i].problems) fail_msg("worker %d: %s", i, workers[i].first_problem);
  }
  mrctx_torch_pools_info info = pools_now();
  assert_int_equal(info.live_blocks, 0);
  assert_int_equal(info.free_blocks, info.segments); /* every segment merged whole again */
  mrctx_torch_pools_end_c(0, 14, 0);
  mrctx_torch_pools_release_c(0, 14, 0);
  info = pools_now();
  assert_int_equal(info.pools, 0);
  assert_int_equal(info.held_bytes, 0);
  assert_int_equal(tag_bytes(), base);
}

/* MemPool(use_on_oom=True): threads allocating on one stream of a 16 MiB
 * device, where the tag soon runs out, borrow the pool's free blocks at
 * once; no block is handed to two of them, every borrowed block goes back
 * to the pool, and the pool without the flag lends nothing. */
typedef struct lender_worker {
  pthread_t thread;
  CUstream stream;
  int seed;
  int problems;
  atomic_int *borrowed;
  char *pool_base;
  size_t pool_size;
  char first_problem[160];
} lender_worker;

static void *lender_worker_main(void *arg) {
  lender_worker *w = arg;
  fake_bind(1);
  unsigned seed = (unsigned)w->seed;
  for (int round = 0; round < 150; round++) {
    ssize_t size = (ssize_t)(1 + rand_r(&seed) % 3) * MiB;
    mr_status st = MR_ERR_STATE;
    unsigned char *ptr = mrctx_torch_route0_alloc(size, 1, w->stream, &st);
    if (ptr == NULL) {
      if (st != MR_ERR_OUT_OF_MEMORY && w->problems++ == 0)
        snprintf(w->first_problem, sizeof w->first_problem, "alloc of %zd: status %d", size,
                 (int)st);
      continue;
    }
    if ((char *)ptr >= w->pool_base && (char *)ptr < w->pool_base + w->pool_size)
      atomic_fetch_add(w->borrowed, 1);
    unsigned char mark = (unsigned char)(w->seed * 16 + round % 16);
    for (ssize_t k = 0; k < size; k += 4093) ptr[k] = mark;
    sched_yield(); /* let the others allocate while this block is live */
    for (ssize_t k = 0; k < size; k += 4093)
      if (ptr[k] != mark && w->problems++ == 0)
        snprintf(w->first_problem, sizeof w->first_problem, "block %p overwritten at %zd",
                 (void *)ptr, k);
    mrctx_torch_route0_free(ptr, size, 1, w->stream);
  }
  return NULL;
}

static void test_use_on_oom_pool_lends_to_threads(void **state) {
  (void)state;
  size_t total = short_device_1();
  assert_int_equal(mr_release_idle(1, 0, NULL), MR_OK); /* start with nothing idle there */
  uint64_t base = tag_bytes();
  CUstream s = fake_new_stream();
  /* A pool that does not exist is not made by setUseOnOOM. */
  mrctx_torch_pools_set_use_on_oom(1, 0, 31, 1);
  mrctx_torch_pools_info info;
  mrctx_torch_pools_read(1, &info);
  assert_int_equal(info.pools, 0);
  /* MemPool(use_on_oom=True): 8 MiB of the pool, free; one without the
   * flag holds 4 MiB free. */
  mrctx_torch_pools_incref(1, 0, 16);
  mrctx_torch_pools_set_use_on_oom(1, 0, 16, 1);
  mrctx_torch_pools_begin_c(1, 0, 16, only_stream, s);
  void *lent = alloc_on(1, 8 * MiB, s);
  mrctx_torch_pools_end_c(1, 0, 16);
  mrctx_torch_pools_release_c(1, 0, 16); /* use_mem_pool's exit; the MemPool holds it */
  mrctx_torch_pools_incref(1, 0, 17);
  mrctx_torch_pools_begin_c(1, 0, 17, only_stream, s);
  void *kept = alloc_on(1, 4 * MiB, s);
  mrctx_torch_pools_end_c(1, 0, 17);
  mrctx_torch_pools_release_c(1, 0, 17);
  mrctx_torch_route0_free(lent, 8 * MiB, 1, s);
  mrctx_torch_route0_free(kept, 4 * MiB, 1, s);
  void *seg_base[2] = {0};
  size_t seg_size[2] = {0};
  assert_int_equal(mrctx_torch_pool_segments(1, 0, 16, seg_base, seg_size, 2), 1);

  atomic_int borrowed = 0;
  lender_worker workers[WORKERS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < WORKERS; i++) {
    workers[i] = (lender_worker){.stream = s,
                                 .seed = i + 1,
                                 .borrowed = &borrowed,
                                 .pool_base = seg_base[0],
                                 .pool_size = seg_size[0]};
    assert_int_equal(pthread_create(&workers[i].thread, NULL, lender_worker_main, &workers[i]), 0);
  }
  for (int i = 0; i < WORKERS; i++) {
    pthread_join(workers[i].thread, NULL);
    if (workers[i].problems) fail_msg("worker %d: %s", i, workers[i].first_problem);
  }
  print_message("blocks lent by the use_on_oom pool: %d\n", atomic_load(&borrowed));
  assert_true(atomic_load(&borrowed) > 0);
  mrctx_torch_pools_read(1, &info);
  assert_int_equal(info.live_blocks, 0);
  assert_int_equal(info.free_blocks, info.segments); /* each merged whole again */
  assert_int_equal(info.held_bytes, (unsigned long long)(12 * MiB));

  /* Without the flag nothing is lent: 8 MiB free in the pool, and a tag
   * that cannot give 10 MiB on a device with 4 MiB left. */
  mrctx_torch_pools_set_use_on_oom(1, 0, 16, 0);
  mr_status st = MR_ERR_STATE;
  assert_null(mrctx_torch_route0_alloc(6 * MiB, 1, s, &st));
  assert_int_equal(st, MR_ERR_OUT_OF_MEMORY);
  mrctx_torch_pools_release_c(1, 0, 16); /* the MemPools die */
  mrctx_torch_pools_release_c(1, 0, 17);
  mrctx_torch_pools_read(1, &info);
  assert_int_equal(info.pools, 0);
  assert_int_equal(tag_bytes(), base);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_set_total_memory(1, total), CUDA_SUCCESS);
  fake_bind(0);
}

/* PyTorch's device statistics from route 0 (_torch_stats.c): a graph's
 * free blocks count reserved, not allocated; resetAccumulatedStats starts
 * the totals again; bad input is refused with a message. */
static void test_device_statistics_of_route0(void **state) {
  (void)state;
  fake_bind(0);
  bind_route0();
  mrctx_torch_device_stats before, now;
  assert_int_equal(mrctx_torch_route_reset_accumulated(0, 0), MR_OK);
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, &before), MR_OK);
  assert_int_equal(before.allocation.allocated, 0);
  CUstream s = fake_new_stream();
  void *plain = alloc0(3 * MiB, s);
  mrctx_torch_pools_begin_c(0, 18, 0, only_stream, s);
  void *graph = alloc0(MiB, s); /* a 2 MiB small segment of the pool */
  mrctx_torch_pools_end_c(0, 18, 0);
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, &now), MR_OK);
  assert_int_equal(now.allocation.allocated, 2); /* the 3 MiB block and the pool's segment */
  /* The segment's free MiB is the pool's: reserved, not allocated. */
  assert_int_equal(now.allocated_bytes.current - before.allocated_bytes.current, 4 * MiB);
  assert_true(now.reserved_bytes.current >= now.allocated_bytes.current + MiB);
  mrctx_torch_route0_free(graph, MiB, 0, s);
  mrctx_torch_pools_release_c(0, 18, 0);
  mrctx_torch_route0_free(plain, 3 * MiB, 0, s);
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, &now), MR_OK);
  assert_int_equal(now.allocation.freed, 2);
  assert_int_equal(now.allocated_bytes.current, before.allocated_bytes.current);
  assert_int_equal(mrctx_torch_route_reset_accumulated(0, 0), MR_OK);
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, &now), MR_OK);
  assert_int_equal(now.allocation.allocated, 0);
  assert_int_equal(now.allocated_bytes.freed, 0);
  assert_int_equal(mrctx_torch_route_reset_peak(0, 0), MR_OK);
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, &now), MR_OK);
  assert_int_equal(now.allocated_bytes.peak, now.allocated_bytes.current);

  assert_int_equal(mrctx_torch_route_device_stats(0, 99, &now), MR_ERR_NO_DEVICE);
  assert_non_null(strstr(mr_last_error(), "device 99"));
  assert_int_equal(mrctx_torch_route_device_stats(5, 0, &now), MR_ERR_STATE);
  assert_non_null(strstr(mr_last_error(), "not bound"));
  assert_int_equal(mrctx_torch_route_device_stats(0, 0, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_int_equal(mrctx_torch_route_reset_accumulated(0, -1), MR_ERR_NO_DEVICE);
  char why[256] = "";
  assert_int_equal(mrctx_torch_read_device_stats(-3, &now, why, sizeof why), -1);
  assert_non_null(strstr(why, "device -3"));
  fake_cu()->cuStreamDestroy(s);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capture_while_threads_allocate),
      cmocka_unit_test(test_outputs_freed_while_the_pool_is_released),
      cmocka_unit_test(test_release_during_another_capture_waits),
      cmocka_unit_test(test_segments_split_merge_and_best_fit),
      cmocka_unit_test(test_block_used_on_another_stream_is_kept),
      cmocka_unit_test(test_segment_of_the_size_asked_when_memory_is_short),
      cmocka_unit_test(test_checkpoint_restored_after_the_blocks_were_cut_again),
      cmocka_unit_test(test_threads_split_and_merge_in_one_pool),
      cmocka_unit_test(test_use_on_oom_pool_lends_to_threads),
      cmocka_unit_test(test_device_statistics_of_route0),
  };
  return cmocka_run_group_tests(tests, fake_group_setup, NULL);
}
