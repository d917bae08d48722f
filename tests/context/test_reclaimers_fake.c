/*
 * test_reclaimers_fake.c (fake): memory held outside mrctx (mrctx/reclaim.h).
 * A 64 MiB fake device; a stand-in for another allocator (PyTorch's cache,
 * CuPy's pool) holds device memory it took with cuMemAlloc, and frees it
 * when its reclaimer is asked. An mrctx allocation then succeeds only
 * thanks to it; mrctx's own idle memory goes first; unregister waits for a
 * call in flight; a callback may allocate through mrctx and unregister
 * itself; threads that run out together all get their memory.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "core/reclaim.h"
#include "core/reclaimers.h"
#include "fake_test.h"

#define MiB ((size_t)1 << 20)
#define DEVICE_BYTES (64 * MiB)

/* The other allocator: blocks of device memory it keeps "cached". */
#define HOLDER_BLOCKS 8
typedef struct holder {
  pthread_mutex_t lock; /* the callback is thread-safe, as a framework's */
  CUdeviceptr blocks[HOLDER_BLOCKS];
  size_t block_bytes;
  int count;
  /* What the reclaimer saw. */
  atomic_int calls;
  int last_device;
  size_t last_bytes;
  /* Optional extras for single tests. */
  void (*during)(struct holder *h);
  mr_resource *mr; /* for `during` */
  mr_reclaimer *handle;
  mr_status during_status;
} holder;

static void holder_init(holder *h, int count, size_t block_bytes) {
  memset(h, 0, sizeof *h);
  pthread_mutex_init(&h->lock, NULL);
  h->block_bytes = block_bytes;
  for (int i = 0; i < count; i++) {
    CUresult r = mri_cuda()->cuMemAlloc(&h->blocks[i], block_bytes);
    assert_int_equal(r, CUDA_SUCCESS);
  }
  h->count = count;
}

/* Free everything still held: the reclaimer's work, and each test's end. */
static size_t holder_free(holder *h) {
  pthread_mutex_lock(&h->lock);
  size_t freed = 0;
  for (; h->count > 0; h->count--) {
    if (mri_cuda()->cuMemFree(h->blocks[h->count - 1]) == CUDA_SUCCESS) freed += h->block_bytes;
  }
  pthread_mutex_unlock(&h->lock);
  return freed;
}

static void holder_destroy(holder *h) {
  holder_free(h);
  pthread_mutex_destroy(&h->lock);
}

static size_t holder_reclaim(void *user, int device, size_t bytes) {
  holder *h = user;
  atomic_fetch_add(&h->calls, 1);
  pthread_mutex_lock(&h->lock);
  h->last_device = device;
  h->last_bytes = bytes;
  pthread_mutex_unlock(&h->lock);
  size_t freed = holder_free(h);
  if (h->during != NULL) h->during(h);
  return freed;
}

static int setup(void **state) {
  int rc = fake_test_setup(state);
  if (rc == 0 && fake_cuda_set_total_memory(0, DEVICE_BYTES) != CUDA_SUCCESS) rc = -1;
  if (rc == 0) fake_bind(0);
  return rc;
}

/* The reclaimer alone makes the allocation possible; without it the
 * failure says nothing about reclaimers; with one that has nothing left,
 * it says it was called. */
static void test_external_memory_serves_mrctx(void **state) {
  holder h;
  holder_init(&h, 6, 8 * MiB); /* 48 of 64 MiB */
  mr_resource *device = NULL;
  assert_ok(mr_resource_from_spec("device", 0, &device));
  void *p = NULL;
  assert_status(mr_allocate(device, 32 * MiB, 0, NULL, &p), MR_ERR_OUT_OF_MEMORY);
  assert_null(p);

  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "holder", &r));
  assert_non_null(r);
  assert_ok(mr_allocate(device, 32 * MiB, 0, NULL, &p));
  assert_non_null(p);
  assert_int_equal(atomic_load(&h.calls), 1);
  assert_int_equal(h.last_device, 0);
  assert_int_equal(h.last_bytes, 32 * MiB);
  mr_reclaimer_stats stats = {.size = sizeof stats};
  assert_ok(mr_reclaimer_get_stats(r, &stats));
  assert_int_equal(stats.size, sizeof stats);
  assert_int_equal(stats.calls, 1);
  assert_int_equal(stats.bytes, 48 * MiB);

  /* Nothing left outside: the failure says the reclaimer was asked. */
  void *q = NULL;
  assert_status(mr_allocate(device, 48 * MiB, 0, NULL, &q), MR_ERR_OUT_OF_MEMORY);
  assert_error_contains("1 reclaimer outside mrctx reported giving back 0 B");
  assert_int_equal(atomic_load(&h.calls), 2);

  assert_ok(mr_deallocate(device, p, 32 * MiB, 0, NULL));
  assert_ok(mr_reclaimer_unregister(r));
  mr_resource_release(device);
  assert_ok(mr_release_idle(-1, 0, NULL));
  holder_destroy(&h);
}

/* cudaMalloc users too: sync_device's cuMemAlloc. */
static void test_external_memory_serves_cuda_malloc(void **state) {
  holder h;
  holder_init(&h, 6, 8 * MiB);
  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "holder", &r));
  mr_resource *sync = NULL;
  assert_ok(mr_resource_from_spec("sync_device", 0, &sync));
  void *p = NULL;
  assert_ok(mr_allocate_sync(sync, 40 * MiB, 0, &p));
  assert_int_equal(atomic_load(&h.calls), 1);
  assert_ok(mr_deallocate_sync(sync, p, 40 * MiB, 0));
  assert_ok(mr_reclaimer_unregister(r));
  mr_resource_release(sync);
  holder_destroy(&h);
}

/* mrctx's own idle memory first: a cache keeps 40 MiB idle, the holder 16;
 * 32 MiB come from the cache's, and the holder is not asked. On demand,
 * mr_release_idle asks it after mrctx's own, for everything. */
static void test_own_idle_first(void **state) {
  mr_resource *cache = NULL, *device = NULL;
  assert_ok(mr_resource_from_spec("cache(device)", 0, &cache));
  assert_ok(mr_resource_from_spec("device", 0, &device));
  void *p = NULL;
  assert_ok(mr_allocate(cache, 40 * MiB, 0, NULL, &p));
  assert_ok(mr_deallocate(cache, p, 40 * MiB, 0, NULL));
  holder h;
  holder_init(&h, 2, 8 * MiB);
  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, NULL, &r));

  assert_ok(mr_allocate(device, 32 * MiB, 0, NULL, &p));
  assert_int_equal(atomic_load(&h.calls), 0);
  assert_ok(mr_deallocate(device, p, 32 * MiB, 0, NULL));

  /* A goal mrctx's own idle memory meets: the holder is not asked. */
  size_t released = 0;
  assert_ok(mr_release_idle(0, 1 * MiB, &released));
  assert_true(released >= 1 * MiB);
  assert_int_equal(atomic_load(&h.calls), 0);
  /* Everything: mrctx's, then the holder's. */
  assert_ok(mr_release_idle(0, 0, &released));
  assert_int_equal(atomic_load(&h.calls), 1);
  assert_int_equal(h.last_bytes, 0);
  assert_true(released >= 16 * MiB);
  /* Every device: the callback hears MR_RECLAIM_ALL. */
  assert_ok(mr_release_idle(-1, 0, &released));
  assert_int_equal(h.last_device, MR_RECLAIM_ALL);
  assert_int_equal(fake_cuda_used_memory(0), 0);

  assert_ok(mr_reclaimer_unregister(r));
  mr_resource_release(device);
  mr_resource_release(cache);
  holder_destroy(&h);
}

/* ---- unregister waits for a call in flight ------------------------------ */

typedef struct gate {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool entered, go, ended;      /* the callback's */
  bool unregister_waits;        /* the wait hook was called */
  bool unregistered, saw_ended; /* the unregistering thread's */
  mr_status unregister_status;
  mr_reclaimer *handle;
} gate;

static gate the_gate;

static void gate_set(bool *flag) {
  pthread_mutex_lock(&the_gate.lock);
  *flag = true;
  pthread_cond_broadcast(&the_gate.cond);
  pthread_mutex_unlock(&the_gate.lock);
}

static void gate_wait(const bool *flag) {
  pthread_mutex_lock(&the_gate.lock);
  while (!*flag) pthread_cond_wait(&the_gate.cond, &the_gate.lock);
  pthread_mutex_unlock(&the_gate.lock);
}

static size_t gated_reclaim(void *user, int device, size_t bytes) {
  (void)user, (void)device, (void)bytes;
  gate_set(&the_gate.entered);
  gate_wait(&the_gate.go);
  pthread_mutex_lock(&the_gate.lock);
  the_gate.ended = true;
  pthread_mutex_unlock(&the_gate.lock);
  return 0;
}

/* Called by unregister, registry lock held, before it waits. */
static void unregister_waits(void) { gate_set(&the_gate.unregister_waits); }

static void *release_idle_main(void *arg) {
  (void)arg;
  mr_status st = mr_release_idle(0, 0, NULL);
  (void)st; /* the test checks what the callback saw */
  return NULL;
}

static void *unregister_main(void *arg) {
  (void)arg;
  mr_status st = mr_reclaimer_unregister(the_gate.handle);
  pthread_mutex_lock(&the_gate.lock);
  the_gate.unregister_status = st;
  the_gate.saw_ended = the_gate.ended;
  the_gate.unregistered = true;
  pthread_cond_broadcast(&the_gate.cond);
  pthread_mutex_unlock(&the_gate.lock);
  return NULL;
}

static void test_unregister_waits_for_a_call(void **state) {
  memset(&the_gate, 0, sizeof the_gate);
  pthread_mutex_init(&the_gate.lock, NULL);
  pthread_cond_init(&the_gate.cond, NULL);
  assert_ok(mr_reclaimer_register(gated_reclaim, NULL, "gated", &the_gate.handle));
  mri_reclaimers_set_wait_hook(unregister_waits);
  pthread_t caller, unregisterer;
  assert_int_equal(pthread_create(&caller, NULL, release_idle_main, NULL), 0);
  gate_wait(&the_gate.entered);
  assert_int_equal(pthread_create(&unregisterer, NULL, unregister_main, NULL), 0);
  /* Either unregister waits (right) or it returned with the call still
   * running (wrong): whichever comes first. */
  pthread_mutex_lock(&the_gate.lock);
  while (!the_gate.unregister_waits && !the_gate.unregistered)
    pthread_cond_wait(&the_gate.cond, &the_gate.lock);
  bool waited = the_gate.unregister_waits && !the_gate.unregistered;
  the_gate.go = true;
  pthread_cond_broadcast(&the_gate.cond);
  pthread_mutex_unlock(&the_gate.lock);
  pthread_join(caller, NULL);
  pthread_join(unregisterer, NULL);
  mri_reclaimers_set_wait_hook(NULL);
  assert_true(waited);
  assert_ok(the_gate.unregister_status);
  assert_true(the_gate.saw_ended);
  assert_false(mri_reclaimers_any());
  pthread_cond_destroy(&the_gate.cond);
  pthread_mutex_destroy(&the_gate.lock);
}

/* ---- callbacks that use mrctx ------------------------------------------- */

/* After freeing its memory, the callback allocates through mrctx (it
 * succeeds), tries more than the device has (it fails at once: no second
 * reclaim on this thread, so the holder is not called again), and asks
 * mr_release_idle (nothing from reclaimers: this thread is reclaiming). */
static void allocate_during(holder *h) {
  void *p = NULL;
  h->during_status = mr_allocate(h->mr, 4 * MiB, 0, NULL, &p);
  if (h->during_status == MR_OK) h->during_status = mr_deallocate(h->mr, p, 4 * MiB, 0, NULL);
  if (h->during_status == MR_OK &&
      mr_allocate(h->mr, 2 * DEVICE_BYTES, 0, NULL, &p) != MR_ERR_OUT_OF_MEMORY)
    h->during_status = MR_ERR_INVALID_ARGUMENT;
  if (h->during_status == MR_OK) h->during_status = mr_release_idle(0, 0, NULL);
}

static void test_callback_allocates(void **state) {
  holder h;
  holder_init(&h, 6, 8 * MiB);
  h.during = allocate_during;
  assert_ok(mr_resource_from_spec("device", 0, &h.mr));
  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "allocating", &r));
  void *p = NULL;
  assert_ok(mr_allocate(h.mr, 32 * MiB, 0, NULL, &p));
  assert_ok(h.during_status);
  assert_int_equal(atomic_load(&h.calls), 1);
  assert_ok(mr_deallocate(h.mr, p, 32 * MiB, 0, NULL));
  assert_ok(mr_reclaimer_unregister(r));
  mr_resource_release(h.mr);
  holder_destroy(&h);
}

/* A callback that unregisters itself: no deadlock, it is not called again,
 * and its handle goes when the call ends (a leak would show under ASan). */
static void unregister_during(holder *h) { h->during_status = mr_reclaimer_unregister(h->handle); }

static void test_callback_unregisters_itself(void **state) {
  holder h;
  holder_init(&h, 1, 8 * MiB);
  h.during = unregister_during;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "once", &h.handle));
  size_t released = 0;
  assert_ok(mr_release_idle(0, 0, &released));
  assert_ok(h.during_status);
  assert_int_equal(released, 8 * MiB);
  assert_false(mri_reclaimers_any());
  assert_ok(mr_release_idle(0, 0, NULL));
  assert_int_equal(atomic_load(&h.calls), 1);
  holder_destroy(&h);
}

/* ---- threads that run out together -------------------------------------- */

/* The holder keeps the whole device; RACERS threads ask a shared `device`
 * resource for 16 MiB each at once. Every allocation succeeds: a thread
 * whose call of the (thread-safe) callback finds nothing left retries after
 * the one that freed it. ThreadSanitizer runs this. */
#define RACERS 4

typedef struct racer {
  mr_resource *mr;
  pthread_barrier_t *barrier;
  mr_status got;
  void *p;
} racer;

static void *racer_main(void *arg) {
  racer *r = arg;
  (void)mri_ensure_context(0);
  pthread_barrier_wait(r->barrier);
  r->got = mr_allocate(r->mr, 16 * MiB, 0, NULL, &r->p);
  return NULL;
}

static void test_concurrent_failures(void **state) {
  holder h;
  holder_init(&h, HOLDER_BLOCKS, 8 * MiB); /* all 64 MiB */
  mr_reclaimer *r = NULL;
  assert_ok(mr_reclaimer_register(holder_reclaim, &h, "holder", &r));
  mr_resource *device = NULL;
  assert_ok(mr_resource_from_spec("device", 0, &device));
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, NULL, RACERS);
  racer racers[RACERS];
  pthread_t threads[RACERS];
  for (int i = 0; i < RACERS; i++) {
    racers[i] = (racer){.mr = device, .barrier = &barrier};
    assert_int_equal(pthread_create(&threads[i], NULL, racer_main, &racers[i]), 0);
  }
  for (int i = 0; i < RACERS; i++) pthread_join(threads[i], NULL);
  for (int i = 0; i < RACERS; i++) {
    assert_ok(racers[i].got);
    assert_ok(mr_deallocate(device, racers[i].p, 16 * MiB, 0, NULL));
  }
  assert_in_range(atomic_load(&h.calls), 1, RACERS);
  mr_reclaimer_stats stats = {.size = sizeof stats};
  assert_ok(mr_reclaimer_get_stats(r, &stats));
  assert_int_equal(stats.bytes, 64 * MiB); /* freed once, whoever called */
  pthread_barrier_destroy(&barrier);
  assert_ok(mr_reclaimer_unregister(r));
  mr_resource_release(device);
  assert_ok(mr_release_idle(-1, 0, NULL));
  holder_destroy(&h);
}

/* ---- bad input ---------------------------------------------------------- */

static size_t nothing(void *user, int device, size_t bytes) {
  (void)user, (void)device, (void)bytes;
  return 0;
}

static void test_bad_input(void **state) {
  mr_reclaimer *r = (mr_reclaimer *)&r;
  assert_status(mr_reclaimer_register(NULL, NULL, "null", &r), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_reclaimer_register(null): the function is NULL");
  assert_null(r);
  assert_status(mr_reclaimer_register(nothing, NULL, NULL, NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("out is NULL");
  assert_status(mr_reclaimer_unregister(NULL), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("mr_reclaimer_unregister: NULL");
  assert_ok(mr_reclaimer_register(nothing, NULL, NULL, &r));
  mr_reclaimer_stats stats = {.size = sizeof stats};
  assert_status(mr_reclaimer_get_stats(NULL, &stats), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_reclaimer_get_stats(r, NULL), MR_ERR_INVALID_ARGUMENT);
  stats.size = 1;
  assert_status(mr_reclaimer_get_stats(r, &stats), MR_ERR_INVALID_ARGUMENT);
  assert_ok(mr_reclaimer_unregister(r));
  /* Twice: refused by address, the freed handle is never read. */
  assert_status(mr_reclaimer_unregister(r), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not a registered reclaimer");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_external_memory_serves_mrctx, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_external_memory_serves_cuda_malloc, setup,
                                      fake_teardown),
      cmocka_unit_test_setup_teardown(test_own_idle_first, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_unregister_waits_for_a_call, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_callback_allocates, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_callback_unregisters_itself, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_concurrent_failures, setup, fake_teardown),
      cmocka_unit_test_setup_teardown(test_bad_input, setup, fake_teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
