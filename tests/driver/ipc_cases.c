/* ipc_cases.c: what both sides of the IPC tests share (ipc_cases.h). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/cuda_api.h"
#include "ipc_cases.h"
#include "test_util.h"

extern char **environ;

pid_t ipc_spawn_peer(const char *peer, const char *role, int *sock) {
  int pair[2];
  *sock = -1;
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) return -1;
  /* The test's end is closed in the peer; the peer's end is inherited. */
  if (fcntl(pair[0], F_SETFD, FD_CLOEXEC) != 0) {
    close(pair[0]);
    close(pair[1]);
    return -1;
  }
  char fd_text[16];
  snprintf(fd_text, sizeof fd_text, "%d", pair[1]);
  char *argv[] = {(char *)peer, (char *)role, fd_text, NULL};
  pid_t pid = -1;
  int rc = posix_spawn(&pid, peer, NULL, NULL, argv, environ);
  close(pair[1]);
  if (rc != 0) {
    fprintf(stderr, "posix_spawn %s: %s\n", peer, strerror(rc));
    close(pair[0]);
    return -1;
  }
  *sock = pair[0];
  return pid;
}

int ipc_wait_peer(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool ipc_bind_device0(void) {
  if (mr_driver_load() != MR_OK) return false;
  const mri_cuda_api *cu = mri_cuda();
  CUdevice dev;
  CUcontext ctx;
  return cu->cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
         cu->cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
         cu->cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
}

bool ipc_fill(void *p, size_t n, unsigned char v) {
  const mri_cuda_api *cu = mri_cuda();
  CUresult r = cu->cuMemsetD8Async((CUdeviceptr)(uintptr_t)p, v, n, NULL);
  if (r == CUDA_SUCCESS) r = cu->cuStreamSynchronize(NULL);
  if (r != CUDA_SUCCESS) fprintf(stderr, "ipc_fill: %s\n", mri_cuda_error_name(r));
  return r == CUDA_SUCCESS;
}

bool ipc_check_bytes(const void *p, size_t n, unsigned char v) {
  const mri_cuda_api *cu = mri_cuda();
  unsigned char *host = malloc(n);
  if (host == NULL) return false;
  CUresult r = cu->cuMemcpyAsync((CUdeviceptr)(uintptr_t)host, (CUdeviceptr)(uintptr_t)p, n, NULL);
  if (r == CUDA_SUCCESS) r = cu->cuStreamSynchronize(NULL);
  bool same = r == CUDA_SUCCESS;
  if (!same) fprintf(stderr, "ipc_check_bytes: %s\n", mri_cuda_error_name(r));
  for (size_t i = 0; same && i < n; i++) {
    if (host[i] != v) {
      fprintf(stderr, "ipc_check_bytes: byte %zu is 0x%02x, not 0x%02x\n", i, host[i], v);
      same = false;
    }
  }
  free(host);
  return same;
}

bool ipc_send_ack(int sock, mr_status status, const char *message) {
  ipc_ack ack;
  memset(&ack, 0, sizeof ack);
  ack.status = (int32_t)status;
  snprintf(ack.message, sizeof ack.message, "%s", message != NULL ? message : "");
  return mr_ipc_send(sock, -1, &ack, sizeof ack) == MR_OK;
}

bool ipc_receive_ack(int sock, ipc_ack *ack) {
  memset(ack, 0, sizeof *ack);
  return mr_ipc_receive(sock, NULL, ack, sizeof *ack) == MR_OK;
}

mr_status ipc_pool_create(mr_resource **out) {
  return mr_resource_from_spec("pool(kind=device, ipc=fd)", 0, out);
}

static uint64_t pool_used(mr_resource *pool) {
  mr_pool_info info = {.size = sizeof info};
  assert_ok(mr_pool_resource_get_info(pool, &info));
  return info.used_bytes;
}

void ipc_case_importer_exits_first(const char *peer_path) {
  mr_resource *pool = NULL;
  assert_ok(ipc_pool_create(&pool));
  void *p = NULL;
  assert_ok(mr_allocate(pool, IPC_BLOCK_BYTES, 0, NULL, &p));
  assert_true(ipc_fill(p, IPC_BLOCK_BYTES, IPC_PATTERN_PARENT));
  int sock = -1;
  pid_t pid = ipc_spawn_peer(peer_path, "import", &sock);
  assert_true(pid > 0);
  assert_ok(mr_ipc_pool_send(sock, pool));
  ipc_block_msg block;
  memset(&block, 0, sizeof block);
  block.pattern = IPC_PATTERN_PARENT;
  assert_ok(mr_ipc_ptr_export(pool, p, IPC_BLOCK_BYTES, &block.ptr));
  assert_ok(mr_ipc_send(sock, -1, &block, sizeof block));
  ipc_finish_peer(sock, pid, "importer");
  /* The importer is gone and freed first: now the exporter frees. */
  assert_ok(mr_deallocate(pool, p, IPC_BLOCK_BYTES, 0, NULL));
  assert_ok(mr_resource_synchronize(pool, NULL)); /* the free done, not only queued */
  assert_int_equal(pool_used(pool), 0);
  mr_resource_release(pool);
}

void ipc_finish_peer(int sock, pid_t pid, const char *who) {
  ipc_ack ack;
  assert_true(ipc_receive_ack(sock, &ack));
  if (ack.status != MR_OK) print_error("the %s said: %s\n", who, ack.message);
  assert_int_equal(ack.status, MR_OK);
  assert_int_equal(ipc_wait_peer(pid), 0);
  close(sock);
}

mr_resource *ipc_import_from_peer(const char *peer_path, const char *role, pid_t *pid, int *sock,
                                  void **p, ipc_block_msg *block) {
  *pid = ipc_spawn_peer(peer_path, role, sock);
  assert_true(*pid > 0);
  mr_resource *imported = NULL;
  assert_ok(mr_ipc_pool_receive(*sock, &imported));
  assert_ok(mr_ipc_receive(*sock, NULL, block, sizeof *block));
  assert_ok(mr_ipc_ptr_import(imported, &block->ptr, p));
  assert_true(ipc_check_bytes(*p, (size_t)block->ptr.bytes, (unsigned char)block->pattern));
  return imported;
}

void ipc_case_exporter_exits_first(const char *peer_path) {
  int sock = -1;
  pid_t pid = -1;
  void *p = NULL;
  ipc_block_msg block;
  mr_resource *imported = ipc_import_from_peer(peer_path, "export", &pid, &sock, &p, &block);
  assert_ok(mr_deallocate(imported, p, (size_t)block.ptr.bytes, 0, NULL));
  assert_ok(mr_resource_synchronize(imported, NULL));
  assert_true(ipc_send_ack(sock, MR_OK, "freed"));
  ipc_finish_peer(sock, pid, "exporter");
  /* The exporter has exited; the imported pool goes with its resource. */
  size_t live = 1;
  assert_ok(mr_ipc_imports_live(imported, &live));
  assert_int_equal(live, 0);
  mr_resource_release(imported);
}

void ipc_case_sizes_are_checked(const char *peer_path) {
  mr_resource *pool = NULL;
  assert_ok(ipc_pool_create(&pool));
  void *p = NULL;
  assert_ok(mr_allocate(pool, IPC_BLOCK_BYTES, 0, NULL, &p));
  assert_true(ipc_fill(p, IPC_BLOCK_BYTES, IPC_PATTERN_PARENT));
  /* The driver's size of the allocation: the requested size, or more. */
  size_t range = 0;
  CUdeviceptr start = 0;
  assert_int_equal(mri_cuda()->cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE,
                                                     (CUdeviceptr)(uintptr_t)p),
                   CUDA_SUCCESS);
  assert_int_equal(mri_cuda()->cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                                     (CUdeviceptr)(uintptr_t)p),
                   CUDA_SUCCESS);
  fprintf(stderr, "the driver's range of a %zu-byte block: [0x%llx, +%zu)\n", IPC_BLOCK_BYTES,
          (unsigned long long)start, range);
  assert_true(range >= IPC_BLOCK_BYTES);
  mr_ipc_ptr record;
  char text[96];
  snprintf(text, sizeof text, "the driver's allocation is [0x%llx, 0x%llx), %zu bytes",
           (unsigned long long)start, (unsigned long long)(start + range), range);
  assert_status(mr_ipc_ptr_export(pool, p, range + 1, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("runs past its block");
  assert_error_contains(text);
  assert_int_equal(record.magic, 0);
  assert_status(mr_ipc_ptr_export(pool, p, 2 * range, &record), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_ptr_export(pool, p, SIZE_MAX, &record), MR_ERR_INVALID_ARGUMENT);
  assert_status(mr_ipc_ptr_export(pool, (char *)p + 4096, 4096, &record), MR_ERR_INVALID_ARGUMENT);
  assert_error_contains("not its start");
  assert_error_contains(text);
  assert_ok(mr_ipc_ptr_export(pool, p, IPC_BLOCK_BYTES / 2, &record));
  assert_ok(mr_ipc_ptr_export(pool, p, IPC_BLOCK_BYTES, &record));

  /* A record altered after export: the importer must refuse it. */
  int sock = -1;
  pid_t pid = ipc_spawn_peer(peer_path, "import-forged", &sock);
  assert_true(pid > 0);
  assert_ok(mr_ipc_pool_send(sock, pool));
  ipc_block_msg block;
  memset(&block, 0, sizeof block);
  block.pattern = IPC_PATTERN_PARENT;
  block.ptr = record;
  block.ptr.bytes = 2 * (uint64_t)range;
  assert_ok(mr_ipc_send(sock, -1, &block, sizeof block));
  ipc_finish_peer(sock, pid, "importer of the forged record");
  assert_ok(mr_deallocate(pool, p, IPC_BLOCK_BYTES, 0, NULL));
  assert_ok(mr_resource_synchronize(pool, NULL));
  assert_int_equal(pool_used(pool), 0);
  mr_resource_release(pool);
}
