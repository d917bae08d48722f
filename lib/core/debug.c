/*
 * debug.c: MRCTX_DEBUG and the size checks of the resources that keep
 * memory (core/debug.h).
 */
#include "core/debug.h"
#include "core/variables.h"

/* -1: not read yet; 0 off; 1 on. */
static _Atomic int debug_state = -1;

static int read_variable(void) { return mri_variable_flag(MRI_VAR_DEBUG); }

bool mri_debug_checks(void) {
  int state = atomic_load_explicit(&debug_state, memory_order_relaxed);
  if (MRI_LIKELY(state >= 0)) return state == 1;
  /* Racing first readers read the same variable and store the same answer. */
  state = read_variable();
  atomic_store_explicit(&debug_state, state, memory_order_relaxed);
  return state == 1;
}

void mri_debug_reread(void) {
  atomic_store_explicit(&debug_state, read_variable(), memory_order_relaxed);
}

void mri_size_check_init(mri_size_check *check) {
  check->live = NULL;
  check->on = mri_debug_checks();
  if (!check->on) return;
  pthread_mutex_init(&check->lock, NULL);
  mri_fork_register_mutex(&check->fork, &check->lock, MRI_FORK_RANK_LEAF);
}

void mri_size_check_fini(mri_size_check *check) {
  if (!check->on) return;
  if (check->live != NULL) mri_ptrmap_destroy(check->live);
  check->live = NULL;
  check->on = false;
  mri_fork_unregister(&check->fork);
  pthread_mutex_destroy(&check->lock);
}

mr_status mri_size_check_note_slow(mri_size_check *check, void *ptr, size_t bytes,
                                   size_t alignment) {
  pthread_mutex_lock(&check->lock);
  if (check->live == NULL) check->live = mri_ptrmap_create();
  mr_status st = check->live == NULL
                     ? MR_ERR_OUT_OF_MEMORY
                     : mri_ptrmap_put(check->live, ptr,
                                      (mri_ptrmap_value){.bytes = bytes, .alignment = alignment});
  pthread_mutex_unlock(&check->lock);
  return st;
}

mr_status mri_size_check_note_failed(const char *what, size_t bytes) {
  return mri_error(MR_ERR_OUT_OF_MEMORY,
                   "%s: out of host memory recording a %zu-byte allocation (MRCTX_DEBUG)", what,
                   bytes);
}

mr_status mri_size_check_take_slow(mri_size_check *check, const char *what, void *ptr, size_t bytes,
                                   size_t alignment) {
  mri_ptrmap_value v;
  pthread_mutex_lock(&check->lock);
  if (check->live == NULL || !mri_ptrmap_take(check->live, ptr, &v)) {
    pthread_mutex_unlock(&check->lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "%s: %p (%zu bytes) is not a live allocation (never allocated here, or "
                     "freed already)",
                     what, ptr, bytes);
  }
  if (v.bytes != bytes || v.alignment != alignment) {
    mri_ptrmap_put(check->live, ptr, v); /* reuses the slot just freed */
    pthread_mutex_unlock(&check->lock);
    return mri_size_mismatch_error(what, ptr, v.bytes, v.alignment, bytes, alignment);
  }
  pthread_mutex_unlock(&check->lock);
  return MR_OK;
}

void mri_size_check_restore_slow(mri_size_check *check, void *ptr, size_t bytes, size_t alignment) {
  pthread_mutex_lock(&check->lock);
  /* The record exists (the take found the block in it) and the take left
   * a free slot; should the map have grown meanwhile and now fail, the
   * block's entry is lost and a later free of it is refused: an error,
   * never a reuse. */
  if (mri_ptrmap_put(check->live, ptr,
                     (mri_ptrmap_value){.bytes = bytes, .alignment = alignment}) != MR_OK) {
  }
  pthread_mutex_unlock(&check->lock);
}

mr_status mri_size_mismatch_error(const char *what, const void *ptr, size_t bytes, size_t alignment,
                                  size_t given_bytes, size_t given_alignment) {
  return mri_error(MR_ERR_INVALID_ARGUMENT,
                   "%s: %p was allocated with %zu bytes aligned to %zu, not freed with %zu "
                   "bytes aligned to %zu; the block stays allocated (free it with the size "
                   "and alignment it was allocated with)",
                   what, ptr, bytes, alignment, given_bytes, given_alignment);
}
