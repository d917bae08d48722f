/*
 * debug.h (internal): the checks MRCTX_DEBUG turns on.
 *
 * MRCTX_DEBUG=1 (any value but empty or "0") makes every resource that
 * keeps memory and hands it out again (arena, fixed, bin, cache) remember
 * what it handed out, pointer -> size and alignment, and check each free
 * against it: a free with another size or alignment, of a pointer it did
 * not hand out, or of one freed already is refused with
 * MR_ERR_INVALID_ARGUMENT before the resource touches its bookkeeping, and
 * the block stays allocated (the caller's, as before the call): it is
 * never filed for reuse under a size it does not have. track(...) checks
 * the same way always.
 *
 * The variable is read once, at the first question (mri_debug_checks), and
 * a resource decides at creation: with the checks off its record is never
 * made, and each allocation and free costs one test of a NULL pointer.
 *
 * A keeping resource embeds an mri_size_check in its state and calls:
 *
 *   create:      mri_size_check_init(&s->check);
 *   allocate:    after its own allocation succeeded,
 *                  if (mri_size_check_note(&s->check, *ptr, bytes, alignment) != MR_OK) {
 *                    give the block back as a free would; *ptr = NULL;
 *                    return mri_size_check_note_failed(s->description, bytes);
 *                  }
 *   deallocate:  first,
 *                  st = mri_size_check_take(&s->check, s->description, ptr, bytes, alignment);
 *                  if (st != MR_OK) return st;
 *                then its own free; if that fails,
 *                  mri_size_check_restore(&s->check, ptr, bytes, alignment);
 *   destroy:     mri_size_check_fini(&s->check);
 *
 * `bytes` and `alignment` are what the resource's own allocate and
 * deallocate methods receive (alignment already normalised: 0 is 256).
 */
#ifndef MRCTX_LIB_CORE_DEBUG_H
#define MRCTX_LIB_CORE_DEBUG_H

#include "core/core.h"
#include "core/ptrmap.h"

/* True when MRCTX_DEBUG asks for the checks. Read at the first call; every
 * later call answers the same (until mri_debug_reread). Thread-safe. */
bool mri_debug_checks(void);

/* Tests: read MRCTX_DEBUG again now. Resources created from then on follow
 * the new value; those created before keep what they decided. */
void mri_debug_reread(void);

/* A keeping resource's record of its live blocks, kept only when the
 * checks are on. A zeroed one is off. */
typedef struct mri_size_check {
  bool on;
  mri_ptrmap *live; /* made at the first allocation */
  pthread_mutex_t lock;
  mri_fork_lockable fork; /* `lock` across fork() (core/fork.h), while on */
} mri_size_check;

/* Turn the checks on if mri_debug_checks(). Cannot fail: the record is
 * made at the first allocation, whose failure it then is. */
void mri_size_check_init(mri_size_check *check);
/* Drop the record (a zeroed or never-initialised check is fine). */
void mri_size_check_fini(mri_size_check *check);

mr_status mri_size_check_note_slow(mri_size_check *check, void *ptr, size_t bytes,
                                   size_t alignment);
mr_status mri_size_check_take_slow(mri_size_check *check, const char *what, void *ptr, size_t bytes,
                                   size_t alignment);
void mri_size_check_restore_slow(mri_size_check *check, void *ptr, size_t bytes, size_t alignment);

/* Record a block just handed out. MR_ERR_OUT_OF_MEMORY, with no message
 * set, if there is no host memory for the record: the caller then takes
 * the block back and fails the allocation with
 * mri_size_check_note_failed. */
static inline mr_status mri_size_check_note(mri_size_check *check, void *ptr, size_t bytes,
                                            size_t alignment) {
  if (MRI_LIKELY(!check->on)) return MR_OK;
  return mri_size_check_note_slow(check, ptr, bytes, alignment);
}

/* The failure of an allocation whose record could not be made (its block
 * already given back): sets the message, naming `what`, and returns
 * MR_ERR_OUT_OF_MEMORY. */
mr_status mri_size_check_note_failed(const char *what, size_t bytes);

/* Check a free against the record and take the block out of it. Refused,
 * with MR_ERR_INVALID_ARGUMENT and the record left as it was: a pointer
 * not handed out here (or freed already), or another size or alignment
 * (mri_size_mismatch_error's message). */
static inline mr_status mri_size_check_take(mri_size_check *check, const char *what, void *ptr,
                                            size_t bytes, size_t alignment) {
  if (MRI_LIKELY(!check->on)) return MR_OK;
  return mri_size_check_take_slow(check, what, ptr, bytes, alignment);
}

/* Put back a block whose free failed after mri_size_check_take: it is
 * still live. Cannot fail (the take left room). */
static inline void mri_size_check_restore(mri_size_check *check, void *ptr, size_t bytes,
                                          size_t alignment) {
  if (MRI_LIKELY(!check->on)) return;
  mri_size_check_restore_slow(check, ptr, bytes, alignment);
}

/* The one message for a free whose size or alignment is not the
 * allocation's, for every resource that checks: "WHAT: PTR was allocated
 * with N bytes aligned to A, not freed with M bytes aligned to B; the
 * block stays allocated (free it with the size and alignment it was
 * allocated with)". Returns MR_ERR_INVALID_ARGUMENT. */
mr_status mri_size_mismatch_error(const char *what, const void *ptr, size_t bytes, size_t alignment,
                                  size_t given_bytes, size_t given_alignment);

#endif /* MRCTX_LIB_CORE_DEBUG_H */
