/*
 * test_expandable_gpu.c: expandable(...)'s pages on a real GPU (suite gpu;
 * exit 77 without a driver or device): mr_expandable_resource_get_info
 * against the driver's granularity, and a block that takes the physical
 * memory of idle pages moved under it once their stream's work is done,
 * written and read by kernels, beside a live block that keeps its bytes.
 * (The held-stream scenario 6, in gpu.adaptors.held, covers the other
 * side: no page moves while a late write to it is pending.)
 */
#include "gpu_util.h"

#define MiB ((size_t)1 << 20)

static void test_pages_move_and_report(void **state) {
  mr_resource *mr = NULL;
  assert_ok(mr_resource_from_spec("expandable(page=2MiB, reserve=1GiB)", 0, &mr));
  mr_expandable_info info = {.size = sizeof info};
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.page_size, 2 * MiB);
  assert_int_equal(info.mapped_bytes, 0);
  mr_stream s = gpu_stream_create();
  void *a = NULL, *b = NULL, *c = NULL;
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &a)); /* pages 0, 1 */
  assert_ok(mr_allocate(mr, 4 * MiB, 0, s, &b)); /* pages 2, 3 */
  gpu_fill(a, 4 * MiB, 0x11, s);
  gpu_fill(b, 4 * MiB, 0x5a, s);
  assert_ok(mr_deallocate(mr, a, 4 * MiB, 0, s));
  /* The free's event completes with the stream's work. */
  gpu_check(mri_cuda()->cuStreamSynchronize((CUstream)s));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 8 * MiB);
  assert_int_equal(info.idle_bytes, 4 * MiB);
  assert_int_equal(info.ranges, 1);
  assert_int_equal(info.live_blocks, 1);
  /* 6 MiB: past b, on pages 4-6; two of them a's idle pages, moved. */
  assert_ok(mr_allocate(mr, 6 * MiB, 0, s, &c));
  assert_ptr_equal(c, (char *)b + 4 * MiB);
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 10 * MiB);
  assert_int_equal(info.mapped_high, 10 * MiB);
  assert_int_equal(info.idle_bytes, 0);
  gpu_fill(c, 6 * MiB, 0x77, s);
  assert_true(gpu_all_equal(c, 6 * MiB, 0x77, s));
  assert_true(gpu_all_equal(b, 4 * MiB, 0x5a, s));
  assert_ok(mr_deallocate(mr, c, 6 * MiB, 0, s));
  assert_ok(mr_deallocate(mr, b, 4 * MiB, 0, s));
  assert_ok(mr_resource_trim(mr));
  assert_ok(mr_expandable_resource_get_info(mr, &info));
  assert_int_equal(info.mapped_bytes, 0);
  assert_int_equal(info.ranges, 0);
  gpu_stream_destroy(s);
  mr_resource_release(mr);
  gpu_check(mri_cuda()->cuCtxSynchronize(NULL));
}

int main(void) {
  GPU_TEST_REQUIRE();
  int vmm = 0;
  CUdevice dev;
  if (mri_cuda()->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      mri_cuda()->cuDeviceGetAttribute(
          &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) != CUDA_SUCCESS ||
      !vmm) {
    fprintf(stderr, "device 0 has no virtual memory management: skipped\n");
    return GPU_TEST_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pages_move_and_report),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
