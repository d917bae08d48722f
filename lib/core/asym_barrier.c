/*
 * asym_barrier.c: the heavy side of core/asym_barrier.h (Linux membarrier).
 */
#include <errno.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#endif

#include "core/asym_barrier.h"

#if defined(__SANITIZE_THREAD__)
#define MRI_ASYM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define MRI_ASYM_TSAN 1
#endif
#endif

_Atomic bool mri_asym_cheap = false;

static pthread_once_t asym_once = PTHREAD_ONCE_INIT;

static bool asym_register(void) {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(MRI_ASYM_TSAN)
  long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)) return false;
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#else
  return false;
#endif
}

static void asym_setup(void) {
  atomic_store_explicit(&mri_asym_cheap, asym_register(), memory_order_seq_cst);
}

void mri_asym_init(void) { pthread_once(&asym_once, asym_setup); }

void mri_asym_heavy(void) {
  if (!atomic_load_explicit(&mri_asym_cheap, memory_order_relaxed)) {
    atomic_thread_fence(memory_order_seq_cst); /* the owners fence themselves */
    return;
  }
#if defined(__linux__) && defined(SYS_membarrier)
  /* Once the process registered, the kernel does not fail this command
   * (EINTR is not among its errors). */
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
#endif
  atomic_thread_fence(memory_order_seq_cst);
}

void mri_asym_fork_child(void) {
  if (atomic_load_explicit(&mri_asym_cheap, memory_order_relaxed) && !asym_register())
    atomic_store_explicit(&mri_asym_cheap, false, memory_order_seq_cst);
}
