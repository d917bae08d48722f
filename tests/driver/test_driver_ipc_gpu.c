/*
 * Pools shared between processes on a real GPU (suite gpu; exit 77 without
 * a driver or device): the scenarios of ipc_cases.h on device 0, the other
 * process running test_driver_ipc_peer. One process fills a 1 MiB block of
 * pool(kind=device, ipc=fd) with cuMemsetD8Async; the other imports it,
 * copies it back with cuMemcpyAsync and checks every byte, frees its
 * import, and releases the imported pool; either process exits first, and
 * the exporter's pool hands out nothing afterwards. The sizes: a block
 * exported with more bytes than the driver's allocation has, or from
 * inside it, is refused; a record whose size was raised after export is
 * refused by the importing process (ipc_case_sizes_are_checked).
 * The test's argument is the path of test_driver_ipc_peer.
 */
#include <stdio.h>

#include "gpu_util.h"
#include "ipc_cases.h"

static const char *peer_path;

static void test_importer_exits_first(void **state) { ipc_case_importer_exits_first(peer_path); }

static void test_exporter_exits_first(void **state) { ipc_case_exporter_exits_first(peer_path); }

static void test_sizes_are_checked(void **state) { ipc_case_sizes_are_checked(peer_path); }

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s PATH_OF_test_driver_ipc_peer\n", argv[0]);
    return 2;
  }
  peer_path = argv[1];
  GPU_TEST_REQUIRE();
  int handles = 0;
  CUdevice dev;
  if (mri_cuda()->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      mri_cuda()->cuDeviceGetAttribute(&handles, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES,
                                       dev) != CUDA_SUCCESS ||
      !(handles & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)) {
    fprintf(stderr, "device 0 cannot share pools as file descriptors: skipped\n");
    return GPU_TEST_SKIP;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_importer_exits_first),
      cmocka_unit_test(test_exporter_exits_first),
      cmocka_unit_test(test_sizes_are_checked),
  };
  return cmocka_run_group_tests_name("pools shared between processes (GPU)", tests, NULL, NULL);
}
