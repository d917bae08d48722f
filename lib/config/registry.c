/*
 * registry.c: the process-wide table of resource names -> factories.
 *
 * One sorted array under one mutex. Lookups happen while configuration is
 * resolved (context creation, mr_resource_from_spec), never on an
 * allocation path, so a lock is the right tool. The built-in names are
 * registered by the same code as mr_register_factory, the first time the
 * registry is used (and again on the next use if host memory ran out
 * meanwhile); nothing is ever removed, so names stay valid for the life of
 * the process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* Longest name accepted. */
#define FACTORY_NAME_MAX 64

typedef struct factory_entry {
  char *name;
  mr_factory_fn fn;
  void *user;
} factory_entry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static factory_entry *registry;
static size_t registry_count, registry_capacity;

static pthread_mutex_t builtins_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool builtins_done;

/* Across fork() (core/fork.h): the built-ins are registered under
 * builtins_lock, which takes registry_lock, so builtins_lock comes first. */
static mri_fork_lockable builtins_fork, registry_fork;
__attribute__((constructor)) static void registry_fork_register(void) {
  mri_fork_register_mutex(&builtins_fork, &builtins_lock, MRI_FORK_RANK_CONFIG);
  mri_fork_register_mutex(&registry_fork, &registry_lock, MRI_FORK_RANK_CONFIG_NAMES);
}

static bool valid_factory_name(const char *name) {
  size_t n = strlen(name);
  if (n == 0 || n > FACTORY_NAME_MAX) return false;
  char c = name[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  return mri_is_identifier(name, n);
}

/* Binary search; OUT: *index, where `name` is or would go. */
static bool find_locked(const char *name, size_t *index) {
  size_t lo = 0, hi = registry_count;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int cmp = strcmp(registry[mid].name, name);
    if (cmp == 0) {
      *index = mid;
      return true;
    }
    if (cmp < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *index = lo;
  return false;
}

/* The one way a name enters the registry, built-in or not. */
static mr_status add_factory(const char *name, mr_factory_fn fn, void *user) {
  if (name == NULL) return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_register_factory: name is NULL");
  if (fn == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_register_factory: '%.64s': factory is NULL",
                     name);
  if (!valid_factory_name(name))
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_register_factory: '%.80s' is not a valid resource name (letters, "
                     "digits and '_', starting with a letter, at most %d characters)",
                     name, FACTORY_NAME_MAX);
  char *copy = mri_strdup(name);
  if (copy == NULL) return MR_ERR_OUT_OF_MEMORY;
  pthread_mutex_lock(&registry_lock);
  size_t index;
  mr_status st = MR_OK;
  if (find_locked(name, &index)) {
    st = mri_error(MR_ERR_INVALID_ARGUMENT,
                   "mr_register_factory: the resource name '%s' is already registered", name);
  } else if (registry_count == registry_capacity) {
    size_t capacity = registry_capacity ? 2 * registry_capacity : 32;
    factory_entry *grown = mri_host_realloc(registry, capacity * sizeof *grown);
    if (grown == NULL) {
      st = mri_error(MR_ERR_OUT_OF_MEMORY, "out of host memory registering '%s'", name);
    } else {
      registry = grown;
      registry_capacity = capacity;
    }
  }
  if (st == MR_OK) {
    memmove(&registry[index + 1], &registry[index], (registry_count - index) * sizeof *registry);
    registry[index] = (factory_entry){.name = copy, .fn = fn, .user = user};
    registry_count++;
  }
  pthread_mutex_unlock(&registry_lock);
  if (st != MR_OK) free(copy);
  return st;
}

/* A built-in a failed earlier attempt registered already is kept. */
static mr_status add_builtin(const char *name, mr_factory_fn fn, void *user) {
  pthread_mutex_lock(&registry_lock);
  size_t index;
  bool there = find_locked(name, &index) && registry[index].fn == fn;
  pthread_mutex_unlock(&registry_lock);
  return there ? MR_OK : add_factory(name, fn, user);
}

/* The built-ins go in first, so an application cannot take their names.
 * A failure (no host memory) is not remembered: the next use tries again. */
static mr_status ensure_builtins(void) {
  if (MRI_LIKELY(atomic_load_explicit(&builtins_done, memory_order_acquire))) return MR_OK;
  pthread_mutex_lock(&builtins_lock);
  mr_status st = MR_OK;
  if (!atomic_load_explicit(&builtins_done, memory_order_relaxed)) {
    st = mri_register_builtin_factories(add_builtin);
    if (st == MR_OK) atomic_store_explicit(&builtins_done, true, memory_order_release);
  }
  pthread_mutex_unlock(&builtins_lock);
  if (st != MR_OK)
    return mri_error_prefix(st, "the built-in resource names could not be registered");
  return MR_OK;
}

mr_status mr_register_factory(const char *name, mr_factory_fn factory, void *user) {
  mr_status st = ensure_builtins();
  if (st != MR_OK) return st;
  return add_factory(name, factory, user);
}

mr_status mri_factory_lookup(const char *name, mr_factory_fn *fn, void **user) {
  *fn = NULL;
  *user = NULL;
  mr_status st = ensure_builtins();
  if (st != MR_OK) return st;
  pthread_mutex_lock(&registry_lock);
  size_t index;
  bool found = find_locked(name, &index);
  if (found) {
    *fn = registry[index].fn;
    *user = registry[index].user;
  }
  pthread_mutex_unlock(&registry_lock);
  return found ? MR_OK : MR_ERR_CONFIG;
}

void mri_factory_names(char *buf, size_t cap) {
  if (cap == 0) return;
  buf[0] = '\0';
  if (ensure_builtins() != MR_OK) return;
  pthread_mutex_lock(&registry_lock);
  size_t n = 0;
  for (size_t i = 0; i < registry_count; i++) {
    const char *sep = i > 0 ? ", " : "";
    size_t need = strlen(sep) + strlen(registry[i].name);
    /* Leave room for ", ..." should the next name not fit. */
    if (n + need + 6 > cap) {
      snprintf(buf + n, cap - n, ", ...");
      break;
    }
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", sep, registry[i].name);
  }
  pthread_mutex_unlock(&registry_lock);
}

void mr_factory_foreach(void (*fn)(void *user, const char *name), void *user) {
  if (fn == NULL || ensure_builtins() != MR_OK) return;
  /* `fn` runs under the registry's lock (config.h says so): it must not
   * register names. Names are never removed, so they outlive the call. */
  pthread_mutex_lock(&registry_lock);
  for (size_t i = 0; i < registry_count; i++) fn(user, registry[i].name);
  pthread_mutex_unlock(&registry_lock);
}
