/*
 * test_expandable_ipc_gpu.c: expandable(..., ipc=fd) shares a block with
 * another process on a real GPU (suite gpu; exit 77 without a driver or
 * device). The parent fills a block that spans two pages with a kernel,
 * exports its pages (mr_ipc_pages_export) and sends them over a Unix
 * socket to a second copy of this program (started with "child" and the
 * socket's descriptor: a forked child may not use CUDA), which imports
 * them, checks every byte on the GPU, fills the block with its own value
 * and closes its import; the parent then checks the child's bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mrctx/ipc.h>

#include "gpu_util.h"

#define MiB ((size_t)1 << 20)
#define BLOCK (3 * MiB)

static int child(int sock) {
  mr_ipc_pages pages;
  if (mr_ipc_receive(sock, NULL, &pages, sizeof pages) != MR_OK || pages.page_count > 8) return 2;
  int fds[8];
  for (uint32_t i = 0; i < pages.page_count; i++) {
    char tag;
    if (mr_ipc_receive(sock, &fds[i], &tag, 1) != MR_OK || fds[i] < 0) return 3;
  }
  void *p = NULL;
  if (mr_ipc_pages_import(0, &pages, fds, &p) != MR_OK) {
    fprintf(stderr, "child: %s\n", mr_last_error());
    return 4;
  }
  for (uint32_t i = 0; i < pages.page_count; i++) close(fds[i]);
  if (!gpu_all_equal(p, pages.bytes, 0x5a, NULL)) return 5;
  gpu_fill(p, pages.bytes, 0x33, NULL);
  if (mri_cuda()->cuStreamSynchronize(NULL) != CUDA_SUCCESS) return 6;
  if (mr_ipc_pages_close(p) != MR_OK) return 7;
  return mr_ipc_send(sock, -1, "k", 1) == MR_OK ? 0 : 8;
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "child") == 0) {
    GPU_TEST_REQUIRE();
    return child(atoi(argv[2]));
  }
  GPU_TEST_REQUIRE();
  int vmm = 0, fd_ok = 0;
  CUdevice dev;
  if (mri_cuda()->cuDeviceGet(&dev, 0) != CUDA_SUCCESS ||
      mri_cuda()->cuDeviceGetAttribute(
          &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev) != CUDA_SUCCESS ||
      mri_cuda()->cuDeviceGetAttribute(
          &fd_ok, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev) !=
          CUDA_SUCCESS ||
      !vmm || !fd_ok) {
    fprintf(stderr, "device 0 cannot share virtual-memory pages as file descriptors: skipped\n");
    return GPU_TEST_SKIP;
  }
  mr_resource *mr = NULL;
  void *pad = NULL, *block = NULL;
  if (mr_resource_from_spec("expandable(reserve=1GiB, ipc=fd)", 0, &mr) != MR_OK ||
      mr_allocate(mr, 4096, 0, NULL, &pad) != MR_OK ||
      mr_allocate(mr, BLOCK, 0, NULL, &block) != MR_OK) {
    fprintf(stderr, "expandable: %s\n", mr_last_error());
    return 1;
  }
  gpu_fill(block, BLOCK, 0x5a, NULL);
  if (mri_cuda()->cuStreamSynchronize(NULL) != CUDA_SUCCESS) return 1;
  mr_ipc_pages pages;
  int fds[8];
  if (mr_ipc_pages_export(mr, block, BLOCK, &pages, fds, 8) != MR_OK) {
    fprintf(stderr, "export: %s\n", mr_last_error());
    return 1;
  }
  int socks[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, socks) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    /* Only exec: the forked copy must not touch CUDA. */
    close(socks[0]);
    char arg[16];
    snprintf(arg, sizeof arg, "%d", socks[1]);
    execl("/proc/self/exe", argv[0], "child", arg, (char *)NULL);
    _exit(127);
  }
  close(socks[1]);
  int rc = 0;
  if (mr_ipc_send(socks[0], -1, &pages, sizeof pages) != MR_OK) rc = 1;
  for (uint32_t i = 0; i < pages.page_count && rc == 0; i++)
    if (mr_ipc_send(socks[0], fds[i], "p", 1) != MR_OK) rc = 1;
  for (uint32_t i = 0; i < pages.page_count; i++) close(fds[i]);
  char ack = 0;
  if (rc == 0 && mr_ipc_receive(socks[0], NULL, &ack, 1) != MR_OK) rc = 1;
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "the importing process failed (status %d)\n", status);
    rc = 1;
  }
  if (rc == 0 && !gpu_all_equal(block, BLOCK, 0x33, NULL)) {
    fprintf(stderr, "the child's bytes did not reach the exporter\n");
    rc = 1;
  }
  close(socks[0]);
  if (mr_deallocate(mr, block, BLOCK, 0, NULL) != MR_OK ||
      mr_deallocate(mr, pad, 4096, 0, NULL) != MR_OK)
    rc = 1;
  mr_resource_release(mr);
  if (rc == 0) printf("expandable(ipc=fd): %u pages shared both ways\n", pages.page_count);
  return rc;
}
