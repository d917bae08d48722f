/*
 * core/asym_barrier.h (internal): asymmetric memory barriers, for state that
 * one thread uses on every call and others touch rarely (a cache's
 * per-thread stacks, which trim and fork must take over).
 *
 * The owner announces itself with a plain store and checks a flag after
 * mri_asym_light(); the rare side sets the flag, calls mri_asym_heavy() and
 * then reads the announcement. Either the owner sees the flag or the rare
 * side sees the owner, as with two full fences (Dekker), but the owner's
 * fence is only a compiler barrier: mri_asym_heavy() makes every running
 * thread of the process execute a full barrier (Linux membarrier,
 * MEMBARRIER_CMD_PRIVATE_EXPEDITED, about 300 ns on an H200 host). Where
 * the kernel lacks it (or refuses it, under seccomp), and under
 * ThreadSanitizer (which cannot see it), the light side is a real fence and
 * the heavy side nothing.
 */
#ifndef MRCTX_LIB_CORE_ASYM_BARRIER_H
#define MRCTX_LIB_CORE_ASYM_BARRIER_H

#include "core/core.h"

/* True once the heavy side is membarrier; set by mri_asym_init, and only
 * ever changed again in a fork child (one thread). */
extern _Atomic bool mri_asym_cheap;

/* Decide the mode, once per process (cheap after the first call). */
void mri_asym_init(void);

static inline void mri_asym_light(void) {
  if (MRI_LIKELY(atomic_load_explicit(&mri_asym_cheap, memory_order_relaxed)))
    atomic_signal_fence(memory_order_seq_cst);
  else
    atomic_thread_fence(memory_order_seq_cst);
}

void mri_asym_heavy(void);

/* In a fork child: register again (the child is a new process); if that
 * fails, fall back to fences, which is safe while the child has one
 * thread. */
void mri_asym_fork_child(void);

#endif
