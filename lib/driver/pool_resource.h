/*
 * driver/pool_resource.h (internal): the machinery shared by every resource
 * that allocates from a driver memory pool (device, device_default, pinned,
 * managed, pool). Each kind has its own file that decides which pool, and
 * hands the rest to pool_resource.c.
 */
#ifndef MRCTX_LIB_DRIVER_POOL_RESOURCE_H
#define MRCTX_LIB_DRIVER_POOL_RESOURCE_H

#include "core/reclaim.h"
#include "driver/cuda_api.h"

typedef struct mri_pool_state {
  int device; /* the device whose context is made current if a
                          thread has none; the pool's device for device pools */
  mr_pool_kind kind;
  bool follow_current; /* look up the location's current pool at every
                          allocation (the `device` resource) */
  bool owned;          /* created by us: destroyed with the resource */
  CUmemoryPool pool;   /* the pool, unless follow_current */
  CUmemLocation location;
  CUmemAllocationType type;
  /* The last pool the default-pool release-threshold rule was applied to. */
  _Atomic(CUmemoryPool) checked_pool;
  /* Owned pools shared with other processes (pool(ipc=fd), ipc.c): the
   * handle type, and the ID chosen at creation that every exported
   * pointer carries, so that an importer can tell it imports into the
   * right pool. */
  mr_pool_handle handle_type;
  uint64_t ipc_id;
  /* Owned pools: in the process-wide registry of idle memory
   * (core/reclaim.h) while the resource lives. */
  mri_reclaimer reclaimer;
} mri_pool_state;

/* The pool state of a pool-backed resource, NULL for any other resource
 * (imported pools included). */
mri_pool_state *mri_pool_state_of(const mr_resource *mr);

/* ipc.c: MR_OK if `device` can create pools whose memory is shared as a
 * file descriptor; MR_ERR_UNSUPPORTED (message prefixed with `what`) if
 * not. */
mr_status mri_ipc_check_device(const char *what, int device);
/* A new pool ID, unique on this host in practice (random). */
uint64_t mri_ipc_new_pool_id(void);

/* Create the resource over `state` (which it takes over on success; on
 * failure the caller frees it). `description` is its spec text. While this
 * thread only describes (mri_describe_only, core.h), the inert stand-in
 * with the same description and properties instead: the callers have
 * created and changed no pool then, and state->pool may be unset. */
mr_status mri_pool_resource_create(mri_pool_state *state, const char *description,
                                   mr_resource **out);

/* Fill location and type for a pool kind on `device`. */
void mri_pool_location(mr_pool_kind kind, int device, CUmemLocation *location,
                       CUmemAllocationType *type);

/* A device attribute; a failure names the attribute and the device. */
mr_status mri_device_attribute(int device, CUdevice_attribute attribute, int *value);

/* MR_OK if `device` can allocate managed memory at all; MR_ERR_UNSUPPORTED
 * (message prefixed with `what`) if it cannot, so that neither a managed
 * pool nor sync_managed can serve it. */
mr_status mri_require_managed_memory(const char *what, int device);

/* Whether `device` supports pools of `kind`. */
mr_status mri_pool_supported(mr_pool_kind kind, int device, bool *supported);

/* Grant read-write access to `pool` from every device (pinned pools), or
 * from every device that can reach `owner` as a peer (device pools). */
mr_status mri_pool_grant_access(CUmemoryPool pool, mr_pool_kind kind, int owner);

/* Read a pool's information. */
mr_status mri_pool_info(CUmemoryPool pool, mr_pool_kind kind, int device, mr_pool_info *info);

/* Reset a pool's reserved and used high-water marks to their current
 * values (`kind` names the pool in messages). */
mr_status mri_pool_reset_peak(CUmemoryPool pool, mr_pool_kind kind);

/* The device a reclaim for memory of `kind` on `device` matches
 * (core/reclaim.h): the device for device memory, MRI_RECLAIM_HOST for
 * pinned and managed memory. */
static inline int mri_pool_reclaim_device(mr_pool_kind kind, int device) {
  return kind == MR_POOL_DEVICE ? device : MRI_RECLAIM_HOST;
}

/* After the driver answered CUDA_ERROR_OUT_OF_MEMORY to an allocation of
 * `bytes` of `kind` on `device`: whether to try once more, after the
 * process-wide reclaim of idle memory (or another thread's, shared), or
 * after the reclaimers outside mrctx; call again after each failed retry
 * with the same *result, zeroed at first (mri_reclaim_after_oom).
 * *result says what this thread's reclaim did, for the message of a
 * failure that stays (mri_reclaim_explain). */
bool mri_pool_reclaim_after_oom(mr_pool_kind kind, int device, size_t bytes,
                                mri_reclaim_result *result);

#endif
