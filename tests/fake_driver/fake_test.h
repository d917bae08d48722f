/*
 * fake_test.h: what tests over the fake driver (fakecuda.h) share. A test
 * starts in one of two ways:
 *  - fake_test_setup as each test's setup: a fresh fake, the library loaded
 *    over it, and device 0's context current on the test's thread;
 *  - fake_group_setup as the group's setup and fake_teardown as each test's
 *    teardown: the library loaded once, a fresh fake per test, and a test
 *    that leaves anything behind in the fake fails.
 * The library's driver table is fake_cu(); nothing here keeps state of its
 * own.
 */
#ifndef MRCTX_TESTS_FAKE_TEST_H
#define MRCTX_TESTS_FAKE_TEST_H

#include "driver/cuda_driver.h"
#include "fakecuda.h"
#include "test_util.h"

/* Per-test setup: reset the fake, load the driver (the fake, through
 * MRCTX_CUDA_DRIVER), make device 0's primary context current. */
int fake_test_setup(void **state);

/* Group setup: load the driver and reset the fake. */
int fake_group_setup(void **state);

/* Per-test teardown: fails the test if the fake still holds an allocation,
 * a created pool, a stream or an event; then resets the fake. */
int fake_teardown(void **state);

/* Fail the test now if the fake holds anything (see fake_teardown). */
#define assert_fake_clean() assert_fake_clean_at(__FILE__, __LINE__)
void assert_fake_clean_at(const char *file, int line);

/* The driver table the library loaded (the fake); the test fails if the
 * driver is not loaded. It asserts, so call it on the test's own thread; a
 * thread of the test's making uses mri_cuda(). */
const mri_cuda_api *fake_cu(void);

/* A new non-blocking stream on the current context; the test destroys it. */
CUstream fake_new_stream(void);

/* Make `device`'s primary context current on the calling thread. */
void fake_bind(int device);

/* The device of the calling thread's current context, -1 if none. */
int fake_current_device(void);

/* Release threshold and USED_MEM_CURRENT of a pool, read directly. */
cuuint64_t fake_pool_threshold(CUmemoryPool pool);
cuuint64_t fake_pool_used(CUmemoryPool pool);

/* The driver's default pool for a pool kind (device pools: on `device`). */
CUmemoryPool fake_default_pool(mr_pool_kind kind, int device);

/* Run fn(arg) on a new thread (which starts with no current context) and
 * wait for it. fn must not use cmocka's assertions (they jump back into the
 * test's own thread): it records what it saw in *arg for the test to check. */
void fake_run_thread(void (*fn)(void *arg), void *arg);

#endif
