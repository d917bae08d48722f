/*
 * test_held_gpu.c: the held-stream scenarios (tests/support/held_streams.h)
 * on a real GPU, for every resource that keeps memory: a stream held by
 * cuStreamWaitValue32 frees a block, and another stream — a second one, one
 * created after destroying the held one, one of another thread after the
 * freeing thread exited — must not get it before the held stream's late
 * write lands; nor may a capture get a block the resource keeps. Pointers
 * and the bytes written are both checked. Exits 77 without a GPU.
 */

#include "gpu_util.h"
#include "held_specs.h"
#include "held_streams.h"

/* MRCTX_HELD_VERBOSE=1 names each resource and size as it starts. */
static void test_every_resource(void **state) {
  for (size_t i = 0; i < MRI_ARRAY_SIZE(held_specs); i++) {
    held_all(held_specs[i], 4096);
    held_all(held_specs[i], (size_t)1 << 20);
  }
  for (size_t i = 0; i < MRI_ARRAY_SIZE(held_large_specs); i++)
    held_all(held_large_specs[i], HELD_LARGE_BLOCK);
}

/* mr_record_stream over the driver's own pools and synchronous resources
 * too, which keep nothing but whose freed blocks the driver hands out
 * again (held_all ran it on each keeping resource). */
static void test_recorded_stream_everywhere(void **state) {
  static const char *const specs[] = {"device",        "pinned",
                                      "managed",       "sync_device",
                                      "stats(device)", "limit(cache(device), bytes=1GiB)"};
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++) {
    mr_resource *mr = NULL;
    assert_ok(mr_resource_from_spec(specs[i], 0, &mr));
    held_recorded_stream(mr, 4096);
    held_recorded_stream(mr, (size_t)1 << 20);
    assert_ok(mr_resource_trim(mr));
    mr_resource_release(mr);
  }
}

int main(void) {
  GPU_TEST_REQUIRE();
  held_streams_init(240);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_resource),
      cmocka_unit_test(test_recorded_stream_everywhere),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
