/*
 * reclaim.c: the process-wide registry of resources that keep idle memory,
 * and the reclaim that walks it (core/reclaim.h says the rules).
 *
 * Sharing. Threads that run out together share one reclaim: each reads the
 * generation (completed reclaims) when its allocation fails; the first to
 * take the registry's lock reclaims and bumps it; the others, finding it
 * bumped once they get the lock, retry at once instead of walking the
 * registry again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/decay.h"
#include "core/reclaim.h"
#include "core/reclaimers.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static mri_reclaimer *registry;
static _Atomic uint64_t generation;
static _Thread_local bool reclaiming;

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static mri_fork_lockable registry_fork;

/* The registry's lock is held while resources' locks are taken (a reclaim
 * trims them): it ranks with the other process-wide registries. */
static void register_fork(void) {
  mri_fork_register_mutex(&registry_fork, &registry_lock, MRI_FORK_RANK_REGISTRY);
}

void mri_reclaimer_register(mri_reclaimer *r) {
  pthread_once(&fork_once, register_fork);
  atomic_init(&r->reclaims, 0);
  atomic_init(&r->reclaimed_bytes, 0);
  atomic_init(&r->reclaim_ns, 0);
  pthread_mutex_lock(&registry_lock);
  r->prev = NULL;
  r->next = registry;
  if (registry != NULL) registry->prev = r;
  registry = r;
  r->registered = true;
  r->decay_start = 0;
  pthread_mutex_unlock(&registry_lock);
  mri_decay_registered(r);
}

void mri_reclaimer_unregister(mri_reclaimer *r) {
  pthread_mutex_lock(&registry_lock);
  if (r->registered) {
    if (r->prev != NULL)
      r->prev->next = r->next;
    else
      registry = r->next;
    if (r->next != NULL) r->next->prev = r->prev;
    r->registered = false;
  }
  pthread_mutex_unlock(&registry_lock);
}

void mri_reclaimer_set_group(mri_reclaimer *r, const void *group) {
  pthread_mutex_lock(&registry_lock);
  r->group = group;
  pthread_mutex_unlock(&registry_lock);
}

static bool matches(const mri_reclaimer *r, int device) {
  return device == MRI_RECLAIM_ALL || r->device == device;
}

/* Which part of the registry a walk takes from. The walk, registry lock
 * held: adaptors first, then the driver pools they gave their memory back
 * to. */
enum { PASS_ADAPTORS = 1, PASS_POOLS = 2, PASS_ALL = PASS_ADAPTORS | PASS_POOLS };

static void reclaim_locked(int device, size_t goal, int passes, mri_reclaim_result *result) {
  uint64_t began = mri_monotonic_ns();
  result->device = device;
  result->shared = false;
  result->generation = atomic_load_explicit(&generation, memory_order_relaxed) + 1;
  if (result->first_generation == 0) result->first_generation = result->generation;
  for (int pass = 0; pass < 2; pass++) {
    if (!(passes & (pass == 0 ? PASS_ADAPTORS : PASS_POOLS))) continue;
    size_t from_pass = 0;
    for (mri_reclaimer *r = registry; r != NULL; r = r->next) {
      if (r->pool != (pass == 1) || !matches(r, device)) continue;
      if (atomic_load_explicit(&r->keep, memory_order_relaxed)) continue;
      if (goal != 0 && pass == 0 && result->released >= goal) break;
      size_t released = 0;
      uint64_t start = mri_monotonic_ns();
      mr_status st = r->release(
          r->obj, goal == 0 || result->released >= goal ? 0 : goal - result->released, &released);
      if (st != MR_OK && result->status == MR_OK) result->status = st;
      if (released == 0) continue;
      atomic_fetch_add_explicit(&r->reclaims, 1, memory_order_relaxed);
      atomic_fetch_add_explicit(&r->reclaimed_bytes, released, memory_order_relaxed);
      atomic_fetch_add_explicit(&r->reclaim_ns, mri_monotonic_ns() - start, memory_order_relaxed);
      from_pass += released;
      result->resources++;
      r->last_generation = result->generation;
      r->last_released = released;
    }
    if (pass == 0) {
      result->released += from_pass;
      result->untrimmed += from_pass;
    } else {
      /* A byte an adaptor gave back to a pool that is then trimmed counts
       * once: the pools' part counts only past what the adaptors gave (an
       * adaptor over a pool no reclaim trims, the application's, is the
       * exception this undercounts). */
      result->pools_released += from_pass;
      result->released += from_pass > result->untrimmed ? from_pass - result->untrimmed : 0;
      result->untrimmed = 0;
    }
  }
  /* What stays idle: marked keep, or not yet past its streams' work. */
  result->kept = 0;
  for (mri_reclaimer *r = registry; r != NULL; r = r->next)
    if (matches(r, device) && r->idle != NULL) result->kept += r->idle(r->obj);
  result->ns += mri_monotonic_ns() - began;
}

void mri_reclaim(int device, size_t goal, mri_reclaim_trigger trigger, mri_reclaim_result *result) {
  memset(result, 0, sizeof *result);
  if (reclaiming) return;
  reclaiming = true;
  pthread_mutex_lock(&registry_lock);
  reclaim_locked(device, goal, PASS_ALL, result);
  atomic_fetch_add_explicit(&generation, 1, memory_order_release);
  pthread_mutex_unlock(&registry_lock);
  reclaiming = false;
  mri_reclaim_log(trigger, goal, result);
}

uint64_t mri_reclaim_generation(void) {
  return atomic_load_explicit(&generation, memory_order_acquire);
}

/* mr_release_idle's end, and mri_reclaim_after_oom's stage 3 (also when
 * its stages 1 and 2 gave nothing back): the reclaimers outside mrctx, with the
 * registry's lock not held (core/reclaimers.h). */
static void reclaim_external(int device, size_t bytes, mri_reclaim_result *result) {
  result->stage = 3;
  reclaiming = true;
  mri_reclaimers_call(device, bytes, &result->external_called, &result->external_released);
  reclaiming = false;
}

static bool retry_after_external(int device, size_t bytes, mri_reclaim_result *result) {
  reclaim_external(device, bytes, result);
  return result->external_called > 0;
}

bool mri_reclaim_after_oom(int device, size_t bytes, uint64_t seen, mri_reclaim_result *result) {
  if (reclaiming || result->stage >= 3) return false;
  if (result->stage == 2) return retry_after_external(device, bytes, result);
  bool first = result->stage == 0;
  reclaiming = true;
  pthread_mutex_lock(&registry_lock);
  bool retry = false;
  if (first && atomic_load_explicit(&generation, memory_order_acquire) != seen) {
    retry = true; /* a reclaim ended after this failure: share it */
    result->stage = 1;
    result->shared = true;
    result->device = device;
    result->generation = atomic_load_explicit(&generation, memory_order_relaxed);
    result->first_generation = result->generation;
  } else {
    /* Everything idle on the device, not just `bytes`: what is left after
     * a partial reclaim may be too fragmented to serve the request, and
     * the next allocation would pay for another walk. First the adaptors,
     * whose memory goes back to the driver pools beneath them, where the
     * retry often finds it (an allocation from the same pool, the common
     * case, reuses it as it is); then, if that gave nothing or the retry
     * still failed, the pools are trimmed, which unmaps memory (about a
     * millisecond per GiB) for cuMemAlloc and other pools to map again. */
    if (first) {
      result->stage = 1;
      size_t before = result->released;
      reclaim_locked(device, 0, PASS_ADAPTORS, result);
      atomic_fetch_add_explicit(&generation, 1, memory_order_release);
      retry = result->released > before;
    }
    if (!retry) {
      result->stage = 2;
      size_t before = result->pools_released;
      reclaim_locked(device, 0, PASS_POOLS, result);
      atomic_fetch_add_explicit(&generation, 1, memory_order_release);
      retry = result->pools_released > before;
    }
  }
  pthread_mutex_unlock(&registry_lock);
  reclaiming = false;
  if (!result->shared) mri_reclaim_log(MRI_RECLAIM_ON_OOM, bytes, result);
  return retry || retry_after_external(device, bytes, result);
}

/* What the reclaimers outside mrctx did, after the rest of the message. */
static mr_status explain_external(mr_status status, const mri_reclaim_result *result) {
  if (result->external_called == 0) return status;
  char external[32];
  mri_format_bytes_human(result->external_released, external, sizeof external);
  char saved[MRI_ERROR_CAPACITY];
  snprintf(saved, sizeof saved, "%s", mr_last_error());
  return mri_error(status, "%s (then %zu reclaimer%s outside mrctx reported giving back %s)", saved,
                   result->external_called, result->external_called == 1 ? "" : "s", external);
}

mr_status mri_reclaim_explain(mr_status status, const mri_reclaim_result *result) {
  mri_reclaim_note_failure(result);
  char released[32], kept[32];
  mri_format_bytes_human(result->released, released, sizeof released);
  mri_format_bytes_human(result->kept, kept, sizeof kept);
  char saved[MRI_ERROR_CAPACITY];
  snprintf(saved, sizeof saved, "%s", mr_last_error());
  status = mri_error(status,
                     "%s (the process-wide reclaim took back %s of idle memory from %zu "
                     "resource%s; %s stays idle in resources marked keep=yes or not yet past "
                     "their streams' work)",
                     saved, released, result->resources, result->resources == 1 ? "" : "s", kept);
  return explain_external(status, result);
}

mr_status mr_release_idle(int device, size_t bytes, size_t *released) {
  if (released != NULL) *released = 0;
  if (device < -1)
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_release_idle: device %d is not a device (-1: every device)", device);
  mri_reclaim_result result;
  int which = device == -1 ? MRI_RECLAIM_ALL : device;
  mri_reclaim(which, bytes, MRI_RECLAIM_ON_REQUEST, &result);
  /* Then memory held outside mrctx, when its own was not enough (and not
   * from within a reclaimer's callback). */
  if (!reclaiming && (bytes == 0 || result.released < bytes))
    reclaim_external(which, bytes == 0 ? 0 : bytes - result.released, &result);
  if (released != NULL) *released = result.released + result.external_released;
  if (result.status != MR_OK) return mri_error_prefix(result.status, "mr_release_idle");
  return MR_OK;
}

/* The description with ", keep=yes" before its closing parenthesis, or
 * without it: what parses back to the same resource. NULL if host memory
 * ran out. */
static char *keep_description(const char *description, bool keep) {
  static const char mark[] = ", keep=yes";
  size_t length = strlen(description);
  size_t marked = sizeof mark - 1;
  bool has = length > marked + 1 && description[length - 1] == ')' &&
             memcmp(description + length - 1 - marked, mark, marked) == 0;
  if (has == keep) return mri_strdup(description);
  if (!keep) return mri_asprintf("%.*s)", (int)(length - 1 - marked), description);
  return mri_asprintf("%.*s%s)", (int)(length - 1), description, mark);
}

mr_status mr_resource_keep_idle(mr_resource *mr, bool keep) {
  if (mr == NULL)
    return mri_error(MR_ERR_INVALID_ARGUMENT, "mr_resource_keep_idle: resource is NULL");
  size_t length = strlen(mr->description);
  if (length == 0 || mr->description[length - 1] != ')')
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_keep_idle: %s keeps no idle memory of its own (keep= applies to "
                     "cache, arena, fixed and bin)",
                     mr->description);
  size_t found = 0;
  pthread_mutex_lock(&registry_lock);
  for (mri_reclaimer *r = registry; r != NULL; r = r->next) {
    if ((r->group != NULL ? r->group : r->obj) != mr->self) continue;
    atomic_store_explicit(&r->keep, keep, memory_order_relaxed);
    found++;
  }
  pthread_mutex_unlock(&registry_lock);
  /* A resource only described (mrctx resolve) has no memory to keep, but
   * its description says what it would keep. */
  if (found == 0 && !mri_describe_only())
    return mri_error(MR_ERR_INVALID_ARGUMENT,
                     "mr_resource_keep_idle: %s keeps no idle memory of its own (keep= applies to "
                     "cache, arena, fixed and bin)",
                     mr->description);
  char *description = keep_description(mr->description, keep);
  if (description == NULL) return MR_ERR_OUT_OF_MEMORY;
  mri_reclaimer_rename(mr->self, mr->description, description);
  free(mr->description);
  mr->description = description;
  return MR_OK;
}

void mri_reclaimer_rename(const void *self, const char *was, const char *now) {
  pthread_mutex_lock(&registry_lock);
  for (mri_reclaimer *r = registry; r != NULL; r = r->next)
    if ((r->group != NULL ? r->group : r->obj) == self && r->what == was) r->what = now;
  pthread_mutex_unlock(&registry_lock);
}

void mri_reclaimer_walk_locked(void (*fn)(void *user, mri_reclaimer *r), void *user) {
  bool was = reclaiming;
  reclaiming = true;
  pthread_mutex_lock(&registry_lock);
  for (mri_reclaimer *r = registry; r != NULL; r = r->next) fn(user, r);
  pthread_mutex_unlock(&registry_lock);
  reclaiming = was;
}
