/*
 * test_streams_fake.c: arena and fixed over the fake driver: memory freed
 * on a busy stream is not handed to another stream; allocations on a
 * capturing stream bypass the reuse (graph safety); trim waits for the
 * device and then gives everything back.
 */
#include <stdlib.h>

#include "adaptors/adaptors_internal.h"
#include "fake_test.h"

typedef mr_status (*make_fn)(mr_resource *up, mr_resource **out);

static mr_status make_arena(mr_resource *up, mr_resource **out) {
  return mr_arena_resource_create(up, 1 << 20, out);
}

static mr_status make_fixed(mr_resource *up, mr_resource **out) {
  return mr_fixed_resource_create(up, 64 << 10, 4, out);
}

static mr_resource *over_device(make_fn make) {
  mr_resource *device = NULL, *mr = NULL;
  assert_ok(mr_device_resource_create(0, &device));
  assert_ok(make(device, &mr));
  mr_resource_release(device);
  return mr;
}

static void capture_bypasses(make_fn make) {
  mr_resource *mr = over_device(make);
  CUstream s = fake_new_stream();
  void *before = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &before));
  assert_ok(mr_deallocate(mr, before, 4096, 0, (mr_stream)s));
  long live = fake_cuda_live_allocations();
  assert_int_equal(fake_cuda_set_stream_capturing(s, true), CUDA_SUCCESS);
  void *p = NULL;
  assert_ok(mr_allocate(mr, 4096, 0, (mr_stream)s, &p));
  /* Its own upstream allocation, not memory the adaptor reuses. */
  assert_int_equal(fake_cuda_live_allocations(), live + 1);
  assert_ptr_not_equal(p, before);
  assert_ok(mr_deallocate(mr, p, 4096, 0, (mr_stream)s));
  assert_int_equal(fake_cuda_live_allocations(), live);
  assert_int_equal(fake_cuda_set_stream_capturing(s, false), CUDA_SUCCESS);
  /* A failing capture check fails the allocation cleanly. */
  fake_cuda_fail("cuStreamIsCapturing", 1, 1, CUDA_ERROR_INVALID_HANDLE);
  p = (void *)1;
  assert_status(mr_allocate(mr, 4096, 0, (mr_stream)s, &p), MR_ERR_DRIVER);
  assert_null(p);
  mr_resource_release(mr);
  fake_cu()->cuStreamDestroy(s);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

static void test_arena_capture(void **state) { capture_bypasses(make_arena); }
static void test_fixed_capture(void **state) { capture_bypasses(make_fixed); }

/* The arena's own stream reuses its chunk at once without any event; a
 * free by another stream records one; trim synchronizes and returns all. */
static void test_arena_events_and_trim(void **state) {
  mr_resource *arena = over_device(make_arena);
  CUstream a = fake_new_stream(), b = fake_new_stream();
  long records = fake_cuda_calls("cuEventRecord");
  void *p = NULL, *q = NULL;
  for (int i = 0; i < 100; i++) {
    assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)a, &p));
    if (q == NULL) q = p;
    assert_ptr_equal(p, q); /* the emptied chunk restarts at its base */
    assert_ok(mr_deallocate(arena, p, 1000, 0, (mr_stream)a));
  }
  assert_int_equal(fake_cuda_calls("cuEventRecord"), records);
  /* Allocated on A, freed on B while B is busy: A's chunk may not restart
   * before B got past the free. */
  assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)a, &p));
  assert_int_equal(fake_cuda_set_stream_busy(b, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(arena, p, 1000, 0, (mr_stream)b));
  assert_int_equal(fake_cuda_calls("cuEventRecord"), records + 1);
  void *r = NULL;
  assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)a, &r));
  assert_ptr_not_equal(r, p);
  assert_ok(mr_deallocate(arena, r, 1000, 0, (mr_stream)a));
  assert_int_equal(fake_cuda_set_stream_busy(b, false), CUDA_SUCCESS);
  long syncs = fake_cuda_calls("cuCtxSynchronize");
  assert_ok(mr_resource_trim(arena));
  assert_true(fake_cuda_calls("cuCtxSynchronize") > syncs);
  size_t chunks = 99, idle = 99, large = 99;
  assert_ok(mri_arena_counts(arena, &chunks, &idle, &large));
  assert_int_equal(chunks, 0);
  mr_resource_release(arena);
  fake_cu()->cuStreamDestroy(a);
  fake_cu()->cuStreamDestroy(b);
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

/* Streams tell apart by ID: a chunk current for a destroyed stream is not
 * the new stream's, though the new stream has its handle. Once the arena
 * has served two streams, an emptied current chunk carries an event, and
 * a stream without a chunk takes it over once the event completed. */
static void test_arena_takes_over_abandoned_chunks(void **state) {
  mr_resource *arena = over_device(make_arena);
  CUstream first = fake_new_stream();
  void *p = NULL, *q = NULL;
  assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)first, &p));
  assert_ok(mr_deallocate(arena, p, 1000, 0, (mr_stream)first));
  fake_cu()->cuStreamDestroy(first);
  for (int round = 0; round < 8; round++) {
    CUstream s = fake_new_stream();
    assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)s, &q));
    assert_int_equal(fake_cuda_set_stream_busy(s, true), CUDA_SUCCESS);
    assert_ok(mr_deallocate(arena, q, 1000, 0, (mr_stream)s));
    fake_cu()->cuStreamDestroy(s);
    /* The work of the destroyed stream finishes. */
    assert_int_equal(fake_cu()->cuCtxSynchronize(NULL), CUDA_SUCCESS);
  }
  size_t chunks = 0, idle = 0, large = 0;
  assert_ok(mri_arena_counts(arena, &chunks, &idle, &large));
  /* The first stream's chunk (emptied before a second stream came) and one
   * taken over from stream to stream; not one per stream. */
  assert_true(chunks <= 3);
  /* While the owner's work still runs, its chunk is not taken over. */
  CUstream a = fake_new_stream(), b = fake_new_stream();
  assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)a, &p));
  assert_int_equal(fake_cuda_set_stream_busy(a, true), CUDA_SUCCESS);
  assert_ok(mr_deallocate(arena, p, 1000, 0, (mr_stream)a));
  fake_cu()->cuStreamDestroy(a);
  CUstream c = fake_new_stream();
  assert_ptr_equal(c, a); /* the fake hands the handle on */
  assert_ok(mr_allocate(arena, 1000, 0, (mr_stream)c, &q));
  assert_ptr_not_equal(q, p);
  assert_ok(mr_deallocate(arena, q, 1000, 0, (mr_stream)c));
  assert_int_equal(fake_cu()->cuCtxSynchronize(NULL), CUDA_SUCCESS);
  assert_ok(mr_resource_trim(arena));
  assert_ok(mri_arena_counts(arena, &chunks, &idle, &large));
  assert_int_equal(chunks, 0);
  mr_resource_release(arena);
  fake_cu()->cuStreamDestroy(b);
  fake_cu()->cuStreamDestroy(c);
  assert_int_equal(fake_cuda_live_allocations(), 0);
  assert_int_equal(fake_cuda_live_events(), 0);
}

/* Over sync_device (frees immediate, memory device work may still use) the
 * adaptors that keep freed memory reuse it in stream order, and say so;
 * those that pass every call on report their upstream's order. */
static void test_keepers_report_stream_order(void **state) {
  static const struct {
    const char *spec;
    bool stream_ordered;
  } cases[] = {
      {"arena(sync_device, chunk=1MiB)", true},
      {"fixed(sync_device, block=64KiB, count=1)", true},
      {"bin(sync_device, min=256B, max=1KiB, count=1)", true},
      {"cache(sync_device)", true},
      {"stats(sync_device)", false},
      {"retry(sync_device)", false},
      {"arena(device, chunk=1MiB)", true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(cases[i].spec, 0, &mr));
    mr_resource_props props = {.size = sizeof props};
    assert_ok(mr_resource_get_props(mr, &props));
    if (props.stream_ordered != cases[i].stream_ordered) {
      print_error("%s: stream_ordered is %d\n", cases[i].spec, props.stream_ordered);
      fail();
    }
    mr_resource_release(mr);
  }
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

/* Memory of a sync_* resource cannot be graph-safe: freeing it waits for
 * the stream, which a capture forbids. So a capture neither gets it nor
 * frees it: the allocation is refused as the free is, through every chain
 * over a sync_* resource (the keepers pass a capture's requests straight
 * upstream), and the capture stays valid. A created stream and the
 * per-thread stream; after the capture both work again. */
static void test_sync_refused_during_capture(void **state) {
  static const char *const specs[] = {
      "sync_device",
      "sync_pinned",
      "sync_managed",
      "arena(sync_device, chunk=1MiB)",
      "fixed(sync_pinned, block=64KiB, count=1)",
      "bin(sync_managed, min=256B, max=8KiB, count=1)",
      "cache(sync_device)",
      "track(sync_pinned)",
      "stats(sync_managed)",
      "retry(sync_device)",
      "limit(sync_device, bytes=1GiB)",
      "align(sync_pinned, alignment=4KiB)",
  };
  const mri_cuda_api *cu = fake_cu();
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(specs[i], 0, &mr));
    CUstream created = fake_new_stream();
    const mr_stream streams[] = {(mr_stream)created, (mr_stream)CU_STREAM_PER_THREAD};
    for (size_t k = 0; k < MRI_ARRAY_SIZE(streams); k++) {
      CUstream s = (CUstream)streams[k];
      void *before = NULL;
      assert_ok(mr_allocate(mr, 4096, 0, streams[k], &before));
      long live = fake_cuda_live_allocations();
      assert_int_equal(cu->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL), CUDA_SUCCESS);
      void *p = (void *)1;
      mr_status st = mr_allocate(mr, 4096, 0, streams[k], &p);
      if (st != MR_ERR_UNSUPPORTED || p != NULL || strstr(mr_last_error(), "captur") == NULL ||
          strstr(mr_last_error(), "sync_") == NULL) {
        print_error("%s on %s: an allocation during a capture returned %s (%p): %s\n", specs[i],
                    k == 0 ? "a created stream" : "the per-thread stream", mr_status_name(st), p,
                    mr_last_error());
        fail();
      }
      assert_int_equal(fake_cuda_live_allocations(), live); /* nothing was taken */
      if (strncmp(specs[i], "sync_", 5) == 0) {
        /* The plain resource refuses the free too (the keepers require
         * that memory freed during a capture was allocated in it). */
        assert_status(mr_deallocate(mr, before, 4096, 0, streams[k]), MR_ERR_UNSUPPORTED);
        assert_error_contains("captur");
      }
      CUgraph graph = NULL;
      assert_int_equal(cu->cuStreamEndCapture(s, &graph), CUDA_SUCCESS); /* still valid */
      assert_ok(mr_allocate(mr, 4096, 0, streams[k], &p));
      assert_ok(mr_deallocate(mr, p, 4096, 0, streams[k]));
      assert_ok(mr_deallocate(mr, before, 4096, 0, streams[k]));
    }
    mr_resource_release(mr);
    cu->cuStreamDestroy(created);
  }
  assert_int_equal(fake_cuda_live_allocations(), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_arena_capture, fake_test_setup),
      cmocka_unit_test_setup(test_fixed_capture, fake_test_setup),
      cmocka_unit_test_setup(test_arena_events_and_trim, fake_test_setup),
      cmocka_unit_test_setup(test_arena_takes_over_abandoned_chunks, fake_test_setup),
      cmocka_unit_test_setup(test_keepers_report_stream_order, fake_test_setup),
      cmocka_unit_test_setup(test_sync_refused_during_capture, fake_test_setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
