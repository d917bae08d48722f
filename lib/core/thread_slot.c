/*
 * thread_slot.c: small per-thread slot numbers for sharded state.
 *
 * A slot is taken on a thread's first use and given back when the thread
 * exits (a pthread key destructor), so per-slot state is reused by later
 * threads rather than growing with every thread ever started. Slot
 * ownership passes between threads through slots_lock, which orders the old
 * owner's writes before the new owner's.
 */
#include <stdlib.h>

#include "core/core.h"

_Thread_local int mri_tls_slot_plus1 = 0;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t slots_once = PTHREAD_ONCE_INIT;
static pthread_key_t slots_key;
static bool slot_taken[MRI_MAX_SLOTS];

#define MRI_MAX_EXIT_HOOKS 8
static mri_slot_exit_fn exit_hooks[MRI_MAX_EXIT_HOOKS];
static _Atomic int exit_hook_count;

static void slot_release(void *value) {
  int slot = (int)(intptr_t)value - 1;
  if (slot < 0 || slot >= MRI_MAX_SLOTS) return;
  int hooks = atomic_load_explicit(&exit_hook_count, memory_order_acquire);
  for (int i = 0; i < hooks; i++) exit_hooks[i](slot);
  pthread_mutex_lock(&slots_lock);
  slot_taken[slot] = false;
  pthread_mutex_unlock(&slots_lock);
  mri_tls_slot_plus1 = 0;
}

static void slots_init(void) { pthread_key_create(&slots_key, slot_release); }

/* slots_lock across fork(), registered at load (no lock is held then). A
 * forked child keeps the slots of the parent's other threads taken: their
 * per-slot state (statistics shards, cached blocks) stays readable, and no
 * new thread inherits it. */
static mri_fork_lockable slots_fork;
__attribute__((constructor)) static void slots_fork_register(void) {
  mri_fork_register_mutex(&slots_fork, &slots_lock, MRI_FORK_RANK_LEAF);
}

int mri_thread_slot_slow(void) {
  pthread_once(&slots_once, slots_init);
  int slot = -1;
  pthread_mutex_lock(&slots_lock);
  for (int i = 0; i < MRI_MAX_SLOTS; i++) {
    if (!slot_taken[i]) {
      slot_taken[i] = true;
      slot = i;
      break;
    }
  }
  pthread_mutex_unlock(&slots_lock);
  if (slot < 0) return -1; /* every slot is held: the caller's shared path */
  if (pthread_setspecific(slots_key, (void *)(intptr_t)(slot + 1)) != 0) {
    pthread_mutex_lock(&slots_lock);
    slot_taken[slot] = false;
    pthread_mutex_unlock(&slots_lock);
    return -1;
  }
  mri_tls_slot_plus1 = slot + 1;
  return slot;
}

void mri_thread_slot_on_exit(mri_slot_exit_fn fn) {
  pthread_mutex_lock(&slots_lock);
  int n = atomic_load_explicit(&exit_hook_count, memory_order_relaxed);
  bool present = false;
  for (int i = 0; i < n; i++) present |= exit_hooks[i] == fn;
  if (!present && n < MRI_MAX_EXIT_HOOKS) {
    exit_hooks[n] = fn;
    atomic_store_explicit(&exit_hook_count, n + 1, memory_order_release);
  }
  pthread_mutex_unlock(&slots_lock);
}
