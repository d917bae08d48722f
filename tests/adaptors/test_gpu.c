/*
 * gpu: the adaptors over the driver's device, pinned and managed resources
 * on a real GPU (exit 77 without one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "adaptor_test.h"
#include "gpu_util.h"

#define SPIN_NS 200000000ULL /* 200 ms: long enough to still run when we look */

static char log_path[512];

typedef mr_status (*base_maker)(int device, mr_resource **out);

static const struct {
  const char *name;
  base_maker make;
  mr_memory_kind kind;
} bases[] = {
    {"device", mr_device_resource_create, MR_MEMORY_DEVICE},
    {"pinned", mr_pinned_resource_create, MR_MEMORY_PINNED},
    {"managed", mr_managed_resource_create, MR_MEMORY_MANAGED},
};

static mr_status make_adaptor(int which, mr_resource *up, mr_resource **out) {
  switch (which) {
  case 0:
    return mr_stats_resource_create(up, out);
  case 1:
    return mr_log_resource_create(up, log_path, out);
  case 2:
    return mr_limit_resource_create(up, (size_t)1 << 30, out);
  case 3:
    return mr_align_resource_create(up, 4096, out);
  case 4:
    return mr_arena_resource_create(up, (size_t)1 << 20, out);
  case 5:
    return mr_fixed_resource_create(up, (size_t)1 << 20, 4, out);
  case 6:
    return mr_bin_resource_create(up, 256, (size_t)1 << 16, 4, out);
  case 7:
    return mr_retry_resource_create(up, 0, NULL, NULL, out);
  default:
    return mr_track_resource_create(up, out);
  }
}
#define ADAPTOR_COUNT 9

static void use_memory(mr_resource *mr, mr_stream s, const char *what) {
  static const size_t sizes[] = {1000, 300000, (size_t)3 << 20, 256};
  static const size_t alignments[] = {0, 0, 0, 4096};
  void *p[4] = {0};
  for (int i = 0; i < 4; i++) {
    mr_status st = mr_allocate(mr, sizes[i], alignments[i], s, &p[i]);
    if (st != MR_OK) fail_msg("%s: allocating %zu: %s", what, sizes[i], mr_last_error());
    size_t align = alignments[i] ? alignments[i] : 256;
    if ((uintptr_t)p[i] % align != 0) fail_msg("%s: %p not aligned to %zu", what, p[i], align);
    gpu_fill(p[i], sizes[i], (unsigned char)(0x40 + i), s);
  }
  for (int i = 0; i < 4; i++)
    if (!gpu_all_equal(p[i], sizes[i], (unsigned char)(0x40 + i), s))
      fail_msg("%s: block %d (%zu bytes at %p) does not hold what the kernel wrote", what, i,
               sizes[i], p[i]);
  for (int i = 0; i < 4; i++) assert_ok(mr_deallocate(mr, p[i], sizes[i], alignments[i], s));
  /* Reuse after the frees, on the same stream: still works. */
  void *q = NULL;
  assert_ok(mr_allocate(mr, 5000, 0, s, &q));
  gpu_fill(q, 5000, 0x7e, s);
  if (!gpu_all_equal(q, 5000, 0x7e, s)) fail_msg("%s: reused block is wrong", what);
  assert_ok(mr_deallocate(mr, q, 5000, 0, s));
}

static void test_every_adaptor_over_every_base(void **state) {
  mr_stream s = gpu_stream_create();
  for (size_t b = 0; b < MRI_ARRAY_SIZE(bases); b++) {
    mr_resource *base = NULL;
    if (bases[b].make(0, &base) != MR_OK) fail_msg("%s: %s", bases[b].name, mr_last_error());
    for (int a = 0; a < ADAPTOR_COUNT; a++) {
      mr_resource *mr = NULL;
      if (make_adaptor(a, base, &mr) != MR_OK)
        fail_msg("adaptor %d over %s: %s", a, bases[b].name, mr_last_error());
      char what[256];
      snprintf(what, sizeof what, "%s", mr_resource_describe(mr));
      print_message("  %s\n", what);
      mr_resource_props props = {.size = sizeof props};
      assert_ok(mr_resource_get_props(mr, &props));
      assert_int_equal(props.kind, bases[b].kind);
      assert_true(props.device_accessible);
      use_memory(mr, s, what);
      use_memory(mr, NULL, what);
      assert_ok(mr_resource_synchronize(mr, s));
      assert_ok(mr_resource_trim(mr));
      if (a == 1) {
        assert_ok(mr_log_resource_flush(mr));
        log_summary sum = log_check(log_path);
        assert_int_equal(sum.format_errors, 0);
        assert_int_equal(sum.unmatched, 0);
        assert_int_equal(sum.allocates, 10);
        assert_int_equal(sum.frees, 10);
      }
      mr_resource_release(mr);
    }
    mr_resource_release(base);
  }
  gpu_stream_destroy(s);
}

static bool still_running(mr_stream s) {
  CUresult r = mri_cuda()->cuStreamQuery((CUstream)s);
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY)
    fail_msg("cuStreamQuery: %s", mri_cuda_error_name(r));
  return r == CUDA_ERROR_NOT_READY;
}

static bool overlaps(const void *a, size_t an, const void *b, size_t bn) {
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x < y + bn && y < x + an;
}

/* A slow kernel on A, its chunk freed on A and wanted on B: B must not get
 * it while A runs; once A is done, B may. */
static void arena_cross_stream(base_maker make, const char *name) {
  const size_t chunk = (size_t)1 << 20;
  mr_resource *base = NULL, *mr = NULL;
  assert_ok(make(0, &base));
  assert_ok(mr_arena_resource_create(base, chunk, &mr));
  mr_stream a = gpu_stream_create(), b = gpu_stream_create();
  void *whole = NULL, *next = NULL, *other = NULL, *again = NULL;
  assert_ok(mr_allocate(mr, chunk, 0, a, &whole));
  gpu_fill(whole, chunk, 1, a);
  gpu_spin(a, SPIN_NS);
  /* The next allocation on A retires the full chunk; freeing its one
   * allocation on A makes it idle, waiting on A. */
  assert_ok(mr_allocate(mr, 256, 0, a, &next));
  assert_ok(mr_deallocate(mr, whole, chunk, 0, a));
  assert_ok(mr_allocate(mr, chunk, 0, b, &other));
  bool running = still_running(a);
  if (!running) fail_msg("%s: the spin kernel finished too early to prove anything", name);
  if (overlaps(other, chunk, whole, chunk))
    fail_msg("%s arena: B got %p, inside the chunk at %p freed on A while A still runs", name,
             other, whole);
  /* Same stream: A may reuse at once, even while it runs... */
  void *same = NULL;
  assert_ok(mr_allocate(mr, 256, 0, a, &same));
  assert_ptr_equal(same, (char *)next + 256);
  assert_ok(mr_deallocate(mr, same, 256, 0, a));
  /* ...and once A is done, B gets the idle chunk. */
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)a));
  assert_ok(mr_allocate(mr, chunk, 0, b, &again));
  if (again != whole)
    fail_msg("%s arena: after A finished, B got %p, not the idle chunk %p", name, again, whole);
  gpu_fill(again, chunk, 2, b);
  assert_true(gpu_all_equal(again, chunk, 2, b));
  assert_ok(mr_deallocate(mr, again, chunk, 0, b));
  assert_ok(mr_deallocate(mr, other, chunk, 0, b));
  assert_ok(mr_deallocate(mr, next, 256, 0, a));
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)b));
  mr_resource_release(mr);
  mr_resource_release(base);
  gpu_stream_destroy(a);
  gpu_stream_destroy(b);
}

static void fixed_cross_stream(base_maker make, const char *name) {
  const size_t block = (size_t)1 << 20;
  mr_resource *base = NULL, *mr = NULL;
  assert_ok(make(0, &base));
  assert_ok(mr_fixed_resource_create(base, block, 1, &mr));
  mr_stream a = gpu_stream_create(), b = gpu_stream_create();
  void *first = NULL, *same = NULL, *other = NULL, *again = NULL;
  assert_ok(mr_allocate(mr, block, 0, a, &first));
  gpu_fill(first, block, 3, a);
  gpu_spin(a, SPIN_NS);
  assert_ok(mr_deallocate(mr, first, block, 0, a));
  /* Same stream: at once, while A still runs. */
  assert_ok(mr_allocate(mr, block, 0, a, &same));
  assert_ptr_equal(same, first);
  assert_ok(mr_deallocate(mr, same, block, 0, a));
  /* Another stream: not while A runs (the fixed resource grows instead). */
  assert_ok(mr_allocate(mr, block, 0, b, &other));
  bool running = still_running(a);
  if (!running) fail_msg("%s: the spin kernel finished too early to prove anything", name);
  if (other == first)
    fail_msg("%s fixed: B got block %p freed on A while A still runs", name, first);
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)a));
  assert_ok(mr_allocate(mr, block, 0, b, &again));
  if (again != first)
    fail_msg("%s fixed: after A finished, B got %p, not the free block %p", name, again, first);
  gpu_fill(again, block, 4, b);
  assert_true(gpu_all_equal(again, block, 4, b));
  assert_ok(mr_deallocate(mr, again, block, 0, b));
  assert_ok(mr_deallocate(mr, other, block, 0, b));
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)b));
  mr_resource_release(mr);
  mr_resource_release(base);
  gpu_stream_destroy(a);
  gpu_stream_destroy(b);
}

static void test_arena_cross_stream(void **state) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(bases); i++)
    arena_cross_stream(bases[i].make, bases[i].name);
}

static void test_fixed_cross_stream(void **state) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(bases); i++)
    fixed_cross_stream(bases[i].make, bases[i].name);
}

/* Threads on streams of their own through the stream-ordered adaptors. */
typedef struct gpu_churn {
  mr_resource *mr;
  _Atomic long bad;
} gpu_churn;

static void gpu_churn_thread(void *arg, int index) {
  gpu_churn *c = arg;
  gpu_bind_thread();
  mr_stream s = gpu_stream_create();
  uint64_t rng = 77 + (uint64_t)index;
  for (int r = 0; r < 200; r++) {
    size_t bytes = 256 + (size_t)(test_rand(&rng) % (300 << 10));
    void *p = NULL;
    if (mr_allocate(c->mr, bytes, 0, s, &p) != MR_OK) {
      atomic_fetch_add(&c->bad, 1);
      continue;
    }
    unsigned char v = (unsigned char)(index * 31 + r);
    gpu_fill(p, bytes, v, s);
    if (r % 20 == 0 && !gpu_all_equal(p, bytes, v, s)) atomic_fetch_add(&c->bad, 1);
    if (mr_deallocate(c->mr, p, bytes, 0, s) != MR_OK) atomic_fetch_add(&c->bad, 1);
  }
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  gpu_stream_destroy(s);
}

static void test_threads_on_own_streams(void **state) {
  mr_resource *base = NULL;
  assert_ok(mr_device_resource_create(0, &base));
  for (int which = 4; which <= 6; which++) {
    gpu_churn c = {0};
    atomic_init(&c.bad, 0);
    assert_ok(make_adaptor(which, base, &c.mr));
    run_threads(8, gpu_churn_thread, &c);
    assert_int_equal(atomic_load(&c.bad), 0);
    assert_ok(mr_resource_trim(c.mr));
    mr_resource_release(c.mr);
  }
  mr_resource_release(base);
}

int main(void) {
  GPU_TEST_REQUIRE();
  const char *dir = getenv("TMPDIR");
  snprintf(log_path, sizeof log_path, "%s/mrctx-gpu-log-%ld.csv",
           dir != NULL && dir[0] != '\0' ? dir : "/tmp", (long)getpid());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_adaptor_over_every_base),
      cmocka_unit_test(test_arena_cross_stream),
      cmocka_unit_test(test_fixed_cross_stream),
      cmocka_unit_test(test_threads_on_own_streams),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(log_path);
  return rc;
}
