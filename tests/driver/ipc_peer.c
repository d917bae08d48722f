/*
 * ipc_peer.c: the other process of the IPC tests (ipc_cases.h), started as
 *   test_driver_ipc_peer ROLE SOCKET_FD
 * on device 0 of whatever driver the library loads (the fake through
 * MRCTX_CUDA_DRIVER, or the real one). Roles:
 *   import       receive the pool and a block, check its bytes, free the
 *                import, say so (ack), release the imported pool, exit
 *   export       create pool(kind=device, ipc=fd), fill a block, send both;
 *                after the test's ack (its import is freed) free the block,
 *                check the pool holds nothing in use, ack, exit
 *   export-exit  the same up to the ack, then exit with the block still
 *                allocated and imported (the exporter exits first)
 *   import-forged  receive the pool and a block whose record claims more
 *                bytes than its allocation has; its import must be refused
 *                (MR_ERR_INVALID_ARGUMENT, nothing left live), say so, exit
 * Every failure is sent as an ack with its message, and the exit status is
 * 1; 0 when all went as planned.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc_cases.h"

static int sock = -1;

static int fail_with(mr_status st, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "peer: %s: %s: %s", what, mr_status_name(st), mr_last_error());
  fprintf(stderr, "%s\n", message);
  ipc_send_ack(sock, st != MR_OK ? st : MR_ERR_INVALID_ARGUMENT, message);
  return 1;
}

static int run_import(void) {
  mr_resource *imported = NULL;
  mr_status st = mr_ipc_pool_receive(sock, &imported);
  if (st != MR_OK) return fail_with(st, "mr_ipc_pool_receive");
  ipc_block_msg block;
  st = mr_ipc_receive(sock, NULL, &block, sizeof block);
  if (st != MR_OK) return fail_with(st, "receiving the block");
  void *p = NULL;
  st = mr_ipc_ptr_import(imported, &block.ptr, &p);
  if (st != MR_OK) return fail_with(st, "mr_ipc_ptr_import");
  if (!ipc_check_bytes(p, (size_t)block.ptr.bytes, (unsigned char)block.pattern))
    return fail_with(MR_ERR_INVALID_ARGUMENT, "the imported bytes differ");
  st = mr_deallocate(imported, p, (size_t)block.ptr.bytes, 0, NULL);
  if (st == MR_OK) st = mr_resource_synchronize(imported, NULL);
  if (st != MR_OK) return fail_with(st, "freeing the import");
  size_t live = 1;
  st = mr_ipc_imports_live(imported, &live);
  if (st != MR_OK || live != 0) return fail_with(st, "imports still live after the free");
  mr_resource_release(imported);
  return ipc_send_ack(sock, MR_OK, "imported, checked and freed") ? 0 : 1;
}

static int run_import_forged(void) {
  mr_resource *imported = NULL;
  mr_status st = mr_ipc_pool_receive(sock, &imported);
  if (st != MR_OK) return fail_with(st, "mr_ipc_pool_receive");
  ipc_block_msg block;
  st = mr_ipc_receive(sock, NULL, &block, sizeof block);
  if (st != MR_OK) return fail_with(st, "receiving the block");
  void *p = (void *)1;
  st = mr_ipc_ptr_import(imported, &block.ptr, &p);
  if (st != MR_ERR_INVALID_ARGUMENT || p != NULL ||
      strstr(mr_last_error(), "a record larger than its block is refused") == NULL) {
    char what[320];
    snprintf(what, sizeof what, "importing a record of %llu bytes (%s, not the refusal)",
             (unsigned long long)block.ptr.bytes, st == MR_OK ? "accepted" : "refused");
    return fail_with(st == MR_OK ? MR_ERR_INVALID_ARGUMENT : st, what);
  }
  size_t live = 1;
  st = mr_ipc_imports_live(imported, &live);
  if (st != MR_OK || live != 0) return fail_with(st, "an import live after the refusal");
  mr_resource_release(imported);
  return ipc_send_ack(sock, MR_OK, "the forged record was refused") ? 0 : 1;
}

static int run_export(bool exit_first) {
  mr_resource *pool = NULL;
  mr_status st = ipc_pool_create(&pool);
  if (st != MR_OK) return fail_with(st, "creating the pool");
  void *p = NULL;
  st = mr_allocate(pool, IPC_BLOCK_BYTES, 0, NULL, &p);
  if (st != MR_OK) return fail_with(st, "allocating");
  if (!ipc_fill(p, IPC_BLOCK_BYTES, IPC_PATTERN_PEER))
    return fail_with(MR_ERR_DRIVER, "filling the block");
  st = mr_ipc_pool_send(sock, pool);
  if (st != MR_OK) return fail_with(st, "mr_ipc_pool_send");
  ipc_block_msg block;
  memset(&block, 0, sizeof block);
  block.pattern = IPC_PATTERN_PEER;
  st = mr_ipc_ptr_export(pool, p, IPC_BLOCK_BYTES, &block.ptr);
  if (st == MR_OK) st = mr_ipc_send(sock, -1, &block, sizeof block);
  if (st != MR_OK) return fail_with(st, "exporting the block");
  ipc_ack ack;
  if (!ipc_receive_ack(sock, &ack)) return fail_with(MR_ERR_INVALID_ARGUMENT, "no ack");
  if (ack.status != MR_OK) {
    fprintf(stderr, "peer: the test reported: %s\n", ack.message);
    return 1;
  }
  /* The exporter leaves first, its block still allocated and imported. */
  if (exit_first) _exit(0);
  st = mr_deallocate(pool, p, IPC_BLOCK_BYTES, 0, NULL);
  if (st == MR_OK) st = mr_resource_synchronize(pool, NULL);
  if (st != MR_OK) return fail_with(st, "freeing the block");
  mr_pool_info info = {.size = sizeof info};
  st = mr_pool_resource_get_info(pool, &info);
  if (st != MR_OK) return fail_with(st, "reading the pool");
  if (info.used_bytes != 0)
    return fail_with(MR_ERR_INVALID_ARGUMENT, "the pool still hands out bytes");
  mr_resource_release(pool);
  return ipc_send_ack(sock, MR_OK, "freed; the pool holds nothing in use") ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s import|import-forged|export|export-exit SOCKET_FD\n", argv[0]);
    return 2;
  }
  sock = atoi(argv[2]);
  if (!ipc_bind_device0()) return fail_with(mr_driver_load(), "binding device 0");
  if (strcmp(argv[1], "import") == 0) return run_import();
  if (strcmp(argv[1], "import-forged") == 0) return run_import_forged();
  if (strcmp(argv[1], "export") == 0) return run_export(false);
  if (strcmp(argv[1], "export-exit") == 0) return run_export(true);
  fprintf(stderr, "unknown role %s\n", argv[1]);
  return 2;
}
