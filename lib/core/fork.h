/*
 * core/fork.h (internal): keeping the library's locks usable across fork().
 *
 * fork() copies only the calling thread. A lock another thread held at that
 * moment stays held in the child forever, and whatever it guarded may be
 * half-updated: the child would spin or block at its first snapshot, trim
 * or statistics read. So every lock the library holds is registered here,
 * and one pthread_atfork handler takes them all before the fork (the
 * parent's threads finish what they were doing under them first) and
 * releases them after it, in the parent and in the child. The child then
 * finds every structure consistent, as the parent had it, and may call
 * anything in the library (docs/semantics.md, "fork").
 *
 * Order. The prepare handler takes the registry's own lock, then every
 * registered lock by rank, lowest first; within a rank the most recently
 * registered first. A lock may be held while one of a higher rank (or,
 * within MRI_FORK_RANK_RESOURCE, an older one) is taken, never the other
 * way: then the handler's order is the normal order and cannot deadlock.
 * A resource's locks are newer than its upstream's (it is created after
 * the upstream it was given), so a resource that holds its lock across a
 * call into its upstream (the cache) is taken first. In the child the
 * callbacks run in the reverse order: the highest rank first.
 *
 * Rules for the callers:
 *  - Register and unregister with no registered lock held (both take the
 *    registry's lock, which the prepare handler holds while it waits for
 *    every other lock).
 *  - The callbacks take and release the locks and nothing else: no
 *    allocation, no driver call, nothing that waits for another thread.
 *  - Unregister before the lock's memory goes (destroy).
 *
 * ThreadSanitizer's deadlock detector follows at most 64 locks held by one
 * thread at once and stops the process with a CHECK failure past that: a
 * sanitizer build that forks with more registered locks (every resource
 * has one) needs few resources, or TSAN_OPTIONS=detect_deadlocks=0.
 */
#ifndef MRCTX_LIB_CORE_FORK_H
#define MRCTX_LIB_CORE_FORK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Ranks, lowest taken first. */
enum {
  /* The out-of-memory report's lock, held while it takes a snapshot. */
  MRI_FORK_RANK_OOM = 100,
  /* The list of live contexts (a snapshot reads resources under it). */
  MRI_FORK_RANK_CONTEXTS = 200,
  /* The registry of resource names: builtins_lock, then registry_lock. */
  MRI_FORK_RANK_CONFIG = 300,
  MRI_FORK_RANK_CONFIG_NAMES = 310,
  /* Process-wide lists an adaptor keeps of its instances (the caches'
   * registry, held while a thread's exit hands its blocks over; the
   * logs'). */
  MRI_FORK_RANK_REGISTRY = 400,
  /* One resource's own locks (cache slots and shared lock, arena, fixed,
   * track, log): the newest resource first. */
  MRI_FORK_RANK_RESOURCE = 500,
  /* The frame source's lock (adaptors/frame_source.c), read across a call
   * of the source inside track(...)'s allocation, which an outer adaptor
   * (a cache over the track) may make with its own lock held; the frames'
   * interning lock (LEAF) is taken under it. */
  MRI_FORK_RANK_FRAME_SOURCE = 550,
  /* Locks under which nothing else is taken: a resource's alignment map,
   * statistics' overflow shard, thread slots, primary contexts, handlers. */
  MRI_FORK_RANK_LEAF = 600,
};

typedef struct mri_fork_lockable {
  int rank;
  /* Before fork(): take every lock of `obj` (mri_fork_lock_mutex and
   * mri_fork_lock_spin do one). */
  void (*lock)(void *obj);
  /* After fork(), in the parent: release them. */
  void (*unlock)(void *obj);
  /* After fork(), in the child: release them, or make them new and reset
   * what the parent's other threads were doing (they do not exist here).
   * NULL: `unlock`. */
  void (*child)(void *obj);
  void *obj;
  /* The registry's (under its lock). */
  struct mri_fork_lockable *prev, *next;
  bool registered;
} mri_fork_lockable;

/* Add `l` (its fields set as above); installs the fork handlers on first
 * use. No registered lock may be held. */
void mri_fork_register(mri_fork_lockable *l);
/* Remove `l` (no-op if it is not registered). No registered lock may be
 * held. */
void mri_fork_unregister(mri_fork_lockable *l);

/* The common case: one pthread mutex at `rank`, released in the child. */
void mri_fork_register_mutex(mri_fork_lockable *l, pthread_mutex_t *mutex, int rank);

/* Take a lock for the prepare handler: at once if it is free; otherwise
 * tell the test hook (below), then wait for it. */
void mri_fork_lock_mutex(pthread_mutex_t *mutex);
void mri_fork_unlock_mutex(pthread_mutex_t *mutex);
/* The same for a spin lock: an _Atomic int, 1 while held (the cache's
 * slots). Released with a release store of 0. */
void mri_fork_lock_spin(_Atomic int *lock);
void mri_fork_unlock_spin(_Atomic int *lock);

/* A lock callback that waits in its own way (not through the two above)
 * calls this first, each time it finds a lock held. */
void mri_fork_waiting(void);

/* Tests: `fn` is called (on the forking thread, before it waits) each time
 * the prepare handler finds a lock held by another thread, so a test can
 * let that thread go on exactly then. NULL removes it. */
void mri_fork_set_wait_hook(void (*fn)(void));

/* Tests: how many locks are registered now. */
size_t mri_fork_registered(void);

#endif /* MRCTX_LIB_CORE_FORK_H */
