/**
 * @file
 * resource.h: the memory resource object every part of mrctx stands on.
 *
 * An mr_resource is an opaque, reference-counted object with an ops table.
 * Built-in resources (host, driver pools, adaptors) and custom ones are the
 * same kind of object and compose freely: an adaptor holds a reference to its
 * upstream resource.
 *
 * Rules every resource keeps (the core enforces the argument checks before
 * any method runs):
 *  - Size 0 allocates nothing: MR_OK and a NULL pointer, the resource is not
 *    touched. Deallocating NULL is a no-op.
 *  - Alignment 0 means the default, 256 bytes. Any power of two is honoured;
 *    anything else is MR_ERR_INVALID_ARGUMENT. Alignments above what a
 *    resource serves natively (props.native_alignment) are served by
 *    over-allocating. Deallocate with the same size and alignment.
 *  - Stream order: memory allocated on stream S may be used by work ordered
 *    after the allocation on S; memory freed on S may be reused at once by
 *    work ordered after the free on S, and on another stream only once S has
 *    passed the free. NULL is the legacy default stream.
 *  - Failure leaves *ptr NULL and sets mr_last_error().
 *  - Thread safety: every built-in resource may be used from many threads at
 *    once. Retain/release are atomic.
 */
#ifndef MRCTX_RESOURCE_H
#define MRCTX_RESOURCE_H

#include <mrctx/status.h>

MR_EXTERN_C_BEGIN

/** A memory resource: opaque and reference-counted (this file's rules). */
typedef struct mr_resource mr_resource;

/** The default alignment: what alignment 0 means. */
#define MR_DEFAULT_ALIGNMENT ((size_t)256)

/** What memory a resource hands out. */
typedef enum mr_memory_kind {
  MR_MEMORY_HOST = 0,    /**< pageable host memory */
  MR_MEMORY_PINNED = 1,  /**< page-locked host memory, device-accessible */
  MR_MEMORY_DEVICE = 2,  /**< device memory */
  MR_MEMORY_MANAGED = 3, /**< managed (unified) memory */
} mr_memory_kind;

/** "host", "pinned", "device", "managed"; "unknown" otherwise. Static. */
MR_API const char *mr_memory_kind_name(mr_memory_kind kind);

/** What a resource's memory is and how it behaves (mr_resource_get_props;
 * given to mr_resource_create). */
typedef struct mr_resource_props {
  size_t size;             /**< sizeof(mr_resource_props): set it before a call
                               that reads or fills the struct */
  mr_memory_kind kind;     /**< what memory it is */
  int device;              /**< the device the memory lives on, or -1 (host,
                               pinned, managed without a preferred device) */
  bool host_accessible;    /**< the host may dereference the memory */
  bool device_accessible;  /**< kernels may dereference the memory */
  bool stream_ordered;     /**< deallocate honours the stream; if false, the
                               memory is freed (and may be reused) at once */
  size_t native_alignment; /**< largest alignment the methods serve directly;
                                0 = any power of two. Larger requests are
                                over-allocated by the core. */
} mr_resource_props;

/**
 * The methods of a custom resource. `size` comes first: set it to
 * sizeof(mr_resource_ops) as your compiler sees it. New methods are only ever
 * appended; the library treats methods past an older table's size as NULL.
 * A size that does not end after a member (from deallocate on) is refused:
 * it would end partway through a method pointer (docs/abi.md).
 * Every method takes the resource's own state (`self`) first.
 *
 * The core checks arguments before a method runs: `bytes` > 0, `alignment` a
 * power of two no larger than native_alignment (when that is not 0), `ptr`
 * not NULL and *ptr already NULL. A method that fails returns an error
 * status and should say why with mr_error().
 */
typedef struct mr_resource_ops {
  size_t size;      /**< sizeof(mr_resource_ops) */
  const char *name; /**< short kind name, e.g.\ "arena"; used when describe is NULL */

  /** @{ */
  /** Required. Stream-ordered allocation and deallocation. */
  mr_status (*allocate)(void *self, size_t bytes, size_t alignment, mr_stream stream, void **ptr);
  mr_status (*deallocate)(void *self, void *ptr, size_t bytes, size_t alignment, mr_stream stream);
  /** @} */

  /** @{ */
  /** Optional. Synchronous forms: memory usable by anyone on return; freed
   * after all prior work. When NULL the core allocates on the legacy default
   * stream and synchronizes it (and, to free, synchronizes first). */
  mr_status (*allocate_sync)(void *self, size_t bytes, size_t alignment, void **ptr);
  mr_status (*deallocate_sync)(void *self, void *ptr, size_t bytes, size_t alignment);
  /** @} */

  /** Optional. Wait until `stream` (NULL: the legacy default stream) has
   * finished its work. NULL means there is nothing to wait for (host). */
  mr_status (*synchronize)(void *self, mr_stream stream);

  /** Optional. Give everything cached but not in use back upstream (caches,
   * arenas, fixed blocks). Adaptors pass the call on to their upstream. */
  mr_status (*trim)(void *self);

  /** Optional. Write the resource's spec text, snprintf-style (returns the
   * length it needed). Called once, at creation. NULL: `name` is used. */
  int (*describe)(void *self, char *buf, size_t cap);

  /** Optional. Called once, when the last reference is released. */
  void (*destroy)(void *self);
} mr_resource_ops;

/**
 * Create a resource from an ops table and its state. `ops` must outlive the
 * resource (a static table, usually). `props` may be NULL: pageable host
 * memory, any alignment; otherwise set props->size (fields past it take
 * those defaults). On success the resource owns `state` and calls
 * ops->destroy(state) when its last reference goes; on failure the caller
 * still owns it. The new resource has one reference, the caller's.
 */
MR_NODISCARD MR_API mr_status mr_resource_create(const mr_resource_ops *ops, void *state,
                                                 const mr_resource_props *props, mr_resource **out);

/** Take another reference. Returns `mr`. NULL is ignored. */
MR_API mr_resource *mr_resource_retain(mr_resource *mr);

/** Drop a reference; the last one destroys the resource. NULL is ignored.
 * Every allocation must have been freed before the last release. It leaves
 * mr_last_error() as it was. */
MR_API void mr_resource_release(mr_resource *mr);

/**
 * Allocate `bytes` aligned to `alignment` (0: 256), stream-ordered on
 * `stream`. OUT: *ptr, NULL on failure and for size 0.
 */
MR_NODISCARD MR_API mr_status mr_allocate(mr_resource *mr, size_t bytes, size_t alignment,
                                          mr_stream stream, void **ptr);

/** Free memory from mr_allocate on this resource, with the same bytes and
 * alignment, stream-ordered on `stream`. NULL is a no-op. */
MR_NODISCARD MR_API mr_status mr_deallocate(mr_resource *mr, void *ptr, size_t bytes,
                                            size_t alignment, mr_stream stream);

/** Allocate with no stream: the memory is usable by any stream or the host on
 * return. OUT: *ptr, NULL on failure and for size 0. */
MR_NODISCARD MR_API mr_status mr_allocate_sync(mr_resource *mr, size_t bytes, size_t alignment,
                                               void **ptr);

/** Free with no stream, after all prior work on the legacy default stream
 * (and so every blocking stream) has finished. NULL is a no-op. */
MR_NODISCARD MR_API mr_status mr_deallocate_sync(mr_resource *mr, void *ptr, size_t bytes,
                                                 size_t alignment);

/**
 * Record that the live block `ptr` (from mr_allocate on `mr`) is used by work
 * on `stream`, another stream than the one it will be freed on. When the
 * block is later freed (mr_deallocate or mr_deallocate_sync, through `mr`),
 * it is not handed out again until the work queued on each recorded stream
 * before that free has finished: PyTorch's Tensor.record_stream, for any
 * framework or library.
 *
 * How: at the free, an event is recorded on each recorded stream and the
 * freeing stream waits for it (cuStreamWaitEvent) before the block goes
 * back, so every later user of the block, on that stream or on one that
 * waits for it, is ordered after the recorded work. A resource that is not
 * stream-ordered, and mr_deallocate_sync, wait on the host instead. The
 * freeing stream thus also waits for the recorded streams' earlier work (as
 * PyTorch's cudaMallocAsync backend does). A recorded stream destroyed
 * before the free, whose handle the driver may have given to a new stream,
 * is recognised by its stream ID: the free then waits for its whole
 * context (the work the destroyed stream left still runs there).
 *
 * Recording the freeing stream itself, or one stream twice, is harmless.
 * Records cost nothing on frees of blocks never recorded (one relaxed load)
 * and a few microseconds (an event per stream) on those that were. Without
 * a driver there is no stream work to wait for: MR_OK, nothing recorded.
 * Thread-safe. MR_ERR_INVALID_ARGUMENT for a NULL resource or pointer.
 */
MR_NODISCARD MR_API mr_status mr_record_stream(mr_resource *mr, void *ptr, mr_stream stream);

/** Wait until `stream` has finished (nothing to do for host resources). */
MR_NODISCARD MR_API mr_status mr_resource_synchronize(mr_resource *mr, mr_stream stream);

/** Return cached, unused memory in the whole chain to its upstreams. Memory in
 * use stays. Safe to call from any thread at any time. */
MR_NODISCARD MR_API mr_status mr_resource_trim(mr_resource *mr);

/** Give idle memory back, process-wide: from every resource of the process
 * that keeps some (caches, every thread's stacks included; arenas; fixed
 * blocks and bins; the driver pools mrctx created or whose release
 * threshold it raised), of every context and tag and those made directly,
 * except resources marked keep=yes. `device`: a device's memory, or -1 for
 * every device and the host-side (pinned, managed) memory too. `bytes`: stop
 * once at least this much went back; 0: everything. Live blocks are never
 * touched; the devices are synchronized first, so memory freed on any
 * stream goes back too. The same reclaim runs by itself when an
 * allocation runs out of memory (docs/semantics.md, "One process, one
 * memory"). OUT: *released (may be NULL): the bytes that went back, also
 * when a resource failed to give its memory back (then the first failure
 * is returned). Safe from any thread. */
MR_NODISCARD MR_API mr_status mr_release_idle(int device, size_t bytes, size_t *released);

/** Keep `mr`'s idle memory out of the process-wide reclaim (`keep` true), or
 * let it go again (false): for memory a library must keep, such as pinned
 * staging buffers an application relies on. Its own trim (mr_resource_trim)
 * still gives it back. For cache, arena, fixed and bin (whose every class
 * it covers); MR_ERR_INVALID_ARGUMENT for a resource that keeps no idle
 * memory of its own. Its description gains (or loses) ", keep=yes", as the
 * spec option `keep=yes` of those names, which calls this, reads. Call it
 * before the resource is shared: the description changes. */
MR_NODISCARD MR_API mr_status mr_resource_keep_idle(mr_resource *mr, bool keep);

/** mr_resource_set_idle_time's `idle_ns` for the process's idle time
 * (MRCTX_IDLE_TIME, 10 s if unset). */
#define MR_IDLE_TIME_PROCESS UINT64_MAX

/** Give `mr`'s idle memory back by itself once it stayed idle for `idle_ns`
 * nanoseconds (0: never; MR_IDLE_TIME_PROCESS: the process's idle time,
 * which applies until this is called). What goes back is what stayed idle
 * for a whole idle time: memory used in every such window stays. A
 * resource marked keep (mr_resource_keep_idle) keeps its memory anyway.
 * For cache, arena, fixed and bin (whose every class it covers);
 * MR_ERR_INVALID_ARGUMENT for a resource that keeps no idle memory of its
 * own. Its description gains ", idle=10s" (", idle=off" for 0), as the
 * spec option `idle=` of those names, which calls this, reads. Call it
 * before the resource is shared: the description changes. A background
 * thread of the library gives the memory back (docs/semantics.md, "Idle
 * memory goes back by itself"). */
MR_NODISCARD MR_API mr_status mr_resource_set_idle_time(mr_resource *mr, uint64_t idle_ns);

/** The resource's properties. OUT: *props (set props->size first; on return
 * it says how many bytes were filled). */
MR_NODISCARD MR_API mr_status mr_resource_get_props(const mr_resource *mr,
                                                    mr_resource_props *props);

/** The resolved spec text, e.g.\ "arena(device, chunk=64MiB)". Never NULL for a
 * valid resource; valid as long as the resource lives. */
MR_API const char *mr_resource_describe(const mr_resource *mr);

/** The ops table's name ("arena", "device", ...). */
MR_API const char *mr_resource_name(const mr_resource *mr);

/** The resource an adaptor wraps (borrowed: no reference is taken), or NULL
 * for a resource that wraps none. */
MR_API mr_resource *mr_resource_upstream(const mr_resource *mr);

/** The state passed to mr_resource_create if `mr` was created with `ops`,
 * else NULL: a checked downcast for authors of custom resources. */
MR_API void *mr_resource_state(const mr_resource *mr, const mr_resource_ops *ops);

MR_EXTERN_C_END

#endif /* MRCTX_RESOURCE_H */
