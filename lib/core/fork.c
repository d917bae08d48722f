/*
 * fork.c: the registry of the library's locks and the one set of fork
 * handlers that takes them all across fork() (core/fork.h says why and in
 * what order).
 */
#include <sched.h>

#include "core/core.h"
#include "core/fork.h"

/* The registry: a list sorted by rank, newest first within a rank. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static mri_fork_lockable *first, *last;
static size_t registered;
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;
static _Atomic(void (*)(void)) wait_hook;

static void before_fork(void) {
  pthread_mutex_lock(&fork_lock);
  for (mri_fork_lockable *l = first; l != NULL; l = l->next) l->lock(l->obj);
}

static void after_fork_in_parent(void) {
  for (mri_fork_lockable *l = last; l != NULL; l = l->prev) l->unlock(l->obj);
  pthread_mutex_unlock(&fork_lock);
}

static void after_fork_in_child(void) {
  for (mri_fork_lockable *l = last; l != NULL; l = l->prev) {
    if (l->child != NULL)
      l->child(l->obj);
    else
      l->unlock(l->obj);
  }
  pthread_mutex_unlock(&fork_lock);
}

static void install_handlers(void) {
  pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

void mri_fork_register(mri_fork_lockable *l) {
  pthread_once(&handlers_once, install_handlers);
  pthread_mutex_lock(&fork_lock);
  if (!l->registered) {
    /* Before the first entry of the same or a higher rank. */
    mri_fork_lockable *at = first;
    while (at != NULL && at->rank < l->rank) at = at->next;
    l->next = at;
    l->prev = at != NULL ? at->prev : last;
    if (l->prev != NULL)
      l->prev->next = l;
    else
      first = l;
    if (at != NULL)
      at->prev = l;
    else
      last = l;
    l->registered = true;
    registered++;
  }
  pthread_mutex_unlock(&fork_lock);
}

void mri_fork_unregister(mri_fork_lockable *l) {
  pthread_mutex_lock(&fork_lock);
  if (l->registered) {
    if (l->prev != NULL)
      l->prev->next = l->next;
    else
      first = l->next;
    if (l->next != NULL)
      l->next->prev = l->prev;
    else
      last = l->prev;
    l->prev = l->next = NULL;
    l->registered = false;
    registered--;
  }
  pthread_mutex_unlock(&fork_lock);
}

static void lock_mutex_cb(void *obj) { mri_fork_lock_mutex(obj); }
static void unlock_mutex_cb(void *obj) { mri_fork_unlock_mutex(obj); }

void mri_fork_register_mutex(mri_fork_lockable *l, pthread_mutex_t *mutex, int rank) {
  *l = (mri_fork_lockable){
      .rank = rank, .lock = lock_mutex_cb, .unlock = unlock_mutex_cb, .obj = mutex};
  mri_fork_register(l);
}

void mri_fork_waiting(void) {
  void (*fn)(void) = atomic_load_explicit(&wait_hook, memory_order_acquire);
  if (fn != NULL) fn();
}

void mri_fork_lock_mutex(pthread_mutex_t *mutex) {
  if (pthread_mutex_trylock(mutex) == 0) return;
  mri_fork_waiting();
  pthread_mutex_lock(mutex);
}

void mri_fork_unlock_mutex(pthread_mutex_t *mutex) { pthread_mutex_unlock(mutex); }

void mri_fork_lock_spin(_Atomic int *lock) {
  if (!atomic_exchange_explicit(lock, 1, memory_order_acquire)) return;
  mri_fork_waiting();
  do {
    while (atomic_load_explicit(lock, memory_order_relaxed)) sched_yield();
  } while (atomic_exchange_explicit(lock, 1, memory_order_acquire));
}

void mri_fork_unlock_spin(_Atomic int *lock) {
  atomic_store_explicit(lock, 0, memory_order_release);
}

void mri_fork_set_wait_hook(void (*fn)(void)) {
  atomic_store_explicit(&wait_hook, fn, memory_order_release);
}

size_t mri_fork_registered(void) {
  pthread_mutex_lock(&fork_lock);
  size_t n = registered;
  pthread_mutex_unlock(&fork_lock);
  return n;
}
