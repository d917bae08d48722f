/**
 * @file
 * driver.h: the CUDA driver layer.
 *
 * mrctx opens libcuda.so.1 at run time (dlopen, then cuGetProcAddress for the
 * CUDA 13.0 entry points) the first time it needs it, so the library loads
 * and works on machines without a driver. Set MRCTX_CUDA_DRIVER to the path
 * of another library to load instead (a test driver, a shim).
 *
 * Resources here (spec names in brackets):
 *  - [device]          the device's *current* pool (cuMemGetMemPool), looked
 *                      up at every allocation, so an application's
 *                      cuMemSetMemPool is honoured;
 *  - [device_default]  the device's default pool;
 *  - [pinned]          the host-pinned default pool, readable and writable
 *                      from every device;
 *  - [managed]         the managed default pool;
 *  - [pool(...)]       a pool this resource creates and owns;
 *  - [expandable(...)] reserved address ranges backed by physical pages
 *                      mapped as they grow (virtual memory management);
 *  - [sync_device], [sync_pinned], [sync_managed]: cuMemAlloc,
 *                      cuMemHostAlloc, cuMemAllocManaged (synchronous: the
 *                      stream argument only orders the free after prior work;
 *                      on a stream capturing a graph both the allocation and
 *                      the free fail with MR_ERR_UNSUPPORTED).
 *
 * A *default* pool whose release threshold is 0 is raised to the maximum the
 * first time mrctx uses it (otherwise every free hands memory back to the OS
 * and allocation stalls). A pool the application set or created is never
 * modified. A device without memory-pool support gets the synchronous
 * resource instead, and its description says so.
 *
 * Without a driver, constructors fail with MR_ERR_NO_DRIVER; with a driver
 * but an invalid device id, MR_ERR_NO_DEVICE. Driver errors map to
 * MR_ERR_DRIVER (MR_ERR_OUT_OF_MEMORY for out of memory) and mr_last_error()
 * names the driver's error.
 *
 * `device` arguments are CUDA device ordinals as the driver numbers them
 * (after CUDA_VISIBLE_DEVICES). For pinned and managed memory it names the
 * device whose primary context is made current when a thread has none.
 */
#ifndef MRCTX_DRIVER_H
#define MRCTX_DRIVER_H

#include <string.h>

#include <mrctx/resource.h>

MR_EXTERN_C_BEGIN

/** Load the driver now (every other call loads it when needed). Idempotent
 * and thread-safe; a failure is remembered and reported the same way each
 * time: MR_ERR_NO_DRIVER (library missing, entry points missing, cuInit
 * failed) or MR_ERR_NO_DEVICE (driver fine, no device). */
MR_NODISCARD MR_API mr_status mr_driver_load(void);

/** The driver's CUDA version, 1000 * major + 10 * minor (13000 for 13.0). */
MR_NODISCARD MR_API mr_status mr_driver_version(int *version);

/** How many devices the driver shows. Without a driver: MR_ERR_NO_DRIVER and
 * *count 0. With a driver and no device: MR_OK and 0. */
MR_NODISCARD MR_API mr_status mr_device_count(int *count);

/** The device of the calling thread's current context; 0 if the thread has
 * none (as the CUDA runtime picks device 0) or there is no driver. */
MR_API int mr_current_device(void);

/** What the driver says about a device (mr_device_get_info). */
typedef struct mr_device_info {
  size_t size;                      /**< sizeof(mr_device_info): set it before the call */
  int device;                       /**< the device's ordinal */
  char name[256];                   /**< its name, such as "NVIDIA H200" */
  uint64_t total_memory;            /**< its memory, in bytes */
  int compute_capability_major;     /**< compute capability: 9 for 9.0 */
  int compute_capability_minor;     /**< compute capability: 0 for 9.0 */
  bool memory_pools_supported;      /**< device pools (cuMemAllocAsync) */
  bool host_memory_pools_supported; /**< pinned host pools */
  bool managed_memory;              /**< can allocate managed memory */
  bool concurrent_managed_access;   /**< host and device access managed memory
                                         at once */
} mr_device_info;

/** OUT: *info for `device`. */
MR_NODISCARD MR_API mr_status mr_device_get_info(int device, mr_device_info *info);

/** How much of `device`'s memory is free now, and its total, in bytes
 * (cuMemGetInfo, as torch.cuda.mem_get_info and rmm's
 * available_device_memory read it). Free memory is the whole device's:
 * every process's allocations count against it, and memory a driver pool
 * keeps for reuse counts as taken. The call runs under the device's primary
 * context, which it creates if no one has yet (as the CUDA runtime's first
 * call on a device does). OUT: *free_bytes, *total_bytes (both 0 on
 * failure); neither may be NULL. Errors as mr_device_get_info. */
MR_NODISCARD MR_API mr_status mr_device_get_memory(int device, uint64_t *free_bytes,
                                                   uint64_t *total_bytes);

/** What memory a pool holds. */
typedef enum mr_pool_kind {
  MR_POOL_DEVICE = 0,  /**< device memory on the pool's device */
  MR_POOL_PINNED = 1,  /**< page-locked host memory */
  MR_POOL_MANAGED = 2, /**< managed memory */
} mr_pool_kind;

/** "device", "pinned", "managed". Static. */
MR_API const char *mr_pool_kind_name(mr_pool_kind kind);

/** The driver's pools mrctx reports on. */
typedef enum mr_driver_pool {
  MR_DRIVER_POOL_DEVICE_CURRENT = 0,  /**< cuMemGetMemPool(device) */
  MR_DRIVER_POOL_DEVICE_DEFAULT = 1,  /**< cuMemGetDefaultMemPool(device) */
  MR_DRIVER_POOL_PINNED_DEFAULT = 2,  /**< the host-pinned default pool */
  MR_DRIVER_POOL_MANAGED_DEFAULT = 3, /**< the managed default pool */
} mr_driver_pool;

/** A driver pool's settings and use (mr_driver_pool_get_info,
 * mr_pool_resource_get_info). */
typedef struct mr_pool_info {
  size_t size;                /**< sizeof(mr_pool_info): set it before the call */
  mr_pool_kind kind;          /**< what memory it holds */
  int device;                 /**< the pool's device, -1 for host and managed pools */
  bool is_default;            /**< it is its location's default pool */
  bool is_current;            /**< it is its location's current pool */
  uint64_t release_threshold; /**< UINT64_MAX: keeps everything */
  uint64_t reserved_bytes;    /**< backing memory the pool holds now */
  uint64_t reserved_high;     /**< most it has held */
  uint64_t used_bytes;        /**< handed out now */
  uint64_t used_high;         /**< most handed out at once */
} mr_pool_info;

/** OUT: *info about one of the driver's pools for `device` (ignored for the
 * pinned and managed default pools, except to pick a context). Reading the
 * information never changes the pool. */
MR_NODISCARD MR_API mr_status mr_driver_pool_get_info(mr_driver_pool which, int device,
                                                      mr_pool_info *info);

/** OUT: *info about the pool a pool-backed resource (device, device_default,
 * pinned, managed, pool) allocates from now. MR_ERR_INVALID_ARGUMENT for any
 * other resource. */
MR_NODISCARD MR_API mr_status mr_pool_resource_get_info(const mr_resource *mr, mr_pool_info *info);

/** Reset the reserved and used high-water marks (reserved_high,
 * used_high of mr_pool_info) of one of the driver's pools for `device` to
 * what the pool holds and hands out now. The pools are the process's, not
 * mrctx's: every reader of the marks (PyTorch's cudaMallocAsync backend,
 * another library) sees the reset. Errors as mr_driver_pool_get_info. */
MR_NODISCARD MR_API mr_status mr_driver_pool_reset_peak(mr_driver_pool which, int device);

/** The same for the pool a pool-backed resource allocates from now.
 * MR_ERR_INVALID_ARGUMENT for any other resource (as
 * mr_pool_resource_get_info, which does not look down a chain). */
MR_NODISCARD MR_API mr_status mr_pool_resource_reset_peak(const mr_resource *mr);

/** Give back to the system the memory one of the driver's pools for
 * `device` holds and hands out to no one, down to `keep_bytes`
 * (cuMemPoolTrimTo), as torch.cuda.empty_cache() does under PyTorch's
 * cudaMallocAsync backend. Waits for the device's work first (under its
 * primary context, made current for the call), so that blocks freed on any
 * stream count as idle. The pools are the process's: memory anyone freed
 * into the pool is given back, and a pool whose release threshold mrctx
 * raised (the default pool, see docs/driver.md) keeps nothing past the
 * call. Errors as mr_driver_pool_get_info. */
MR_NODISCARD MR_API mr_status mr_driver_pool_trim(mr_driver_pool which, int device,
                                                  uint64_t keep_bytes);

/** The release threshold that keeps all freed memory in the pool. */
#define MR_POOL_RELEASE_MAX UINT64_MAX

/** Which devices may use a pool's memory (pool(access=...)). */
typedef enum mr_pool_access {
  MR_POOL_ACCESS_ALL = 0,  /**< read-write from every device that can reach it
                                (device pools: peers with peer access) */
  MR_POOL_ACCESS_NONE = 1, /**< only the owning device (device pools), or no
                                device at all (pinned pools) */
} mr_pool_access;

/** Whether a pool's memory can be shared with other processes
 * (pool(ipc=...); <mrctx/ipc.h> exports and imports it). */
typedef enum mr_pool_handle {
  MR_POOL_HANDLE_NONE = 0, /**< this process only */
  MR_POOL_HANDLE_FD = 1,   /**< shareable as a POSIX file descriptor (the
                                driver's CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
                                device pools only */
} mr_pool_handle;

/** A pool mrctx creates: pool(kind=..., release=..., max=..., initial=...,
 * access=..., ipc=...). Start from mr_pool_desc_init. */
typedef struct mr_pool_desc {
  size_t size;                /**< sizeof(mr_pool_desc): required */
  mr_pool_kind kind;          /**< what memory the pool holds */
  uint64_t release_threshold; /**< bytes the pool keeps when freed memory is
                                   idle; MR_POOL_RELEASE_MAX keeps it all */
  uint64_t max_size;          /**< most the pool may reserve; 0: no limit */
  uint64_t initial_size;      /**< reserved at creation; 0: nothing */
  mr_pool_access access;      /**< which devices may use the memory */
  mr_pool_handle handle_type; /**< MR_POOL_HANDLE_FD: other processes may
                                   import it (a caller's older, smaller
                                   struct ends before it: NONE) */
} mr_pool_desc;

/** Defaults: `kind`, release MR_POOL_RELEASE_MAX, no maximum, nothing
 * reserved up front, access from all devices, not shareable with other
 * processes (MR_POOL_HANDLE_NONE); `size` as this header sees
 * it. Inline, so it never writes past the caller's struct. A library newer
 * than the header gives fields past desc->size their defaults. */
static inline void mr_pool_desc_init(mr_pool_desc *desc, mr_pool_kind kind) {
  if (desc == NULL) return;
  memset(desc, 0, sizeof *desc);
  desc->size = sizeof *desc;
  desc->kind = kind;
  desc->release_threshold = MR_POOL_RELEASE_MAX;
  desc->max_size = 0;
  desc->initial_size = 0;
  desc->access = MR_POOL_ACCESS_ALL;
  desc->handle_type = MR_POOL_HANDLE_NONE;
}

/** Device tags' default: the device's current pool. */
MR_NODISCARD MR_API mr_status mr_device_resource_create(int device, mr_resource **out);
/** The device's default pool, even if the application set another. */
MR_NODISCARD MR_API mr_status mr_device_default_resource_create(int device, mr_resource **out);
/** The host-pinned default pool. */
MR_NODISCARD MR_API mr_status mr_pinned_resource_create(int device, mr_resource **out);
/** The managed default pool. */
MR_NODISCARD MR_API mr_status mr_managed_resource_create(int device, mr_resource **out);
/** A new pool owned by the resource; destroyed with it (the driver frees the
 * pool once its last allocation is freed). */
MR_NODISCARD MR_API mr_status mr_pool_resource_create(int device, const mr_pool_desc *desc,
                                                      mr_resource **out);
/** An expandable resource: expandable(page=..., large_page=..., reserve=...,
 * ipc=...).
 * Start from mr_expandable_desc_init. */
typedef struct mr_expandable_desc {
  size_t size;                /**< sizeof(mr_expandable_desc): required */
  uint64_t page_size;         /**< bytes of physical memory mapped at a time;
                                   0: the driver's granularity (2 MiB);
                                   rounded up to a multiple of it */
  uint64_t reserve_size;      /**< virtual address space reserved per stream;
                                   0: the device's total memory */
  mr_pool_handle handle_type; /**< MR_POOL_HANDLE_FD: pages shareable with
                                   other processes */
  uint64_t large_page_size;   /**< 0: one page size for every block; else
                                   blocks of at least this many bytes get
                                   pages of this size (rounded up to the
                                   granularity; larger than page_size), in
                                   a reserved range of their own per stream */
} mr_expandable_desc;

/** Defaults: the driver's page, the device's memory per stream, not
 * shareable; `size` as this header sees it. */
static inline void mr_expandable_desc_init(mr_expandable_desc *desc) {
  if (desc == NULL) return;
  memset(desc, 0, sizeof *desc);
  desc->size = sizeof *desc;
  desc->handle_type = MR_POOL_HANDLE_NONE;
}

/** Device memory over the driver's virtual memory management
 * (docs/resources.md, "expandable"): one reserved address range per stream,
 * physical pages mapped as blocks land on them and given back (after the
 * stream's work on them) by trim, mr_release_idle and the process-wide
 * reclaim. A cache over it (cache(expandable)) gets segments that are
 * neighbours in one range. `desc` NULL: the defaults. MR_ERR_UNSUPPORTED on
 * a device without virtual memory management. */
MR_NODISCARD MR_API mr_status mr_expandable_resource_create(int device,
                                                            const mr_expandable_desc *desc,
                                                            mr_resource **out);
/** What an expandable resource holds (mr_expandable_resource_get_info). */
typedef struct mr_expandable_info {
  size_t size;              /**< sizeof(mr_expandable_info): set it before the call */
  int device;               /**< the device its pages are on */
  uint64_t page_size;       /**< its page (the driver's granularity rounded) */
  uint64_t large_page_size; /**< the page of large blocks; 0: none */
  uint64_t ranges;          /**< reserved address ranges: one per stream
                                 (two with large_page) */
  uint64_t reserved_bytes;  /**< address space those ranges reserve */
  uint64_t mapped_bytes;    /**< physical memory its pages hold now */
  uint64_t mapped_high;     /**< the most they held at once, since creation
                                 or mr_expandable_resource_reset_peak */
  uint64_t idle_bytes;      /**< mapped pages no live block touches: what
                                 trim, mr_release_idle and the process-wide
                                 reclaim give back */
  uint64_t live_blocks;     /**< blocks handed out and not yet freed (those
                                 of graph captures, from the driver pool,
                                 included) */
} mr_expandable_info;

/** OUT: *info about an expandable resource (`mr` itself: a chain over one
 * is not looked through). MR_ERR_INVALID_ARGUMENT for any other resource.
 * Takes the resource's lock for a moment: any thread may call it. */
MR_NODISCARD MR_API mr_status mr_expandable_resource_get_info(const mr_resource *mr,
                                                              mr_expandable_info *info);
/** Reset mapped_high to what is mapped now (as mr_pool_resource_reset_peak
 * does for a pool): a measurement's peak starts there. */
MR_NODISCARD MR_API mr_status mr_expandable_resource_reset_peak(const mr_resource *mr);

/** Synchronous legacy allocation: cuMemAlloc / cuMemFree. */
MR_NODISCARD MR_API mr_status mr_sync_device_resource_create(int device, mr_resource **out);
/** cuMemHostAlloc (portable, device-mapped) / cuMemFreeHost. */
MR_NODISCARD MR_API mr_status mr_sync_pinned_resource_create(int device, mr_resource **out);
/** cuMemAllocManaged (attach global) / cuMemFree. */
MR_NODISCARD MR_API mr_status mr_sync_managed_resource_create(int device, mr_resource **out);

MR_EXTERN_C_END

#endif /* MRCTX_DRIVER_H */
