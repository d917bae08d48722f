/*
 * fake_test.h: what the fake-suite tests share. Each test starts from a
 * fresh fake (fake_cuda_reset in the teardown) with the library already
 * loaded over it, and must leave nothing behind in it.
 */
#ifndef MRCTX_TESTS_FAKE_TEST_H
#define MRCTX_TESTS_FAKE_TEST_H

#include "driver/cuda_api.h"
#include "fakecuda.h"
#include "test_util.h"

/* Group setup: load the driver (the fake, through MRCTX_CUDA_DRIVER). */
int fake_group_setup(void **state);

/* Per-test teardown: fails the test if the fake still holds an allocation,
 * a created pool, a stream or an event; then resets the fake. */
int fake_teardown(void **state);

/* Fail the test now if the fake holds anything (see fake_teardown). */
#define assert_fake_clean() assert_fake_clean_at(__FILE__, __LINE__)
void assert_fake_clean_at(const char *file, int line);

/* The driver table the library loaded (the fake). */
const mri_cuda_api *fake_cu(void);

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
