/*
 * reclaimers.c: the registry of reclaimers outside mrctx (mrctx/reclaim.h),
 * and the pass that calls them (core/reclaimers.h).
 *
 * No lock across a call. A callback may take locks of its own -- a Python
 * one takes the GIL -- and a thread that holds such a lock may be waiting
 * for one of mrctx's at the same moment (an allocation under the GIL): a
 * call made under a lock of mrctx's could deadlock with it. So the pass
 * takes the registry's lock only to find the next reclaimer and mark it
 * in flight, and again to unmark it; the process-wide reclaim's registry
 * lock (core/reclaim.c) is not held either. For the same reason a thread
 * never waits for another thread's call: two threads that run out at once
 * each call the reclaimers (a callback must be thread-safe; a framework's
 * "free the cache" finds nothing the second time, after the first gave it
 * back), and each retries after.
 *
 * Unregister waits for calls in flight. The handle is unlinked at once (no
 * call starts after), then unregister waits on a condition variable until
 * the reclaimer's in-flight count drops to the calls made by its own
 * thread: zero, or one when a callback unregisters itself, in which case
 * the call's end frees the handle instead.
 *
 * The pass walks in registration order by serial number, not by pointer:
 * handles may be unlinked and freed while no lock is held.
 */
#include <stdlib.h>
#include <string.h>

#include <mrctx/reclaim.h>

#include "core/core.h"
#include "core/reclaim.h"
#include "core/reclaimers.h"

/* The callbacks' device values are the internal reclaim's. */
_Static_assert(MR_RECLAIM_HOST == MRI_RECLAIM_HOST, "MR_RECLAIM_HOST");
_Static_assert(MR_RECLAIM_ALL == MRI_RECLAIM_ALL, "MR_RECLAIM_ALL");

struct mr_reclaimer {
  mr_reclaim_fn fn;
  void *user;
  char *name;
  uint64_t serial;
  /* Under the lock: */
  unsigned in_flight;
  bool registered;
  bool free_when_idle; /* unregistered by its own callback: the call frees it */
  struct mr_reclaimer *prev, *next;
  _Atomic uint64_t calls, bytes, ns;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t call_ended = PTHREAD_COND_INITIALIZER;
static mr_reclaimer *head, *tail;
static uint64_t last_serial;
static _Atomic size_t registered_count;
/* The reclaimer this thread is calling now (a reclaiming thread starts no
 * second pass, so one at most). */
static _Thread_local mr_reclaimer *calling;

static void (*_Atomic wait_hook)(void);

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static mri_fork_lockable lock_fork;

static void fork_lock(void *obj) {
  (void)obj;
  mri_fork_lock_mutex(&lock);
}

static void fork_unlock(void *obj) {
  (void)obj;
  mri_fork_unlock_mutex(&lock);
}

/* In the child only this thread exists: the calls other threads had in
 * flight will never end, and the condition variable may have had waiters
 * that are gone. */
static void fork_child(void *obj) {
  (void)obj;
  for (mr_reclaimer *r = head; r != NULL; r = r->next) r->in_flight = r == calling ? 1 : 0;
  pthread_cond_init(&call_ended, NULL);
  pthread_mutex_init(&lock, NULL);
}

/* Nothing is taken under the registry's lock, and no call is made. */
static void register_fork(void) {
  lock_fork = (mri_fork_lockable){
      .rank = MRI_FORK_RANK_LEAF, .lock = fork_lock, .unlock = fork_unlock, .child = fork_child};
  mri_fork_register(&lock_fork);
}

static void free_reclaimer(mr_reclaimer *r) {
  free(r->name);
  free(r);
}

mr_status mr_reclaimer_register(mr_reclaim_fn fn, void *user, const char *name,
                                mr_reclaimer **out) {
  if (out == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_reclaimer_register: out is NULL");
  *out = NULL;
  if (fn == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_reclaimer_register(%s): the function is NULL",
                     name != NULL ? name : "reclaimer");
  pthread_once(&fork_once, register_fork);
  mr_reclaimer *r = mri_calloc(1, sizeof *r);
  if (r == NULL) return mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "mr_reclaimer_register");
  r->name = mri_strdup(name != NULL ? name : "reclaimer");
  if (r->name == NULL) {
    free(r);
    return mri_error_prefix(MR_ERR_OUT_OF_MEMORY, "mr_reclaimer_register");
  }
  r->fn = fn;
  r->user = user;
  atomic_init(&r->calls, 0);
  atomic_init(&r->bytes, 0);
  atomic_init(&r->ns, 0);
  pthread_mutex_lock(&lock);
  r->serial = ++last_serial;
  r->prev = tail;
  if (tail != NULL)
    tail->next = r;
  else
    head = r;
  tail = r;
  r->registered = true;
  atomic_fetch_add_explicit(&registered_count, 1, memory_order_relaxed);
  pthread_mutex_unlock(&lock);
  *out = r;
  return MR_OK;
}

/* Whether `r` is a registered handle; compares addresses only (an
 * unregistered handle is freed memory). Lock held. */
static bool is_registered(const mr_reclaimer *r) {
  for (const mr_reclaimer *x = head; x != NULL; x = x->next)
    if (x == r) return true;
  return false;
}

mr_status mr_reclaimer_unregister(mr_reclaimer *r) {
  if (r == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_reclaimer_unregister: NULL");
  pthread_mutex_lock(&lock);
  if (!is_registered(r)) {
    pthread_mutex_unlock(&lock);
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_reclaimer_unregister: %p is not a registered reclaimer (unregistered "
                     "already?)",
                     (void *)r);
  }
  if (r->prev != NULL)
    r->prev->next = r->next;
  else
    head = r->next;
  if (r->next != NULL)
    r->next->prev = r->prev;
  else
    tail = r->prev;
  r->registered = false;
  atomic_fetch_sub_explicit(&registered_count, 1, memory_order_relaxed);
  unsigned mine = calling == r ? 1 : 0;
  while (r->in_flight > mine) {
    void (*hook)(void) = atomic_load_explicit(&wait_hook, memory_order_acquire);
    if (hook != NULL) hook();
    pthread_cond_wait(&call_ended, &lock);
  }
  bool free_now = mine == 0;
  if (!free_now) r->free_when_idle = true;
  pthread_mutex_unlock(&lock);
  if (free_now) free_reclaimer(r);
  return MR_OK;
}

mr_status mr_reclaimer_get_stats(const mr_reclaimer *r, mr_reclaimer_stats *stats) {
  if (r == NULL || stats == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_reclaimer_get_stats: %s is NULL",
                     r == NULL ? "the reclaimer" : "stats");
  mr_reclaimer_stats full = {
      .size = sizeof full,
      .calls = atomic_load_explicit(&r->calls, memory_order_relaxed),
      .bytes = atomic_load_explicit(&r->bytes, memory_order_relaxed),
      .nanoseconds = atomic_load_explicit(&r->ns, memory_order_relaxed),
  };
  return MRI_STRUCT_WRITE(stats, &full, mr_reclaimer_stats, nanoseconds, "mr_reclaimer_get_stats");
}

void mri_reclaimers_set_wait_hook(void (*fn)(void)) {
  atomic_store_explicit(&wait_hook, fn, memory_order_release);
}

bool mri_reclaimers_any(void) {
  return atomic_load_explicit(&registered_count, memory_order_relaxed) > 0;
}

void mri_reclaimers_call(int device, size_t bytes, size_t *called, size_t *released) {
  *called = 0;
  *released = 0;
  if (!mri_reclaimers_any()) return;
  uint64_t after = 0;
  for (;;) {
    pthread_mutex_lock(&lock);
    mr_reclaimer *r = head;
    while (r != NULL && r->serial <= after) r = r->next;
    if (r != NULL) {
      after = r->serial;
      r->in_flight++;
    }
    pthread_mutex_unlock(&lock);
    if (r == NULL) break;
    uint64_t start = mri_monotonic_ns();
    calling = r;
    size_t gave = r->fn(r->user, device, bytes == 0 ? 0 : bytes - *released);
    calling = NULL;
    atomic_fetch_add_explicit(&r->calls, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->bytes, gave, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->ns, mri_monotonic_ns() - start, memory_order_relaxed);
    pthread_mutex_lock(&lock);
    r->in_flight--;
    bool gone = r->free_when_idle && r->in_flight == 0;
    pthread_cond_broadcast(&call_ended);
    pthread_mutex_unlock(&lock);
    if (gone) free_reclaimer(r);
    (*called)++;
    *released = gave > SIZE_MAX - *released ? SIZE_MAX : *released + gave;
    if (bytes != 0 && *released >= bytes) break;
  }
}
