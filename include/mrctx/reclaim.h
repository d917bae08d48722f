/**
 * @file
 * reclaim.h: memory held outside mrctx, given back when mrctx runs out.
 *
 * mrctx takes idle memory back from its own resources, process-wide, when an
 * allocation runs out and on mr_release_idle (resource.h). Memory another
 * allocator keeps idle -- PyTorch's caching allocator, CuPy's pools, a
 * library's own free lists -- is invisible to it. A *reclaimer* registered
 * here is how such an allocator joins: mrctx calls it after its own idle
 * memory, when that was not enough (docs/semantics.md, "One process, one
 * memory"):
 *
 *  - On out of memory: mrctx's own idle memory first, and a retry; if
 *    nothing of its own went back or the retry still fails, every
 *    registered reclaimer, then one more retry. The retry happens whenever
 *    a reclaimer was called, whatever it answered: it cannot always tell
 *    what it gave back, and a retry costs one driver call.
 *  - mr_release_idle: after mrctx's own memory, when that did not reach the
 *    bytes asked (always, for 0: everything).
 *
 * The Python package registers the frameworks it finds (docs/python.md).
 */
#ifndef MRCTX_RECLAIM_H
#define MRCTX_RECLAIM_H

#include <stddef.h>
#include <stdint.h>

#include <mrctx/status.h>

MR_EXTERN_C_BEGIN

/** A registered reclaimer (opaque): from mr_reclaimer_register, until
 * mr_reclaimer_unregister. */
typedef struct mr_reclaimer mr_reclaimer;

/** A reclaim's `device` for memory on the host side (pinned, managed). */
#define MR_RECLAIM_HOST (-1)
/** A reclaim's `device` for everything: every device and the host side
 * (mr_release_idle(-1, ...)). */
#define MR_RECLAIM_ALL (-2)

/** Give back about `bytes` bytes (0: all you can) of memory you keep idle on
 * `device` (a device id, MR_RECLAIM_HOST or MR_RECLAIM_ALL); freeing more
 * is fine. Return the bytes given back, or 0 if none or you cannot tell
 * (the allocation that ran out is retried either way).
 *
 * Called on the thread whose allocation ran out (or that called
 * mr_release_idle), holding no lock of mrctx's: it may take its own locks
 * (a Python callback takes the GIL), and may allocate and free through
 * mrctx, but an allocation that runs out there fails without another
 * reclaim. Two threads that run out at once may call it at the same time:
 * make it thread-safe. It may unregister itself (the call returns at
 * once; the reclaimer goes when the callback returns). */
typedef size_t (*mr_reclaim_fn)(void *user, int device, size_t bytes);

/** Register `fn`, called with `user` as described above. `name` (copied;
 * NULL: "reclaimer") names it in messages and statistics. OUT: *out, the
 * handle for mr_reclaimer_unregister (NULL on failure). Reclaimers are
 * called in the order they were registered. Safe from any thread. */
MR_NODISCARD MR_API mr_status mr_reclaimer_register(mr_reclaim_fn fn, void *user, const char *name,
                                                    mr_reclaimer **out);

/** Unregister and free `reclaimer`: no call of it starts after this, and
 * it returns once no call of it is running on another thread -- so `user`
 * may go right after. Do not call it while holding a lock the callback
 * takes (it would wait for that call forever); from within the callback
 * itself it returns at once. A handle that is not registered (NULL, or
 * already unregistered) is MR_ERR_INVALID_ARGUMENT. */
MR_NODISCARD MR_API mr_status mr_reclaimer_unregister(mr_reclaimer *reclaimer);

/** What a reclaimer did: versioned (set size first, docs/abi.md). */
typedef struct mr_reclaimer_stats {
  size_t size;          /**< sizeof(mr_reclaimer_stats), set by the caller */
  uint64_t calls;       /**< times it was called */
  uint64_t bytes;       /**< bytes it said it gave back, in all */
  uint64_t nanoseconds; /**< time spent in its calls, in all */
} mr_reclaimer_stats;

/** Fill *stats (its size set) with `reclaimer`'s counts. */
MR_NODISCARD MR_API mr_status mr_reclaimer_get_stats(const mr_reclaimer *reclaimer,
                                                     mr_reclaimer_stats *stats);

MR_EXTERN_C_END

#endif /* MRCTX_RECLAIM_H */
