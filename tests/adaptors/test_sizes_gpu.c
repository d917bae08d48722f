/*
 * test_sizes_gpu.c: the size contract (assert_size_contract_with,
 * adaptor_test.h) on a real GPU, for the driver's resources and the
 * adaptors that keep memory over them: sizes near SIZE_MAX are refused
 * (the driver is not asked what its granularity would wrap), and the
 * blocks handed out after the refusals, filled and checked by kernels,
 * neither overlap nor lose their bytes; a trim and the destroy then
 * succeed. The report of issue 34 (cache(device) handing out blocks
 * outside any driver allocation after allocate(SIZE_MAX)) is the cache
 * cases. Exits 77 without a GPU.
 */
#include "adaptor_test.h"
#include "gpu_util.h"

static const char *const specs[] = {
    "device",
    "pinned",
    "managed",
    "pool(kind=device)",
    "expandable",
    "sync_device",
    "sync_pinned",
    "cache(device)",
    "cache(pinned)",
    "cache(managed)",
    "cache(sync_device)",
    "cache(expandable)",
    "expandable(large_page=20MiB)",
    "cache(expandable(large_page=20MiB))",
    "retry(cache(device))",
    "arena(device, chunk=1MiB)",
    "fixed(device, block=64KiB, count=4)",
    "bin(device, min=256B, max=64KiB, count=4)",
    "stats(track(cache(device)))",
};

static void test_contract(void **state) {
  const char *spec = *state;
  gpu_bind_thread();
  mr_resource *mr = NULL;
  if (mr_resource_from_spec(spec, 0, &mr) != MR_OK) {
    print_error("%s: %s\n", spec, mr_last_error());
    fail();
  }
  mr_stream stream = gpu_stream_create();
  assert_size_contract_with(mr, stream, gpu_fill, gpu_all_equal);
  mr_resource_release(mr);
  gpu_stream_destroy(stream);
}

int main(void) {
  GPU_TEST_REQUIRE();
  struct CMUnitTest tests[MRI_ARRAY_SIZE(specs)];
  for (size_t i = 0; i < MRI_ARRAY_SIZE(specs); i++)
    tests[i] = (struct CMUnitTest){
        .name = specs[i], .test_func = test_contract, .initial_state = (void *)specs[i]};
  return _cmocka_run_group_tests("sizes_gpu", tests, MRI_ARRAY_SIZE(specs), NULL, NULL);
}
