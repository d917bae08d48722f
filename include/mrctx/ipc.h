/**
 * @file
 * ipc.h: pools shared between processes (docs/driver.md, "Sharing a pool
 * between processes"), and blocks of expandable(..., ipc=fd) (at the end:
 * mr_ipc_pages_*; docs/driver.md, "expandable").
 *
 * A pool created with MR_POOL_HANDLE_FD (spec: pool(kind=device, ipc=fd))
 * can be exported as a POSIX file descriptor and imported by another
 * process on the same host; each block allocated from it can then be
 * exported as a fixed-size mr_ipc_ptr (plain bytes, sent any way you like)
 * and imported into the imported pool. The descriptor itself must travel
 * over a Unix socket (SCM_RIGHTS): mr_ipc_send / mr_ipc_receive do that.
 *
 * The exporting side:
 *
 *     mr_ipc_pool_send(sock, pool);                  // once per importer
 *     mr_allocate(pool, n, 0, stream, &p);  ... write p on stream ...
 *     mr_ipc_ptr ip;  mr_ipc_ptr_export(pool, p, n, &ip);
 *     cuStreamSynchronize(stream);                   // the writes are done
 *     mr_ipc_send(sock, -1, &ip, sizeof ip);
 *     ... wait until the importer says it freed its import ...
 *     mr_deallocate(pool, p, n, 0, stream);
 *
 * The importing side:
 *
 *     mr_resource *imported;  mr_ipc_pool_receive(sock, &imported);
 *     mr_ipc_ptr ip;  mr_ipc_receive(sock, NULL, &ip, sizeof ip);
 *     void *p;  mr_ipc_ptr_import(imported, &ip, &p);
 *     ... read p ...
 *     mr_deallocate(imported, p, ip.bytes, 0, stream);
 *     cuStreamSynchronize(stream);  ... tell the exporter ...
 *     mr_resource_release(imported);
 *
 * Lifetime rules (the driver's; the library enforces what it can see):
 *  - an importer frees only what it imported, each import once, through
 *    the imported resource; it never allocates from it (MR_ERR_UNSUPPORTED);
 *  - the exporter frees a block only after every importer's free of it has
 *    completed (freed and its stream synchronized);
 *  - an imported resource released while imports are live reports them
 *    on stderr ("mrctx: leak: ") as track(...) does, and the driver keeps
 *    their memory mapped until the process exits.
 */
#ifndef MRCTX_IPC_H
#define MRCTX_IPC_H

#include <stddef.h>
#include <stdint.h>

#include <mrctx/driver.h>
#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** Tells mrctx's IPC records from other bytes ("mrIP"). */
#define MR_IPC_MAGIC 0x5049726du

/** What a process needs besides the descriptor to import a pool: plain
 * bytes, the same on both sides of a socket on one host. */
typedef struct mr_ipc_pool_data {
  uint32_t magic;                /**< MR_IPC_MAGIC */
  uint32_t version;              /**< 1 */
  uint64_t pool_id;              /**< chosen when the pool was created */
  unsigned char device_uuid[16]; /**< the pool's device (its CUDA UUID) */
  int32_t kind;                  /**< mr_pool_kind: MR_POOL_DEVICE */
  int32_t exporter_device;       /**< the device's ordinal in the exporter */
  int64_t exporter_pid;          /**< the exporting process */
  unsigned char reserved[16];    /**< zero */
} mr_ipc_pool_data;

/** One exported block: plain bytes (the driver's 64 bytes of export data,
 * the pool it belongs to and its size). */
typedef struct mr_ipc_ptr {
  unsigned char data[64];    /**< the driver's CUmemPoolPtrExportData */
  uint64_t pool_id;          /**< the pool's mr_ipc_pool_data.pool_id */
  uint64_t bytes;            /**< the block's size, to free it with */
  uint32_t magic;            /**< MR_IPC_MAGIC */
  uint32_t version;          /**< 1 */
  unsigned char reserved[8]; /**< zero */
} mr_ipc_ptr;

/** OUT: *fd, a new file descriptor for the pool of `mr` (a resource from
 * mr_pool_resource_create with MR_POOL_HANDLE_FD, or pool(ipc=fd)), which
 * the caller closes; *data, what the importer needs with it.
 * MR_ERR_UNSUPPORTED for a pool created without a handle type,
 * MR_ERR_INVALID_ARGUMENT for any other resource (adaptors are not looked
 * through: export the pool resource itself). */
MR_NODISCARD MR_API mr_status mr_ipc_pool_export(const mr_resource *mr, int *fd,
                                                 mr_ipc_pool_data *data);

/** OUT: *out, a resource over the pool `fd` and `data` describe (from
 * mr_ipc_pool_export in another process). It owns the imported pool and
 * cannot allocate; it frees blocks imported with mr_ipc_ptr_import. The
 * pool's device is found by its UUID (MR_ERR_NO_DEVICE if this process
 * does not see it, as CUDA_VISIBLE_DEVICES may hide it). `data` is checked,
 * not trusted: MR_ERR_INVALID_ARGUMENT, naming both devices, when the
 * driver's pool is on another device than the UUID names, and for fields
 * mr_ipc_pool_export never writes (reserved bytes not zero, pool ID 0, a
 * pid or device below 0); MR_ERR_UNSUPPORTED for another version or kind.
 * The caller keeps `fd` and closes it. */
MR_NODISCARD MR_API mr_status mr_ipc_pool_import(int fd, const mr_ipc_pool_data *data,
                                                 mr_resource **out);

/** OUT: *out, the record another process imports the block at `ptr`
 * (`bytes`, as allocated from `mr` with alignment 256 or less) with.
 * [ptr, ptr + bytes) must lie inside one allocation of `mr`'s pool, from
 * its start, as the driver reports it (cuPointerGetAttribute's range):
 * MR_ERR_INVALID_ARGUMENT otherwise, naming ptr, bytes and the
 * allocation's range. Fewer bytes than were allocated may be exported.
 * Export only after the allocation was made; the importer must not read
 * before the exporter's writes are done (synchronize their stream first). */
MR_NODISCARD MR_API mr_status mr_ipc_ptr_export(const mr_resource *mr, const void *ptr,
                                                size_t bytes, mr_ipc_ptr *out);

/** OUT: *ptr, the block `ipc` describes, mapped into this process.
 * `imported` is a resource from mr_ipc_pool_import of the pool the block
 * came from (MR_ERR_INVALID_ARGUMENT otherwise, and for a block already
 * imported and not yet freed). The driver maps the whole allocation; the
 * import is refused (MR_ERR_INVALID_ARGUMENT, the mapping undone) unless
 * it is the start of an allocation of that pool, on its device, at least
 * ipc->bytes long, and the record's reserved bytes are zero. Free it with
 * mr_deallocate(imported, *ptr, ipc->bytes, 0, stream), once. */
MR_NODISCARD MR_API mr_status mr_ipc_ptr_import(mr_resource *imported, const mr_ipc_ptr *ipc,
                                                void **ptr);

/** Send `bytes` of `payload` (at least 1) over the connected Unix socket
 * `socket`, with the descriptor `fd` attached (SCM_RIGHTS) unless fd is
 * -1. The caller keeps `fd`. Interrupted writes (EINTR) are retried. */
MR_NODISCARD MR_API mr_status mr_ipc_send(int socket, int fd, const void *payload, size_t bytes);

/** Receive exactly `bytes` of payload from `socket` (one mr_ipc_send), and
 * the descriptor sent with it into *fd (the caller closes it), or -1 in
 * *fd when none came. fd NULL: none is expected, and one that comes is
 * closed and refused. On a SOCK_SEQPACKET or SOCK_DGRAM socket the one
 * message received must be exactly `bytes` long; on a SOCK_STREAM socket
 * exactly `bytes` are read (a stream keeps no boundaries: what follows
 * stays for the next call). MR_ERR_INVALID_ARGUMENT, saying which, when
 * the peer closed the socket, the message is short, longer than `bytes`
 * (cut by the kernel, MSG_TRUNC), or carried more descriptors than fit
 * (MSG_CTRUNC), or a descriptor was expected and none came; any descriptor
 * received with a refused message is closed. EINTR is retried. */
MR_NODISCARD MR_API mr_status mr_ipc_receive(int socket, int *fd, void *payload, size_t bytes);

/** mr_ipc_pool_export, then mr_ipc_send of the descriptor and the data. */
MR_NODISCARD MR_API mr_status mr_ipc_pool_send(int socket, const mr_resource *mr);

/** mr_ipc_receive of one mr_ipc_pool_send, then mr_ipc_pool_import; the
 * received descriptor is closed in every case. */
MR_NODISCARD MR_API mr_status mr_ipc_pool_receive(int socket, mr_resource **out);

/** OUT: *live, the blocks imported into `imported` and not yet freed.
 * MR_ERR_INVALID_ARGUMENT if it is not an imported pool. */
MR_NODISCARD MR_API mr_status mr_ipc_imports_live(const mr_resource *imported, size_t *live);

/** One block of an expandable(..., ipc=fd) resource, exported: plain bytes
 * that travel with one file descriptor per page the block touches (in
 * order). A page may hold other blocks too: the importer sees their bytes,
 * so share blocks from a resource used for sharing. */
typedef struct mr_ipc_pages {
  uint32_t magic;             /**< MR_IPC_MAGIC */
  uint32_t version;           /**< 1 */
  uint64_t page_size;         /**< the exporter's page */
  uint64_t offset;            /**< where the block starts in its first page */
  uint64_t bytes;             /**< the block's size, as exported */
  uint32_t page_count;        /**< descriptors that go with it */
  int32_t exporter_device;    /**< the device's ordinal in the exporter */
  unsigned char reserved[16]; /**< zero */
} mr_ipc_pages;

/** OUT: *out and fds[0 .. out->page_count - 1], new descriptors for the
 * pages of the live block `ptr` (`bytes`, as allocated) of `mr`, an
 * expandable(..., ipc=fd) resource; the caller sends them (mr_ipc_send,
 * one each) and closes them. MR_ERR_INVALID_ARGUMENT for any other
 * resource (adaptors are not looked through), a pointer that is not a
 * live block, or fewer than the block's pages in `fd_capacity` (the
 * message says how many); MR_ERR_UNSUPPORTED without ipc=fd. The exporter
 * frees the block only after every importer closed it. */
MR_NODISCARD MR_API mr_status mr_ipc_pages_export(const mr_resource *mr, const void *ptr,
                                                  size_t bytes, mr_ipc_pages *out, int *fds,
                                                  size_t fd_capacity);

/** OUT: *ptr, the block `pages` and `fds` (pages->page_count descriptors,
 * which the caller keeps and closes) describe, mapped into this process
 * for `device` to read and write (a range of its own, reserved here). The
 * record is checked, not trusted (MR_ERR_INVALID_ARGUMENT). Close it with
 * mr_ipc_pages_close once this process's work on it is done. */
MR_NODISCARD MR_API mr_status mr_ipc_pages_import(int device, const mr_ipc_pages *pages,
                                                  const int *fds, void **ptr);

/** Unmap a block mr_ipc_pages_import mapped (after the work on it is
 * done); MR_ERR_INVALID_ARGUMENT for any other pointer. */
MR_NODISCARD MR_API mr_status mr_ipc_pages_close(void *ptr);

MR_EXTERN_C_END

#endif /* MRCTX_IPC_H */
