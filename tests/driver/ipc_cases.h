/*
 * ipc_cases.h: two processes sharing a pool (<mrctx/ipc.h>), for the fake
 * suite (test_driver_ipc.c) and the gpu suite (test_driver_ipc_gpu.c). The
 * test process runs one side; the other side is a second process running
 * test_driver_ipc_peer (ipc_peer.c), started with posix_spawn, which talks
 * to it over a socketpair. Bytes are written with cuMemsetD8Async and read
 * back with cuMemcpyAsync (no kernels), through the library's own driver
 * table.
 */
#ifndef MRCTX_TESTS_IPC_CASES_H
#define MRCTX_TESTS_IPC_CASES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <mrctx/mrctx.h>

#define IPC_BLOCK_BYTES ((size_t)1 << 20)
#define IPC_PATTERN_PARENT 0x5a
#define IPC_PATTERN_PEER 0xc3

/* One block sent from the exporter: its record and the byte it holds. */
typedef struct ipc_block_msg {
  mr_ipc_ptr ptr;
  uint32_t pattern;
  uint32_t reserved;
} ipc_block_msg;

/* A side's report: MR_OK, or what failed. */
typedef struct ipc_ack {
  int32_t status;
  char message[252];
} ipc_ack;

/* Start `peer` (the test_driver_ipc_peer executable) in `role` with the
 * other end of a new socketpair; *sock is this side's end. */
pid_t ipc_spawn_peer(const char *peer, const char *role, int *sock);
/* Wait for the peer; its exit status (-1 if it did not exit normally). */
int ipc_wait_peer(pid_t pid);

/* Make device 0's primary context current on this thread (the library's
 * driver must be loaded). */
bool ipc_bind_device0(void);
/* Set n bytes at device memory p to v, and wait. */
bool ipc_fill(void *p, size_t n, unsigned char v);
/* Copy n bytes at device memory p to the host and check each is v. */
bool ipc_check_bytes(const void *p, size_t n, unsigned char v);

/* Send and receive the messages above (false, with mr_last_error(), on
 * failure). */
bool ipc_send_ack(int sock, mr_status status, const char *message);
bool ipc_receive_ack(int sock, ipc_ack *ack);

/* The IPC pool both sides use: pool(kind=device, ipc=fd) on device 0,
 * built from the spec, as a configuration would. */
mr_status ipc_pool_create(mr_resource **out);

/* The scenarios both suites run (cmocka assertions; `peer_path` is the
 * peer executable):
 *  - this process exports a filled block; the peer imports it, checks the
 *    bytes, frees and exits; then this process frees; the pool holds
 *    nothing in use;
 *  - the peer exports; this process imports, checks, frees and says so;
 *    the peer frees, checks its pool and exits first; this process then
 *    releases its imported pool with no import live. */
void ipc_case_importer_exits_first(const char *peer_path);
void ipc_case_exporter_exits_first(const char *peer_path);

/* The exporter's size checks, in this process: a block exported with more
 * bytes than the driver's allocation has (by one byte, and twice over) or
 * from inside it is refused, naming the range; its own size or less is
 * exported. Then the peer imports a record whose size was raised to twice
 * the allocation after export, and must be refused (the importer's check
 * against the range the driver mapped). */
void ipc_case_sizes_are_checked(const char *peer_path);

/* Start the peer in `role` (an exporting one), receive its pool and
 * block, import the block and check its bytes; *p is the import, *pid and
 * *sock the peer's. */
mr_resource *ipc_import_from_peer(const char *peer_path, const char *role, pid_t *pid, int *sock,
                                  void **p, ipc_block_msg *block);
/* Receive the peer's ack (MR_OK, or the test fails showing what the `who`
 * side said), wait for it to exit with 0 and close the socket. */
void ipc_finish_peer(int sock, pid_t pid, const char *who);

#endif
