/*
 * core/reclaimers.h (internal): reclaimers outside mrctx (mrctx/reclaim.h),
 * called by the process-wide reclaim (core/reclaim.h) after mrctx's own
 * idle memory.
 */
#ifndef MRCTX_LIB_CORE_RECLAIMERS_H
#define MRCTX_LIB_CORE_RECLAIMERS_H

#include <stdbool.h>
#include <stddef.h>

/* Call every registered reclaimer, in registration order, asking for about
 * `bytes` (0: all) on `device` (a device, MRI_RECLAIM_HOST or
 * MRI_RECLAIM_ALL, the same values as MR_RECLAIM_*), until the bytes they
 * report reach `bytes` (never, for 0). No lock is held across a call: the
 * caller must hold none either (a callback may take the GIL, or allocate
 * through mrctx) and must have marked its thread reclaiming, so that an
 * allocation a callback makes does not start another reclaim. *called: the
 * reclaimers called; *released: the bytes they reported. */
void mri_reclaimers_call(int device, size_t bytes, size_t *called, size_t *released);

/* Whether any reclaimer is registered (a hint: it may change at once). */
bool mri_reclaimers_any(void);

/* Tests: `fn` is called (registry lock held: it may take only a lock of its
 * own) each time mr_reclaimer_unregister is about to wait for a call in
 * flight on another thread. NULL removes it. */
void mri_reclaimers_set_wait_hook(void (*fn)(void));

#endif /* MRCTX_LIB_CORE_RECLAIMERS_H */
