/*
 * held_streams.c: see held_streams.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "held_streams.h"

static volatile cuuint32_t *gate;

void held_streams_init(unsigned seconds) {
  const mri_cuda_api *cu = mri_cuda();
  void *word = NULL;
  CUresult r = cu->cuMemHostAlloc(&word, sizeof(cuuint32_t),
                                  CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "held streams: no pinned gate word: %s\n", mri_cuda_error_name(r));
    abort();
  }
  gate = word;
  *gate = 0;
  /* A held stream must never hang the suite: a last resort, scaled as
   * meson's timeout is on a slow machine (test_watchdog_seconds). */
  alarm(test_watchdog_seconds(seconds));
}

static CUstream stream_create(void) {
  CUstream s = NULL;
  CUresult r = mri_cuda()->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
  if (r != CUDA_SUCCESS) {
    print_error("cuStreamCreate: %s\n", mri_cuda_error_name(r));
    fail();
  }
  return s;
}

/* Hold `s` until held_release(); then fill `p` with `v`: the late write. */
static void held_hold_and_fill(CUstream s, void *p, size_t n, unsigned char v) {
  const mri_cuda_api *cu = mri_cuda();
  *gate = 0;
  CUresult r =
      cu->cuStreamWaitValue32(s, (CUdeviceptr)(uintptr_t)gate, 1, CU_STREAM_WAIT_VALUE_GEQ);
  if (r == CUDA_SUCCESS) r = cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p, v, n, s);
  if (r != CUDA_SUCCESS) {
    *gate = 1;
    print_error("holding a stream: %s\n", mri_cuda_error_name(r));
    fail();
  }
}

static void held_release(void) { __atomic_store_n(gate, 1, __ATOMIC_SEQ_CST); }

/* A free into a resource that hands the block straight to a synchronous
 * upstream (sync_*: larger than a fixed block, say) waits for the stream,
 * which waits for the gate: a watchman opens it after a while, and then
 * the block is truly free, so getting it back is right. The 2 s only
 * decide how long such a free waits: nothing asserts on time. A free that
 * returns after the watchman opened the gate (a synchronous one, or one a
 * busy machine made that slow) may get its block back; one that returned
 * before must not, whatever the clock says. */
static pthread_t watchman;
static volatile int watch_armed;

static void *watch(void *arg) {
  for (int i = 0; i < 200 && __atomic_load_n(&watch_armed, __ATOMIC_SEQ_CST); i++) usleep(10000);
  if (__atomic_load_n(&watch_armed, __ATOMIC_SEQ_CST)) held_release();
  return NULL;
}

static void watch_start(void) {
  __atomic_store_n(&watch_armed, 1, __ATOMIC_SEQ_CST);
  pthread_create(&watchman, NULL, watch, NULL);
}

/* True if the free returned only after the gate opened (it waited). */
static bool watch_stop(void) {
  bool waited = __atomic_load_n(gate, __ATOMIC_SEQ_CST) != 0;
  __atomic_store_n(&watch_armed, 0, __ATOMIC_SEQ_CST);
  pthread_join(watchman, NULL);
  return waited;
}

/* Fill `p` on `s` with `v` and wait for `s` (never held). */
static CUresult fill_now(void *p, size_t n, unsigned char v, CUstream s) {
  const mri_cuda_api *cu = mri_cuda();
  CUresult r = cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p, v, n, s);
  if (r == CUDA_SUCCESS) r = cu->cuStreamSynchronize(s);
  return r;
}

/* After every stream finished: true if every byte of `p` is `v`. */
static bool bytes_are(const void *p, size_t n, unsigned char v) {
  unsigned char *host = malloc(n);
  if (host == NULL) return false;
  const mri_cuda_api *cu = mri_cuda();
  bool ok = cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)p, n, NULL) ==
                CUDA_SUCCESS &&
            cu->cuStreamSynchronize(NULL) == CUDA_SUCCESS;
  for (size_t i = 0; i < n && ok; i++) ok = host[i] == v;
  free(host);
  return ok;
}

/* Fail, saying why, where the scenario's allocation (`st`), the fill of
 * the new block or the final synchronization failed. */
static void check_allocated(mr_resource *mr, const char *scenario, mr_status st, CUresult filled,
                            CUresult synced) {
  if (st != MR_OK) {
    print_error("%s: %s: allocation failed: %s\n", mr_resource_describe(mr), scenario,
                mr_last_error());
    fail();
  }
  if (filled != CUDA_SUCCESS || synced != CUDA_SUCCESS) {
    print_error("%s: %s: %s\n", mr_resource_describe(mr), scenario,
                mri_cuda_error_name(filled != CUDA_SUCCESS ? filled : synced));
    fail();
  }
}

/* The second half of scenarios 1-3: with the block X freed on a held
 * stream, allocate Y on `b`, write 2 there, release the gate, wait for
 * everything, then check Y is not X and still holds 2. */
static void allocate_elsewhere_and_check(mr_resource *mr, size_t bytes, void *x, CUstream b,
                                         bool free_waited, const char *scenario) {
  const mri_cuda_api *cu = mri_cuda();
  void *y = NULL;
  mr_status st = mr_allocate(mr, bytes, 0, (mr_stream)b, &y);
  CUresult filled = st == MR_OK ? fill_now(y, bytes, 2, b) : CUDA_SUCCESS;
  held_release();
  CUresult synced = cu->cuCtxSynchronize(NULL);
  check_allocated(mr, scenario, st, filled, synced);
  if (y == x && !free_waited) {
    print_error("%s: %s: the block freed on the held stream (%p) was handed out at once\n",
                mr_resource_describe(mr), scenario, x);
    fail();
  }
  if (!bytes_are(y, bytes, 2)) {
    print_error("%s: %s: the held stream's late write landed in %p\n", mr_resource_describe(mr),
                scenario, y);
    fail();
  }
  assert_ok(mr_deallocate(mr, y, bytes, 0, (mr_stream)b));
}

void held_other_stream(mr_resource *mr, size_t bytes) {
  CUstream a = stream_create(), b = stream_create();
  void *x = NULL;
  assert_ok(mr_allocate(mr, bytes, 0, (mr_stream)a, &x));
  held_hold_and_fill(a, x, bytes, 1);
  watch_start();
  mr_status st = mr_deallocate(mr, x, bytes, 0, (mr_stream)a);
  bool waited = watch_stop();
  if (st != MR_OK) held_release();
  assert_ok(st);
  allocate_elsewhere_and_check(mr, bytes, x, b, waited, "another stream");
  mri_cuda()->cuStreamDestroy(a);
  mri_cuda()->cuStreamDestroy(b);
}

void held_destroyed_stream(mr_resource *mr, size_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  CUstream a = stream_create();
  void *x = NULL;
  assert_ok(mr_allocate(mr, bytes, 0, (mr_stream)a, &x));
  held_hold_and_fill(a, x, bytes, 1);
  watch_start();
  mr_status st = mr_deallocate(mr, x, bytes, 0, (mr_stream)a);
  bool waited = watch_stop();
  cu->cuStreamDestroy(a); /* legal: the driver finishes A's work later */
  CUstream b = stream_create();
  if (st != MR_OK) held_release();
  assert_ok(st);
  if (b != a) fprintf(stderr, "note: the driver gave the new stream another handle\n");
  allocate_elsewhere_and_check(mr, bytes, x, b, waited,
                               "a stream created after destroying the held one");
  cu->cuStreamDestroy(b);
}

typedef struct exiting_thread {
  mr_resource *mr;
  size_t bytes;
  void *x;
  mr_status status;
  bool waited;
} exiting_thread;

static void *free_on_held_stream_and_exit(void *arg) {
  exiting_thread *t = arg;
  t->status = mri_ensure_context(0);
  if (t->status != MR_OK) return NULL;
  CUstream a = NULL;
  if (mri_cuda()->cuStreamCreate(&a, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS) {
    t->status = MR_ERR_DRIVER;
    return NULL;
  }
  t->status = mr_allocate(t->mr, t->bytes, 0, (mr_stream)a, &t->x);
  if (t->status == MR_OK) {
    *gate = 0;
    const mri_cuda_api *cu = mri_cuda();
    if (cu->cuStreamWaitValue32(a, (CUdeviceptr)(uintptr_t)gate, 1, CU_STREAM_WAIT_VALUE_GEQ) !=
            CUDA_SUCCESS ||
        cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)t->x, 1, t->bytes, a) != CUDA_SUCCESS)
      t->status = MR_ERR_DRIVER;
    watch_start();
    mr_status st = mr_deallocate(t->mr, t->x, t->bytes, 0, (mr_stream)a);
    t->waited = watch_stop();
    if (t->status == MR_OK) t->status = st;
  }
  mri_cuda()->cuStreamDestroy(a);
  return NULL;
}

void held_exited_thread(mr_resource *mr, size_t bytes) {
  exiting_thread t = {.mr = mr, .bytes = bytes};
  pthread_t thread;
  assert_int_equal(pthread_create(&thread, NULL, free_on_held_stream_and_exit, &t), 0);
  pthread_join(thread, NULL);
  if (t.status != MR_OK) held_release();
  assert_ok(t.status);
  CUstream b = stream_create();
  allocate_elsewhere_and_check(mr, bytes, t.x, b, t.waited,
                               "a stream of another thread, after the freeing thread exited");
  mri_cuda()->cuStreamDestroy(b);
}

void held_capture(mr_resource *mr, size_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  CUstream a = stream_create();
  void *x = NULL, *y = NULL;
  assert_ok(mr_allocate(mr, bytes, 0, (mr_stream)a, &x));
  assert_ok(mr_deallocate(mr, x, bytes, 0, (mr_stream)a));
  /* Relaxed: a synchronous upstream (cuMemAlloc) may run during it. */
  assert_int_equal(cu->cuStreamBeginCapture(a, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  mr_status st = mr_allocate(mr, bytes, 0, (mr_stream)a, &y);
  mr_status freed = st == MR_OK ? mr_deallocate(mr, y, bytes, 0, (mr_stream)a) : MR_OK;
  CUgraph graph = NULL;
  CUresult ended = cu->cuStreamEndCapture(a, &graph);
  if (graph != NULL) cu->cuGraphDestroy(graph);
  if (st != MR_OK) {
    /* An upstream that cannot allocate in a capture may refuse, cleanly
     * (graph allocation nodes exist for device memory only). */
    fprintf(stderr, "note: %s: allocation during capture refused: %s\n", mr_resource_describe(mr),
            mr_last_error());
  } else {
    if (y == x) {
      print_error("%s: during a capture, the block it keeps (%p) was handed out\n",
                  mr_resource_describe(mr), x);
      fail();
    }
    if (freed != MR_OK) {
      /* A synchronous upstream waits for the stream before it frees, which
       * a capture forbids: refused cleanly, the block is still ours, and
       * the free works once the capture ended. */
      fprintf(stderr, "note: %s: free during capture refused: %s\n", mr_resource_describe(mr),
              mr_last_error());
      assert_int_equal(ended, CUDA_SUCCESS);
      assert_ok(mr_deallocate(mr, y, bytes, 0, (mr_stream)a));
    }
  }
  assert_int_equal(ended, CUDA_SUCCESS);
  assert_int_equal(cu->cuStreamSynchronize(a), CUDA_SUCCESS);
  cu->cuStreamDestroy(a);
}

void held_recorded_stream(mr_resource *mr, size_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  CUstream s = stream_create(), r = stream_create(), b = stream_create();
  void *x = NULL;
  assert_ok(mr_allocate(mr, bytes, 0, (mr_stream)s, &x));
  /* R uses the block (its late write) and is recorded; S frees it. */
  held_hold_and_fill(r, x, bytes, 1);
  mr_status recorded = mr_record_stream(mr, x, (mr_stream)r);
  if (recorded != MR_OK) held_release();
  assert_ok(recorded);
  watch_start();
  mr_status st = mr_deallocate(mr, x, bytes, 0, (mr_stream)s);
  bool waited = watch_stop();
  if (st != MR_OK) held_release();
  assert_ok(st);
  if (waited) {
    /* A resource that frees synchronously waited for R on the host: the
     * gate is open, and the block is truly free. */
    allocate_elsewhere_and_check(mr, bytes, x, b, true, "a stream other than the recorded one");
  } else {
    /* On S itself: S waits for R, so the new owner's write lands after
     * R's late one. Filled without waiting (S waits for the gate). */
    /* Elsewhere, while R is still held: never the block. */
    void *z = NULL;
    mr_status elsewhere = mr_allocate(mr, bytes, 0, (mr_stream)b, &z);
    void *y = NULL;
    mr_status again = mr_allocate(mr, bytes, 0, (mr_stream)s, &y);
    CUresult filled =
        again == MR_OK ? cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)y, 2, bytes, s) : CUDA_SUCCESS;
    held_release();
    CUresult synced = cu->cuCtxSynchronize(NULL);
    check_allocated(mr, "recorded stream", again != MR_OK ? again : elsewhere, filled, synced);
    if (z == x) {
      print_error("%s: recorded stream: the block (%p) went to another stream while the "
                  "recorded stream still used it\n",
                  mr_resource_describe(mr), x);
      fail();
    }
    if (!bytes_are(y, bytes, 2)) {
      print_error("%s: recorded stream: the recorded stream's late write landed in %p, "
                  "allocated again on the freeing stream\n",
                  mr_resource_describe(mr), y);
      fail();
    }
    assert_ok(mr_deallocate(mr, y, bytes, 0, (mr_stream)s));
    assert_ok(mr_deallocate(mr, z, bytes, 0, (mr_stream)b));
  }
  assert_int_equal(cu->cuCtxSynchronize(NULL), CUDA_SUCCESS);
  cu->cuStreamDestroy(s);
  cu->cuStreamDestroy(r);
  cu->cuStreamDestroy(b);
}

void held_same_stream(mr_resource *mr, size_t bytes) {
  const mri_cuda_api *cu = mri_cuda();
  CUstream a = stream_create();
  void *x = NULL, *z = NULL, *y = NULL;
  assert_ok(mr_allocate(mr, 2 * bytes, 0, (mr_stream)a, &x));
  assert_ok(mr_allocate(mr, bytes, 0, (mr_stream)a, &z));
  held_hold_and_fill(a, x, 2 * bytes, 1);
  /* Over a synchronous upstream the free (cuMemFree, cuMemFreeHost) and
   * a new allocation may wait for the device, so for A: the watchman
   * opens the gate after a while (the late write has then landed). */
  watch_start();
  mr_status st = mr_deallocate(mr, x, 2 * bytes, 0, (mr_stream)a);
  if (st != MR_OK) {
    watch_stop();
    held_release();
    assert_ok(st);
  }
  /* Larger than x: where blocks are cut first fit (expandable), it lands
   * past z, on pages x's idle ones could back. */
  st = mr_allocate(mr, 3 * bytes, 0, (mr_stream)a, &y);
  watch_stop();
  CUresult filled =
      st == MR_OK ? cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)y, 2, 3 * bytes, a) : CUDA_SUCCESS;
  held_release();
  /* A page taken from under x's pending write faults here. */
  CUresult synced = cu->cuCtxSynchronize(NULL);
  check_allocated(mr, "same stream", st, filled, synced);
  if (!bytes_are(y, 3 * bytes, 2)) {
    print_error("%s: same stream: the late write to the freed block landed in %p, allocated "
                "after it on its stream\n",
                mr_resource_describe(mr), y);
    fail();
  }
  assert_ok(mr_deallocate(mr, y, 3 * bytes, 0, (mr_stream)a));
  assert_ok(mr_deallocate(mr, z, bytes, 0, (mr_stream)a));
  assert_int_equal(cu->cuStreamSynchronize(a), CUDA_SUCCESS);
  cu->cuStreamDestroy(a);
}

void held_all(const char *spec, size_t bytes) {
  mr_resource *mr = NULL;
  mr_status st = mr_resource_from_spec(spec, 0, &mr);
  if (st != MR_OK) {
    print_error("%s: %s\n", spec, mr_last_error());
    fail();
  }
  /* Where a run stops, its log says which resource it was on (a hang ends
   * at the alarm, with no cmocka report of its own). */
  if (getenv("MRCTX_HELD_VERBOSE") != NULL) fprintf(stderr, "held: %s, %zu bytes\n", spec, bytes);
  held_other_stream(mr, bytes);
  held_destroyed_stream(mr, bytes);
  held_exited_thread(mr, bytes);
  held_recorded_stream(mr, bytes);
  held_same_stream(mr, bytes);
  /* The capture scenario needs a block the resource keeps: every spec in
   * held_specs.h keeps blocks of up to 64 KiB; larger ones may go straight
   * back upstream, and then the driver may rightly hand the address out
   * again in the capture. */
  if (bytes <= ((size_t)64 << 10)) held_capture(mr, bytes);
  assert_ok(mr_resource_trim(mr));
  mr_resource_release(mr);
}
